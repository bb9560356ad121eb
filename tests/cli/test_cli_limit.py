"""One name for the limit: `--limit N` lists at most N on every command that lists (failed
cases for run, demo, report and merge; cases per list for compare; broken pairs for vary
check; variants for vary). The older `--max-failures` and `--max-broken` still work, hidden
from help."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragmeter.cli import app
from ragmeter.demo import demo_cases_path
from ragmeter.results import save_run
from test_vary import hand_made_run

runner = CliRunner()
PIPELINE = "ragmeter.demo.pipeline:answer_hallucinating"


def invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "120"})


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """12 demo cases, their run through the hallucinating pipeline, and its two shards."""
    root = tmp_path_factory.mktemp("limit")
    cases = root / "cases.jsonl"
    cases.write_text("".join(demo_cases_path().read_text("utf-8").splitlines(True)[:12]))
    for shard in ("1/2", "2/2"):
        out = root / f"shard{shard[0]}"
        result = invoke("run", "--cases", cases, "--pipeline", PIPELINE, "--shard", shard,
                        "-o", out, "--no-progress")  # fmt: skip
        assert result.exit_code in (0, 3), result.output
    for name, pipeline in (("base", "ragmeter.demo.pipeline:answer"), ("new", PIPELINE)):
        result = invoke("run", "--cases", cases, "--pipeline", pipeline, "-o", root / name,
                        "--no-progress")  # fmt: skip
        assert result.exit_code in (0, 3), result.output
    return root


def listed(output: str, limit: int) -> None:
    """The report lists `limit` failed cases of its total, and says how many more there are."""
    total = int(re.search(r"Failed cases: (\d+)", output).group(1))  # type: ignore[union-attr]
    assert total > limit
    assert f"… {total - limit} more; see results.json or --limit" in output


@pytest.mark.parametrize("flag", [["--limit", "2"], ["--max-failures", "2"], ["--max-failures=2"]])
def test_run_report_and_merge_take_limit_and_the_old_spelling(
    root: Path, tmp_path: Path, flag: list[str]
) -> None:
    out = tmp_path / "run"
    ran = invoke("run", "--cases", root / "cases.jsonl", "--pipeline", PIPELINE, "-o", out,
                 "--no-progress", *flag)  # fmt: skip
    assert ran.exit_code in (0, 3), ran.output
    listed(ran.output, 2)
    report = invoke("report", out, *flag)
    assert report.exit_code == 0, report.output
    listed(report.output, 2)
    merged = invoke("merge", root / "shard1", root / "shard2", "-o", tmp_path / "merged", *flag)
    assert merged.exit_code in (0, 3), merged.output
    listed(merged.output, 2)


@pytest.mark.parametrize("flag", ["--limit", "--max-failures"])
def test_demo_takes_limit_and_the_old_spelling(tmp_path: Path, flag: str) -> None:
    result = invoke("demo", "--out", tmp_path / "demo", "--no-progress", flag, "1")
    assert result.exit_code == 0, result.output
    listed(result.output, 1)


def test_compare_lists_at_most_limit_cases_in_each_list(root: Path) -> None:
    result = invoke("compare", root / "base", root / "new", "--limit", "1")
    assert result.exit_code == 0, result.output
    regressed = int(re.search(r"Regressed cases: (\d+)", result.output).group(1))  # type: ignore[union-attr]
    assert regressed > 1
    assert f"… {regressed - 1} more (--limit, --format json)" in result.output


@pytest.mark.parametrize("flag", ["--limit", "--max-broken"])
def test_vary_check_lists_at_most_limit_broken_pairs(tmp_path: Path, flag: str) -> None:
    save_run(hand_made_run(), tmp_path / "run")
    result = invoke("vary", "check", tmp_path / "run", flag, "1")
    assert result.exit_code == 0, result.output
    assert "broken (3)" in result.output and "… and 2 more (--limit)" in result.output


def test_a_negative_limit_is_refused(root: Path) -> None:
    result = invoke("report", root / "shard1", "--limit", "-1")
    assert result.exit_code == 2 and "--limit" in result.output


@pytest.mark.parametrize(
    "command", ["run", "demo", "report", "merge", "compare", "vary", "vary check"]
)
def test_help_shows_only_limit(command: str) -> None:
    result = invoke(*command.split(), "--help")
    assert result.exit_code == 0
    assert "--limit" in result.output
    assert "max-failures" not in result.output and "max-broken" not in result.output
