"""The command line end to end, through Typer's runner (same code path as the console script)."""

import json

import pytest
from typer.testing import CliRunner

from ragmeter.cli import app

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def cases_file(tmp_path):
    path = tmp_path / "cases.jsonl"
    rows = [
        {
            "id": "a",
            "question": "How long is the trash kept?",
            "ground_truth": "Deleted notes stay in the trash for 30 days.",
        },
        {"id": "b", "question": "什么是回收站？", "ground_truth": "回收站保留删除的笔记 30 天。"},
    ]
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n")
    return path


@pytest.fixture
def answers_file(tmp_path):
    path = tmp_path / "answers.jsonl"
    rows = [
        {
            "id": "a",
            "contexts": ["Deleted notes stay in the trash for 30 days."],
            "answer": "Deleted notes stay in the trash for 30 days.",
        },
        {
            "id": "b",
            "contexts": ["回收站保留删除的笔记 30 天。"],
            "answer": "回收站保留删除的笔记 30 天。",
        },
    ]
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n")
    return path


def test_help_lists_commands():
    result = invoke("--help")
    assert result.exit_code == 0
    for command in ("demo", "run", "report", "lint"):
        assert command in result.output


def test_run_with_answers_file_writes_results_and_reports(tmp_path, cases_file, answers_file):
    out = tmp_path / "out"
    result = invoke(
        "run", "--cases", cases_file, "--answers", answers_file, "--out", out, "--no-progress"
    )
    assert result.exit_code == 0, result.output
    data = json.loads((out / "results.json").read_text())
    assert data["schema_version"] == 1
    assert [c["lang"] for c in data["cases"]] == ["en", "zh"]
    faith = data["summary"]["metrics"]["faithfulness"]
    assert faith["n_scored"] == 2 and faith["mean"] == 1.0
    assert "faithfulness" in result.output and "Diagnosis" in result.output

    again = invoke("report", out)
    assert again.exit_code == 0
    assert "faithfulness" in again.output


def test_run_with_python_callable(tmp_path, cases_file, monkeypatch):
    (tmp_path / "my_rag.py").write_text(
        "def answer(question, history):\n"
        "    if '回收站' in question:\n"
        "        raise RuntimeError('index offline')\n"
        "    return {'contexts': ['Deleted notes stay in the trash for 30 days.'],\n"
        "            'answer': 'Deleted notes stay in the trash for 30 days.'}\n"
    )
    monkeypatch.chdir(tmp_path)
    result = invoke(
        "run", "--cases", cases_file, "--pipeline", "my_rag:answer", "--out", "o", "--no-progress"
    )
    # Half the cases could not be scored: results are written, but the run is incomplete.
    assert result.exit_code == 3, result.output
    assert "every metric: 1 of 2 cases scored" in result.output
    assert "RuntimeError: index offline (1 case: b)" in result.output
    data = json.loads((tmp_path / "o" / "results.json").read_text())
    broken = data["cases"][1]
    assert broken["pipeline_error"].endswith("raised RuntimeError: index offline")
    assert broken["metrics"]["faithfulness"]["unscored_reason"].startswith("pipeline error")
    assert data["cases"][0]["metrics"]["faithfulness"]["score"] == 1.0


def test_lang_option_overrides_detection(tmp_path, cases_file, answers_file):
    out = tmp_path / "out"
    result = invoke(
        "run",
        "--cases",
        cases_file,
        "--answers",
        answers_file,
        "--out",
        out,
        "--lang",
        "zh",
        "--no-progress",
    )
    assert result.exit_code == 0, result.output
    data = json.loads((out / "results.json").read_text())
    assert [c["lang"] for c in data["cases"]] == ["zh", "zh"]


@pytest.mark.parametrize("command", ["lint", "run"])
def test_unloadable_file_gives_one_line_and_exit_2_and_writes_nothing(
    tmp_path, command, answers_file
):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "question": "ok?"}\n{"id": "b", "question": ""}\n')
    out = tmp_path / "out"
    args = (
        ["lint", bad]
        if command == "lint"
        else ["run", "--cases", bad, "--answers", answers_file, "--out", out, "--no-progress"]
    )
    result = invoke(*args)
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1
    assert f"{bad}:2" in lines[0] and "question" in lines[0]
    assert not out.exists()


def test_invalid_json_and_bad_answers_file_exit_2(tmp_path, cases_file):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "question": "ok?"}\n{"id": "b", "question": \n')
    assert invoke("lint", bad).exit_code == 2
    answers = tmp_path / "answers.jsonl"
    answers.write_text('{"id": "a", "contexts": "not a list", "answer": "x"}\n')
    out = tmp_path / "out"
    result = invoke("run", "--cases", cases_file, "--answers", answers, "--out", out)
    assert result.exit_code == 2
    assert f"{answers}:1" in result.output and "contexts" in result.output
    assert not out.exists()


def test_lint_exit_codes(tmp_path):
    clean = tmp_path / "clean.jsonl"
    clean.write_text(json.dumps({"id": "a", "question": "q?", "ground_truth": "g"}) + "\n")
    assert invoke("lint", clean).exit_code == 0  # only warnings (too few cases...)
    errors = tmp_path / "errors.jsonl"
    errors.write_text(
        json.dumps({"id": "a", "question": "Same?", "ground_truth": "g"})
        + "\n"
        + json.dumps({"id": "b", "question": "same", "ground_truth": ""})
        + "\n"
    )
    result = invoke("lint", errors, "--json")
    assert result.exit_code == 1
    codes = {f["code"] for f in json.loads(result.output)["findings"]}
    assert {"duplicate-question", "empty-ground-truth"} <= codes


def test_no_pipeline_is_a_clear_error(tmp_path, cases_file):
    result = invoke("run", "--cases", cases_file, "--out", tmp_path / "o")
    assert result.exit_code == 2
    assert "--pipeline" in result.output


def test_demo_command_runs_offline(tmp_path):
    out = tmp_path / "demo"
    result = invoke("demo", "--out", out, "--no-progress", "--max-failures", "3")
    assert result.exit_code == 0, result.output
    assert (out / "results.json").exists()
    assert "Diagnosis" in result.output and "Failed cases" in result.output


def test_demo_replaces_its_own_run_but_not_another(tmp_path, cases_file, answers_file):
    demo_out, run_out = tmp_path / "demo", tmp_path / "run"
    for _ in range(2):
        result = invoke("demo", "--out", demo_out, "--no-progress", "--max-failures", "0")
        assert result.exit_code == 0, result.output
    invoke("run", "--cases", cases_file, "--answers", answers_file, "--out", run_out)
    kept = (run_out / "results.json").read_bytes()
    result = invoke("demo", "--out", run_out, "--no-progress")
    assert result.exit_code == 2
    assert "--overwrite" in result.output
    assert (run_out / "results.json").read_bytes() == kept


def test_report_of_missing_dir_exit_2(tmp_path):
    result = invoke("report", tmp_path / "nothing")
    assert result.exit_code == 2
    assert "ragmeter run" in result.output


def test_version():
    from ragmeter import __version__

    result = invoke("--version")
    assert result.exit_code == 0
    assert result.output.strip() == f"ragmeter {__version__}"
