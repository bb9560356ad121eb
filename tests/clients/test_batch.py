"""`ragmeter run --batch` end to end against the fake server's batch API."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragmeter.cli import app
from ragmeter.clients import forget_output_modes
from ragmeter.clients.batch import BatchStore
from ragmeter.clients.cost import CostTracker, PriceTable, Usage
from ragmeter.testing import BatchFault, FakeOpenAI, Fault, Smart

runner = CliRunner()
N_CASES = 8


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path, Path]:
    cases, answers, config = (tmp_path / n for n in ("cases.jsonl", "answers.jsonl", "r.toml"))
    rows = [
        (f"c{i}", f"How long are deleted notes of plan {i} kept?", f"Plan {i} keeps them {i} days.")
        for i in range(N_CASES)
    ]
    cases.write_text(
        "\n".join(json.dumps({"id": i, "question": q, "ground_truth": g}) for i, q, g in rows)
    )
    answers.write_text(
        "\n".join(
            json.dumps({"id": i, "contexts": [g, "Unrelated text."], "answer": g})
            for i, _q, g in rows
        )
    )
    config.write_text("[judge]\nbatch_poll_seconds = 0.05\n")
    return cases, answers, config


def _args(server: FakeOpenAI, files, out: Path, cache: Path, *extra: object) -> list[str]:
    cases, answers, config = files
    args = [
        "run",
        "--cases",
        cases,
        "--answers",
        answers,
        "--judge",
        "openai",
        "--model",
        "gpt-4o-mini",  # priced: the cost at batch prices is checked
        "--base-url",
        server.base_url,
        "--cache-dir",
        cache,
        "--config",
        config,
        "--no-progress",
        "--out",
        out,
        *extra,
    ]
    return [str(a) for a in args]


def _run(server: FakeOpenAI, files, tmp_path: Path, name: str, *extra: object):
    forget_output_modes()
    result = runner.invoke(app, _args(server, files, tmp_path / name, tmp_path / name, *extra))
    data = json.loads((tmp_path / name / "results.json").read_text())
    return result, data


def _scores(data: dict) -> dict[str, dict[str, float | None]]:
    return {c["id"]: {m: r["score"] for m, r in c["metrics"].items()} for c in data["cases"]}


def _reasons(data: dict) -> list[str]:
    return [
        r["unscored_reason"]
        for c in data["cases"]
        for r in c["metrics"].values()
        if r["unscored_reason"]
    ]


def test_batch_run_equals_the_online_run_in_two_files_at_half_price(files, tmp_path):
    with FakeOpenAI(Smart(), batch_delay=0.05) as server:
        online, online_data = _run(server, files, tmp_path, "online")
        assert online.exit_code == 0, online.output
        online_calls = len(server.online_log())
        server.reset_log()

        batch, batch_data = _run(server, files, tmp_path, "batch", "--batch")
        assert batch.exit_code == 0, batch.output
        assert server.online_log() == []  # every call went through a batch
        assert len(server.batch_log()) == online_calls
        # round 1: recall, precision, relevancy and the claims of every case; round 2: verdicts
        assert [b.lines for b in server.batches.batches.values()] == [4 * N_CASES, N_CASES]
        assert len(server.batches.uploads) == 2
        assert _scores(batch_data) == _scores(online_data)

        spent, stats = online_data["run"]["judge_stats"], batch_data["run"]["judge_stats"]
        assert stats["calls"] == stats["batch_calls"] == spent["calls"]
        assert stats["batch_files"] == 2 and stats["batch_resumed"] == 0
        assert stats["cost"] == pytest.approx(spent["cost"] / 2)
        assert stats["batch_saving"] == pytest.approx(spent["cost"] / 2)
        assert f"{stats['calls']} calls through the batch API at batch prices" in batch.output

        again = runner.invoke(
            app, _args(server, files, tmp_path / "again", tmp_path / "batch", "--batch")
        )
        assert again.exit_code == 0, again.output
        assert len(server.batches.uploads) == 2  # all cached: nothing submitted


def test_a_request_several_cases_make_alike_is_one_line_paid_once(files, tmp_path):
    """Two cases with the same answer and contexts verify the same claims: one line."""
    cases, answers, config = files
    same = "Plan 1 keeps them 1 days."
    cases.write_text(
        "\n".join(
            json.dumps({"id": i, "question": q, "ground_truth": same})
            for i, q in (("x", "How long are notes kept?"), ("y", "For how long are notes kept?"))
        )
    )
    answers.write_text(
        "\n".join(
            json.dumps({"id": i, "contexts": [same, "Unrelated text."], "answer": same})
            for i in ("x", "y")
        )
    )
    with FakeOpenAI(Smart(), batch_delay=0.05) as server:
        _, online = _run(server, (cases, answers, config), tmp_path, "online")
        result, batch = _run(server, (cases, answers, config), tmp_path, "batch", "--batch")
        lines = [b.lines for b in server.batches.batches.values()]
    assert result.exit_code == 0, result.output
    assert lines[-1] == 1  # the claim verdicts: one request for both cases
    stats, spent = batch["run"]["judge_stats"], online["run"]["judge_stats"]
    assert stats["calls"] == sum(lines)
    # Online, the second case's alike request is either sent beside the first (both paid) or
    # answered from the cache once the first is back: either way the same requests were made.
    assert stats["calls"] + stats["cached_calls"] == spent["calls"] + spent["cached_calls"]
    assert stats["calls"] < spent["calls"] + spent["cached_calls"]
    assert _scores(batch) == _scores(online)


def test_a_line_error_leaves_that_metric_unscored(files, tmp_path):
    fault = Fault("server_error", schema="FaithfulnessClaims", times=1)
    with FakeOpenAI(Smart(), faults=[fault], batch_delay=0.05) as server:
        result, data = _run(server, files, tmp_path, "run", "--batch")
    assert result.exit_code == 3, result.output  # faithfulness: 7 of 8 scored, under 90%
    reasons = _reasons(data)
    assert len(reasons) == 1 and "failed (HTTP 500)" in reasons[0]
    unscored = [c for c in data["cases"] if c["metrics"]["faithfulness"]["score"] is None]
    assert len(unscored) == 1
    others = _scores(data)[unscored[0]["id"]]
    assert all(score is not None for m, score in others.items() if m != "faithfulness")


def test_an_output_file_over_one_reply_bound_is_read_an_oversized_line_refused(files, tmp_path):
    """The output file holds many replies: 4 MB (one reply's bound) does not cap it, while a
    line over that bound is refused as an online reply would be."""
    fault = Fault("oversized", schema="AnswerRelevancy", size=4_500_000, times=1)
    with FakeOpenAI(Smart(), faults=[fault], batch_delay=0.05) as server:
        result, data = _run(server, files, tmp_path, "run", "--batch")
        output = server.batches.files[server.batches.batches["batch_fake_0"].output_file_id]
    assert len(output.data) > 4_000_000
    assert result.exit_code == 3, result.output  # answer relevancy: 7 of 8 scored
    [reason] = _reasons(data)
    assert "reply_too_large" in reason and "larger than 4,000,000 bytes" in reason


def test_an_expired_batch_leaves_the_unanswered_calls_unscored(files, tmp_path):
    with FakeOpenAI(
        Smart(), batch_delay=0.05, batch_faults=[BatchFault("expired", done_share=0.5)]
    ) as server:
        result, data = _run(server, files, tmp_path, "run", "--batch")
        first = next(iter(server.batches.batches.values()))
    assert result.exit_code == 3, result.output
    reasons = _reasons(data)
    # half the first round's lines were never answered: each is its metric's failure
    assert sum("batch_expired" in r for r in reasons) == first.lines // 2
    codes = {r["reason_code"] for c in data["cases"] for r in c["metrics"].values()}
    assert codes == {None, "judge_error"}
    assert all("judge batch batch_fake_0" in r for r in reasons)


def test_a_failed_batch_fails_its_calls_and_is_not_polled_again(files, tmp_path):
    with FakeOpenAI(Smart(), batch_delay=0.05, batch_faults=[BatchFault("failed")]) as server:
        result, data = _run(server, files, tmp_path, "run", "--batch")
        assert result.exit_code == 3, result.output
        assert all("the batch failed" in r for r in _reasons(data))
        store = BatchStore(tmp_path / "run" / "llm.sqlite")
        assert store.batches() == [("batch_fake_0", "failed")]  # ended: never polled again


def test_an_endpoint_without_a_batch_api_stops_the_run(files, tmp_path):
    with FakeOpenAI(Smart(), batch_api=False) as server:
        forget_output_modes()
        result = runner.invoke(
            app, _args(server, files, tmp_path / "run", tmp_path / "cache", "--batch")
        )
        assert server.chat_log() == []
    assert result.exit_code == 5, result.output
    assert "HTTP 404" in result.output and "batch API (/v1/files and /v1/batches)" in result.output
    assert not (tmp_path / "run" / "results.json").exists()


@pytest.mark.parametrize(
    ("judge", "why"), [("local", "makes no paid calls"), ("llama", "has no batch API")]
)
def test_batch_needs_the_openai_judge(files, tmp_path, judge, why):
    cases, answers, _ = files
    result = runner.invoke(
        app,
        [
            *("run", "--cases", str(cases), "--answers", str(answers), "--judge", judge),
            *("--batch", "--out", str(tmp_path / "out"), "--no-progress"),
        ],
    )
    assert result.exit_code == 2
    assert "--batch" in result.output and "--judge openai" in result.output and why in result.output
    assert not (tmp_path / "out" / "results.json").exists()


def test_cost_tracker_bills_batch_calls_at_batch_prices():
    tracker = CostTracker("gpt-4o-mini", PriceTable(), max_cost=1.0)
    tracker.record(Usage(1, 1_000_000, 0), cached=False)
    tracker.record(Usage(1, 1_000_000, 0), cached=False, batch=True)
    assert tracker.cost == pytest.approx(0.15 + 0.075)
    assert tracker.batch_saving == pytest.approx(0.075)
    online, batch = tracker.reserve(1000), tracker.reserve(1000, batch=True)
    assert batch.cost == pytest.approx(online.cost / 2)


def test_a_run_killed_while_polling_collects_its_batch_when_run_again(files, tmp_path):
    """SIGKILL mid-poll, then the same command: the submitted batch is polled, not resent."""
    with FakeOpenAI(Smart(), batch_delay=1.0) as server:
        args = _args(server, files, tmp_path / "run", tmp_path / "cache", "--batch")
        child = subprocess.Popen(
            [sys.executable, "-c", "from ragmeter.cli import app; app()", *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "NO_COLOR": "1"},
        )
        try:
            deadline = time.monotonic() + 30
            while not any(r.path.startswith("/v1/batches/") for r in server.log):
                assert time.monotonic() < deadline and child.poll() is None, "never polled"
                time.sleep(0.02)
        finally:
            os.kill(child.pid, signal.SIGKILL)
            child.wait()
        assert len(server.batches.batches) == 1 and not (tmp_path / "run" / "results.json").exists()
        first = next(iter(server.batches.batches.values()))
        assert first.status == "in_progress"

        server.batches.wait()  # it finished while no ragmeter was running
        forget_output_modes()
        again = runner.invoke(app, args)
        assert again.exit_code == 0, again.output
        stats = json.loads((tmp_path / "run" / "results.json").read_text())["run"]["judge_stats"]
        # the first round was collected, not resubmitted; only the verdicts were submitted
        assert len(server.batches.uploads) == 2
        assert [b.lines for b in server.batches.batches.values()] == [4 * N_CASES, N_CASES]
        assert stats["batch_resumed"] == 1 and stats["batch_files"] == 1
        assert stats["batch_calls"] == 5 * N_CASES
        assert server.online_log() == []

        online, online_data = _run(server, files, tmp_path, "online")
        assert online.exit_code == 0, online.output
        batch_data = json.loads((tmp_path / "run" / "results.json").read_text())
        assert _scores(batch_data) == _scores(online_data)
