"""Exit codes that cannot lie: failures never read as a pass (issue 11).

Every test drives the real command line; LLM judges talk to the fake OpenAI-compatible server
over HTTP on 127.0.0.1.
"""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragmeter.cli import app
from ragmeter.clients import forget_output_modes
from ragmeter.testing import FakeOpenAI, Fault, Smart

runner = CliRunner()
ROWS = [
    (f"q{i}", f"How long are deleted notes kept, case {i}?", "Deleted notes stay 30 days.")
    for i in range(6)
]


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def files(tmp_path):
    cases = tmp_path / "cases.jsonl"
    answers = tmp_path / "answers.jsonl"
    cases.write_text(
        "\n".join(json.dumps({"id": i, "question": q, "ground_truth": g}) for i, q, g in ROWS)
    )
    answers.write_text(
        "\n".join(
            json.dumps({"id": i, "contexts": [g, "Unrelated text."], "answer": g})
            for i, _q, g in ROWS
        )
    )
    return cases, answers


@pytest.fixture(autouse=True)
def _fresh_modes():
    forget_output_modes()


def run_answers(files, out, *args):
    """`ragmeter run` on the eval set and its precomputed answers, into `out`."""
    cases, answers = files
    return invoke("run", "--cases", cases, "--answers", answers, "--out", out, *args)


def llm_args(server, tmp_path, *extra):
    return [
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


def test_pipeline_down_exits_3_with_one_cause_and_gate_fails(tmp_path, files):
    cases, _ = files
    out = tmp_path / "down"
    result = invoke("run", "--cases", cases, "--endpoint", "http://127.0.0.1:9/rag", "--out", out)
    assert result.exit_code == 3, result.output
    assert "every metric: 0 of 6 cases scored" in result.output
    assert "ConnectError" in result.output and "(6 cases: q0, q1, q2, …)" in result.output
    assert "meet their targets" not in result.output
    # One grouped row per cause, not one per case × metric.
    assert result.output.count("pipeline error: pipeline http://127.0.0.1:9/rag") <= 3
    gate = invoke("gate", out)
    assert gate.exit_code == 1, gate.output
    assert gate.output.count("FAIL ") == 4 and "SKIP" not in gate.output
    assert "FAILED: a metric was not measured" in gate.output


def test_all_empty_answers_score_zero_and_fail_the_gate(tmp_path, files):
    cases, _ = files
    empty = tmp_path / "empty.jsonl"
    empty.write_text(
        "\n".join(json.dumps({"id": i, "contexts": [g], "answer": ""}) for i, _q, g in ROWS)
    )
    out = tmp_path / "empty"
    result = invoke("run", "--cases", cases, "--answers", empty, "--out", out, "--no-progress")
    data = json.loads((out / "results.json").read_text())
    for metric in ("faithfulness", "answer_relevancy"):
        stats = data["summary"]["metrics"][metric]
        assert stats["n_scored"] == 6 and stats["mean"] == 0.0
    assert result.exit_code == 0, result.output  # measured: the pipeline is just bad
    gate = invoke("gate", out)
    assert gate.exit_code == 1
    assert "FAIL floor faithfulness" in gate.output and "below the floor" in gate.output
    assert "FAILED: a mean significantly below its floor" in gate.output


def test_rejected_key_stops_at_once_exit_5_nothing_written(tmp_path, files):
    out = tmp_path / "auth"
    with FakeOpenAI(Smart(), faults=[Fault("unauthorized")]) as server:
        result = run_answers(
            files,
            out,
            *llm_args(server, tmp_path, "--judge-concurrency", "1"),
        )
        sent = len(server.chat_log())
    assert result.exit_code == 5, result.output
    assert "HTTP 401" in result.output and "check the API key" in result.output
    assert "nothing written" in result.output and "Traceback" not in result.output
    assert sent == 1  # no retries, no further calls
    assert not (out / "results.json").exists()


def test_unknown_model_stops_with_exit_5(tmp_path, files):
    with FakeOpenAI(Smart(), faults=[Fault("model_not_found")]) as server:
        result = run_answers(
            files,
            tmp_path / "m",
            *llm_args(server, tmp_path, "--judge-concurrency", "4"),
        )
        sent = len(server.chat_log())
    assert result.exit_code == 5, result.output
    assert "HTTP 404" in result.output and "check --model and --base-url" in result.output
    assert sent <= 4  # at most what was in flight when the first answer came back


def test_unreachable_judge_stops_with_exit_5(tmp_path, files):
    result = run_answers(
        files,
        tmp_path / "u",
        "--judge",
        "openai",
        "--model",
        "m",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--cache-dir",
        tmp_path / "cache",
        "--no-progress",
    )
    assert result.exit_code == 5, result.output
    assert "could not connect" in result.output and "is the judge endpoint running" in result.output


def test_max_cost_is_a_hard_ceiling_and_exits_4(tmp_path, files):
    config = tmp_path / "ragmeter.toml"
    config.write_text('[judge.prices]\n"judge-model" = [100.0, 400.0]\n')
    out = tmp_path / "budget"
    budget = 0.2
    with FakeOpenAI(Smart()) as server:
        result = run_answers(
            files,
            out,
            "--config",
            config,
            "--max-cost",
            budget,
            *llm_args(server, tmp_path, "--judge-concurrency", "8"),
        )
        billed = sum(
            (r.prompt_tokens * 100.0 + r.completion_tokens * 400.0) / 1e6 for r in server.chat_log()
        )
    assert result.exit_code == 4, result.output
    assert 0 < billed <= budget  # what the endpoint counted, not only what we think we spent
    assert "the judge budget ran out" in result.output
    assert "of a $0.2 budget (stopped:" in result.output
    data = json.loads((out / "results.json").read_text())
    assert 0 < data["run"]["judge_stats"]["cost"] <= budget
    reasons = [
        m["unscored_reason"]
        for c in data["cases"]
        for m in c["metrics"].values()
        if m["score"] is None
    ]
    assert reasons and all(r.startswith("judge budget reached") for r in reasons)


def test_out_is_checked_before_any_work(tmp_path, files):
    cases, answers = files
    a_file = tmp_path / "notes.txt"
    a_file.write_text("keep me")
    bad = run_answers(files, a_file)
    assert bad.exit_code == 2 and "is a file" in bad.output
    assert a_file.read_text() == "keep me"

    first = invoke(
        "run",
        "--cases",
        cases,
        "--answers",
        answers,
        "--out",
        tmp_path / "r" / "results.json",
        "--no-progress",
    )
    assert first.exit_code == 0, first.output
    stored = (tmp_path / "r" / "results.json").read_text()
    again = run_answers(files, tmp_path / "r")
    assert again.exit_code == 2 and "--overwrite" in again.output
    assert (tmp_path / "r" / "results.json").read_text() == stored
    replaced = invoke(
        "run",
        "--cases",
        cases,
        "--answers",
        answers,
        "--out",
        tmp_path / "r",
        "--overwrite",
        "--no-progress",
    )
    assert replaced.exit_code == 0, replaced.output


def test_first_ctrl_c_stops_cleanly_and_keeps_previous_results(tmp_path, files):
    cases, _ = files
    (tmp_path / "slow_rag.py").write_text(
        textwrap.dedent(
            """
            import pathlib, time

            def answer(question, history):
                pathlib.Path("started").touch()
                time.sleep(0.5)
                return {"contexts": ["Deleted notes stay 30 days."],
                        "answer": "Deleted notes stay 30 days."}
            """
        )
    )
    out = tmp_path / "run"
    out.mkdir()
    (out / "results.json").write_text('{"previous": true}')
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    proc = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "ragmeter"),
            "run",
            "--cases",
            str(cases),
            "--pipeline",
            "slow_rag:answer",
            "--out",
            str(out),
            "--overwrite",
            "--concurrency",
            "1",
            "--no-progress",
        ],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not (tmp_path / "started").exists():
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert stderr.strip().splitlines() == [
        f"error: interrupted: nothing written; {out / 'results.json'} is unchanged"
    ]
    assert (out / "results.json").read_text() == '{"previous": true}'


def test_an_endpoint_echoing_the_key_never_gets_it_stored_or_printed(tmp_path, files, monkeypatch):
    secret = "sk-test-0123456789abcdef"
    monkeypatch.setenv("JUDGE_KEY", secret)
    with FakeOpenAI(Smart(), faults=[Fault("unauthorized")]) as server:
        result = run_answers(
            files,
            tmp_path / "echo",
            "--api-key-env",
            "JUDGE_KEY",
            *llm_args(server, tmp_path),
        )
    assert result.exit_code == 5, result.output
    assert "Incorrect API key provided: ***" in result.output
    assert secret not in result.output
