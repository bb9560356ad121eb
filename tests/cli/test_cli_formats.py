"""One vocabulary across commands: `--format json` (or `-f json`) wherever a command can print
JSON, `-o/--out` for where output goes; the older `--json` and `report --output` still work."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragmeter.cli import app
from ragmeter.demo import demo_cases_path

runner = CliRunner()


def invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("runs")
    cases = root / "cases.jsonl"
    cases.write_text("".join(demo_cases_path().read_text("utf-8").splitlines(True)[:8]))
    for name in ("a", "b"):
        result = invoke(
            "run",
            "--cases",
            cases,
            "--pipeline",
            "ragmeter.demo.pipeline:answer",
            "-o",
            root / name,
            "--no-progress",
        )
        assert result.exit_code == 0, result.output
    return root


def commands(root: Path) -> dict[str, list[object]]:
    return {
        "lint": ["lint", root / "cases.jsonl"],
        "compare": ["compare", root / "a", root / "b"],
        "gate": ["gate", root / "b", "--baseline", root / "a"],
    }


@pytest.mark.parametrize("command", ["lint", "compare", "gate"])
@pytest.mark.parametrize("flag", [["--format", "json"], ["-f", "json"], ["--json"]])
def test_every_command_prints_json_the_same_way(runs: Path, command: str, flag: list[str]) -> None:
    result = invoke(*commands(runs)[command], *flag)
    assert result.exit_code in (0, 1), result.output
    json.loads(result.stdout)  # the whole output is one JSON document
    text = invoke(*commands(runs)[command], "--format", "text")
    assert text.exit_code == result.exit_code
    with pytest.raises(json.JSONDecodeError):
        json.loads(text.stdout)


def test_an_unknown_format_is_refused(runs: Path) -> None:
    result = invoke("lint", runs / "cases.jsonl", "--format", "yaml")
    assert result.exit_code == 2
    assert "'yaml' is not one of" in result.output


@pytest.mark.parametrize("flag", ["--out", "--output", "-o"])
def test_report_writes_where_out_says(runs: Path, tmp_path: Path, flag: str) -> None:
    target = tmp_path / "report.md"
    result = invoke("report", runs / "a", "-f", "md", flag, target)
    assert result.exit_code == 0, result.output
    assert target.read_text("utf-8").startswith("#")


@pytest.mark.parametrize("command", [[], ["run"], ["report"], ["gate"], ["merge"]])
def test_help_shows_no_type_after_a_flag(command: list[str]) -> None:
    result = invoke(*command, "--help")
    assert result.exit_code == 0
    assert "<bool>" not in result.output
    assert "--help" in result.output
