"""`--judge llama` mistakes end in one line and exit code 2, before any model loads."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ragmeter.cli import app

runner = CliRunner()


@pytest.fixture
def cases(tmp_path):
    path = tmp_path / "cases.jsonl"
    record = {
        "id": "a",
        "question": "How long do refunds take?",
        "reference": "14 days.",
        "retrieved_contexts": ["Refunds take 14 days."],
        "response": "14 days.",
    }
    path.write_text(json.dumps(record) + "\n")
    return path


def run_args(cases, tmp_path, *options: str) -> list[str]:
    out = str(tmp_path / "out")
    return ["run", "--cases", str(cases), "--out", out, "--judge", "llama", *options]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--model-path", "missing.gguf"], "missing.gguf: model file not found"),
        (["--model", "gpt-4o"], "unknown llama model 'gpt-4o'"),
        (["--base-url", "http://127.0.0.1:1/v1"], "the llama judge starts its own server"),
    ],
)
def test_llama_judge_mistakes_are_one_line(cases, tmp_path, options, message):
    result = runner.invoke(app, run_args(cases, tmp_path, *options))
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.output
    assert not (tmp_path / "out" / "results.json").exists()


def test_a_file_that_is_not_gguf(cases, tmp_path):
    bogus = tmp_path / "model.gguf"
    bogus.write_text("not a model")
    result = runner.invoke(app, run_args(cases, tmp_path, "--model-path", str(bogus)))
    assert result.exit_code == 2
    assert "not a GGUF model file" in result.output


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("ctx_size = 100\n", "[judge] 'ctx_size': input should be greater than or equal to 512"),
        ("thread = 1\n", "[judge] 'thread': not an option of the llama judge (did you mean"),
    ],
)
def test_serve_judge_checks_a_llama_table_as_the_judge_does(tmp_path, table, message):
    """It was a traceback (the server's options refused the value) or silently ignored."""
    config = tmp_path / "ragmeter.toml"
    config.write_text('[judge]\nkind = "llama"\n' + table)
    result = runner.invoke(app, ["serve-judge", "--config", str(config)])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {config}: {message}"), result.output
