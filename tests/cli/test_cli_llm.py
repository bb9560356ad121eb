"""`ragmeter run --judge openai` end to end against the fake OpenAI-compatible server."""

import json

import pytest
from typer.testing import CliRunner

from ragmeter.cli import app
from ragmeter.clients import forget_output_modes
from ragmeter.testing import FakeOpenAI, Smart

runner = CliRunner()


@pytest.fixture
def files(tmp_path):
    cases = tmp_path / "cases.jsonl"
    answers = tmp_path / "answers.jsonl"
    rows = [
        ("a", "How long is the trash kept?", "Deleted notes stay in the trash for 30 days."),
        ("b", "回收站保留多久？", "回收站保留删除的笔记 30 天。"),
    ]
    cases.write_text(
        "\n".join(
            json.dumps({"id": i, "question": q, "ground_truth": g}, ensure_ascii=False)
            for i, q, g in rows
        )
    )
    answers.write_text(
        "\n".join(
            json.dumps(
                {"id": i, "contexts": [g, "Unrelated text."], "answer": g}, ensure_ascii=False
            )
            for i, _q, g in rows
        )
    )
    return cases, answers


@pytest.fixture
def server():
    forget_output_modes()
    with FakeOpenAI(Smart()) as fake:
        yield fake


def _run(server, files, tmp_path, *extra):
    cases, answers = files
    args = [
        "run",
        "--cases",
        cases,
        "--answers",
        answers,
        "--judge",
        "openai",
        "--model",
        "judge-model",
        "--base-url",
        server.base_url,
        "--cache-dir",
        tmp_path / "cache",
        "--no-progress",
        *extra,
    ]
    return runner.invoke(app, [str(a) for a in args])


def test_llm_judge_run_then_cached_rerun_makes_no_calls(server, files, tmp_path):
    first = _run(server, files, tmp_path, "--out", tmp_path / "one")
    assert first.exit_code == 0, first.output
    data = json.loads((tmp_path / "one" / "results.json").read_text())
    assert data["judge"]["kind"] == "openai" and data["judge"]["model"] == "judge-model"
    assert data["summary"]["metrics"]["faithfulness"]["n_scored"] == 2
    assert data["run"]["judge_stats"]["calls"] > 0
    calls_first = len(server.chat_log())
    assert calls_first > 0

    again = _run(server, files, tmp_path, "--out", tmp_path / "two")
    assert again.exit_code == 0, again.output
    assert len(server.chat_log()) == calls_first  # nothing new reached the endpoint
    second = json.loads((tmp_path / "two" / "results.json").read_text())
    assert second["run"]["judge_stats"]["calls"] == 0
    assert [c["metrics"] for c in second["cases"]] == [c["metrics"] for c in data["cases"]]


def test_dry_run_estimates_and_spends_nothing(server, files, tmp_path):
    result = _run(server, files, tmp_path, "--out", tmp_path / "dry", "--dry-run")
    assert result.exit_code == 0, result.output
    assert "Dry run" in result.output and "total" in result.output
    assert server.chat_log() == []
    assert not (tmp_path / "dry").exists()


def test_judge_equal_to_generator_is_warned(server, files, tmp_path):
    result = _run(
        server, files, tmp_path, "--out", tmp_path / "w", "--generator-model", "judge-model"
    )
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "w" / "results.json").read_text())
    assert any("judge-model" in w for w in data["run"]["warnings"])
    assert "warning" in result.output
