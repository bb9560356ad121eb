"""A judge built with `ragmeter.judge` and used by `ragmeter.evaluate` is closed from synchronous
code (`close()` or a `with` block), so the process ends without an unclosed HTTP session."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

SCRIPT = """
import tempfile
import ragmeter
from ragmeter.testing import FakeOpenAI, Smart

rows = [{{
    "question": "How long are deleted notes kept?",
    "contexts": ["Deleted notes stay in the trash for 30 days, then they are erased."],
    "answer": "Deleted notes stay in the trash for 30 days.",
    "ground_truth": "Deleted notes are kept in the trash for 30 days.",
}}]
with FakeOpenAI(responder=Smart()) as server:
    {body}
print("scored", result.cases[0].score("faithfulness") is not None)
"""

OPEN = (
    'judge = ragmeter.judge("openai", model="fake", base_url=server.base_url, '
    "cache_dir=tempfile.mkdtemp())"
)
BODIES = {
    "left open": f"{OPEN}\n    result = ragmeter.evaluate(rows, judge=judge)",
    "close()": f"{OPEN}\n    result = ragmeter.evaluate(rows, judge=judge)\n    judge.close()",
    "with block": (
        f"{OPEN.replace('judge = ', 'with ', 1)} as judge:\n"
        "        result = ragmeter.evaluate(rows, judge=judge)"
    ),
}


def run(body: str) -> subprocess.CompletedProcess[str]:
    code = textwrap.dedent(SCRIPT).format(body=body)
    return subprocess.run(
        [sys.executable, "-W", "default", "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_judge_left_open_is_reported_at_exit():
    """The baseline the other two are measured against: the warning is real and visible."""
    done = run(BODIES["left open"])
    assert done.returncode == 0, done.stderr
    assert "scored True" in done.stdout
    assert "Unclosed" in done.stderr


@pytest.mark.parametrize("how", ["close()", "with block"])
def test_a_closed_judge_leaves_nothing_open(how):
    done = run(BODIES[how])
    assert done.returncode == 0, done.stderr
    assert "scored True" in done.stdout
    assert "Unclosed" not in done.stderr, done.stderr
