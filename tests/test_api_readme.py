"""The guide's "Python API" page (docs/python-api.md, once the README's section) runs as written
and prints what it shows.

Every ```python block of the page runs, in order, in one namespace (in a temporary working
directory); a ```text block right after one is the output it must print (compared line by
line, runs of spaces collapsed). A block that imports pandas is skipped, with the rest, when
pandas is not installed.
"""

from __future__ import annotations

import contextlib
import csv
import importlib.util
import io
import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[1] / "docs" / "python-api.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def examples() -> list[tuple[str, str | None]]:
    """(code, expected output or None) for each python block of the page."""
    text = PAGE.read_text(encoding="utf-8")
    assert text.startswith("# Python API\n"), "docs/python-api.md no longer opens with its title"
    blocks = FENCE.findall(text)
    found: list[tuple[str, str | None]] = []
    for (lang, body), following in zip(blocks, [*blocks[1:], ("", "")], strict=True):
        if lang == "python":
            found.append((body, following[1] if following[0] == "text" else None))
    return found


def squeeze(text: str) -> list[str]:
    return [" ".join(line.split()) for line in text.strip().splitlines()]


def test_the_page_has_runnable_examples_with_outputs():
    blocks = examples()
    assert len(blocks) >= 3
    assert blocks[0][1] is not None and "ragmeter.evaluate(rows)" in blocks[0][0]
    assert any("pd.DataFrame" in code for code, _ in blocks)


def test_the_python_api_page_examples_run_as_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "readme_example"}
    for code, expected in examples():
        if "import pandas" in code and importlib.util.find_spec("pandas") is None:
            pytest.skip("pandas is not installed: the DataFrame example and those after it")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, str(PAGE), "exec"), namespace)
        if expected is not None:
            assert squeeze(out.getvalue()) == squeeze(expected), code

    with (tmp_path / "scores.csv").open(encoding="utf-8", newline="") as handle:
        table = list(csv.DictReader(handle))
    assert [row["id"] for row in table] == ["1", "2"]
    assert [row["faithfulness"] for row in table] == ["1.0", "0.373333"]  # as the page prints
    assert table[0]["faithfulness_unscored_reason"] == ""
    assert {"context_recall", "context_precision", "answer_relevancy"} <= set(table[0])
    assert (tmp_path / "runs" / "api" / "results.json").is_file()
