"""Where the environment or an option cannot work, one line and exit 2, nothing written, no
traceback (issue 13): an output path under a file or in a read-only directory, `report -o` given
a directory, a corrupt call cache, a full disk, `--alpha 5`, `--concurrency 0`,
`--judge-concurrency 0`."""

import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragmeter.cli import app

runner = CliRunner()
ROWS = [("q1", "How long are deleted notes kept?", "Deleted notes stay 30 days.")]


@pytest.fixture
def files(tmp_path):
    cases = tmp_path / "cases.jsonl"
    answers = tmp_path / "answers.jsonl"
    cases.write_text(
        "\n".join(json.dumps({"id": i, "question": q, "ground_truth": g}) for i, q, g in ROWS)
    )
    answers.write_text(
        "\n".join(json.dumps({"id": i, "contexts": [g], "answer": g}) for i, _q, g in ROWS)
    )
    run = runner.invoke(
        app, ["run", "-c", str(cases), "-a", str(answers), "-o", str(tmp_path / "run")]
    )
    assert run.exit_code == 0, run.output
    (tmp_path / "a-file").write_text("keep me")
    return tmp_path


def _corrupt_cache(tmp: Path) -> None:
    (tmp / "cache").mkdir()
    (tmp / "cache" / "llm.sqlite").write_bytes(b"SQLite format 3\x00" + os.urandom(4000))


def _read_only(tmp: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root writes to read-only directories")
    (tmp / "ro").mkdir(mode=0o500)


LLM = ["--judge", "openai", "--model", "m", "--base-url", "http://127.0.0.1:9/v1"]
RUN = ["run", "-c", "{tmp}/cases.jsonl", "-a", "{tmp}/answers.jsonl", "--no-progress"]
PROBES = {
    "out under a file": (
        [*RUN, "-o", "{tmp}/a-file/out"],
        None,
        "error: --out {tmp}/a-file/out: cannot write there ({tmp}/a-file is a file, not a "
        "directory)",
    ),
    "out read-only": (
        [*RUN, "-o", "{tmp}/ro/out"],
        _read_only,
        "error: --out {tmp}/ro/out: cannot write there (Permission denied)",
    ),
    "report -o a directory": (
        ["report", "{tmp}/run", "-f", "md", "-o", "{tmp}"],
        None,
        "error: --out {tmp}: is a directory; give a file to write, e.g. {tmp}/report.md",
    ),
    "report -o under a file": (
        ["report", "{tmp}/run", "-f", "html", "-o", "{tmp}/a-file/r.html"],
        None,
        "error: --out {tmp}/a-file/r.html: cannot write there ({tmp}/a-file is a file, "
        "not a directory)",
    ),
    "corrupt cache": (
        [*RUN, "-o", "{tmp}/out", *LLM, "--cache-dir", "{tmp}/cache"],
        _corrupt_cache,
        "error: LLM call cache {tmp}/cache/llm.sqlite: cannot be used (file is not a "
        "database); delete it (it is rebuilt on the next run, repeating its calls) or pass "
        "--no-cache",
    ),
    "gate --alpha 5": (
        ["gate", "{tmp}/run", "--alpha", "5"],
        None,
        "error: --alpha 5: must be between 0 and 1 (a rate, e.g. 0.05)",
    ),
    "run --concurrency 0": (
        [*RUN, "-o", "{tmp}/out", "--concurrency", "0"],
        None,
        "error: --concurrency 0: must be at least 1",
    ),
    "llm judge --concurrency -3": (
        [*RUN, "-o", "{tmp}/out", *LLM, "--concurrency", "-3"],
        None,
        "error: --concurrency -3: must be at least 1",
    ),
    "llm judge --judge-concurrency 0": (
        [*RUN, "-o", "{tmp}/out", *LLM, "--judge-concurrency", "0"],
        None,
        "error: --judge-concurrency 0: must be at least 1",
    ),
}


@pytest.mark.parametrize("probe", list(PROBES))
def test_one_line_exit_2_and_nothing_written(files, probe):
    args, setup, expected = PROBES[probe]
    if setup is not None:
        setup(files)
    before = sorted(p for p in files.rglob("*") if p.is_file())
    result = runner.invoke(app, [a.format(tmp=files) for a in args])
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [expected.format(tmp=files)]
    assert sorted(p for p in files.rglob("*") if p.is_file()) == before
    assert (files / "a-file").read_text() == "keep me"


def _small_files() -> None:
    """In the child: files stop growing past 2 kB (EFBIG), as on a full disk."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))


def test_a_full_disk_at_save_is_one_line_and_leaves_no_partial_file(files):
    out = files / "full"
    proc = subprocess.run(
        [
            str(Path(sys.executable).parent / "ragmeter"),
            *(a.format(tmp=files) for a in RUN),
            *("-o", str(out)),
        ],
        preexec_fn=_small_files,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    # The first file to outgrow the limit is named: the judged cases' journal or results.json
    assert proc.stderr.strip().splitlines()[-1] in (
        f"error: cannot write {out}/{name}: File too large; nothing written"
        for name in ("results.partial.jsonl", "results.json")
    )
    assert list(out.iterdir()) == []  # no results.json, no temporary file left
