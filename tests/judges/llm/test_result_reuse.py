"""Judged results kept in the call cache: an unchanged case is not judged again, anything that
could change its result is (a changed case, setting or code; a failure; an endpoint warning)."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from ragmeter.clients import forget_output_modes
from ragmeter.judges.base import Sample
from ragmeter.judges.llm import EmbeddingEndpoint, LLMJudgeConfig, build_llm_judge, reuse
from ragmeter.testing import FakeOpenAI, Fault, Smart


def sample(i: int, answer: str | None = None) -> Sample:
    return Sample(
        case_id=f"c{i}",
        question=f"Where is warehouse {i} located?",
        ground_truth=f"Warehouse {i} is located in Leeds. It has {i + 3} loading docks.",
        contexts=[f"Warehouse {i} is located in Leeds.", "Bakeries open early."],
        answer=answer or f"Warehouse {i} is located in Leeds. It has {i + 3} loading docks.",
    )


SAMPLES = [sample(i) for i in range(4)]


def config(server: FakeOpenAI, path: Path, **kw: object) -> LLMJudgeConfig:
    return LLMJudgeConfig(
        model="judge-m",
        base_url=server.base_url,
        cache_path=path,
        backoff_base=0.01,
        max_retries=0,
        embedding=EmbeddingEndpoint(model="emb", base_url=server.base_url, api_key_env=None),
        **kw,
    )


async def judge_all(cfg: LLMJudgeConfig, samples: list[Sample] = SAMPLES):
    judge = build_llm_judge(cfg)
    try:
        results = await asyncio.gather(*(judge.judge(s) for s in samples))
    finally:
        await judge.aclose()
    return [{m: r.model_dump() for m, r in case.items()} for case in results], judge.stats()


def kept(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute("SELECT COUNT(*) FROM results").fetchone()[0])


@pytest.fixture(autouse=True)
def _fresh_modes():
    forget_output_modes()


async def test_an_unchanged_rerun_reuses_every_result_and_reports_the_spend_of_a_replay(tmp_path):
    path = tmp_path / "c.sqlite"
    with FakeOpenAI(Smart()) as server:
        first, first_stats = await judge_all(config(server, path))
        calls = len(server.log)
        assert kept(path) == 16 and "reused_results" not in first_stats
        again, again_stats = await judge_all(config(server, path))
        with sqlite3.connect(path) as db:
            db.execute("DELETE FROM results")  # what a re-run did before results were kept
        replay, replay_stats = await judge_all(config(server, path))
        assert len(server.log) == calls
    assert again == replay == first
    assert again_stats["reused_results"] == 16 and "reused_results" not in replay_stats
    spend = ("calls", "cached_calls", "cached_prompt_tokens", "cached_completion_tokens")
    assert {k: again_stats[k] for k in spend} == {k: replay_stats[k] for k in spend}
    assert again_stats["calls"] == 0 and again_stats["cached_calls"] == first_stats["calls"]


async def test_a_changed_case_or_setting_is_judged_again(tmp_path):
    path = tmp_path / "c.sqlite"
    with FakeOpenAI(Smart()) as server:
        await judge_all(config(server, path))
        changed = [*SAMPLES[:3], sample(3, answer="Warehouse 3 is in York.")]
        _, stats = await judge_all(config(server, path), changed)
        assert stats["reused_results"] == 12  # the three unchanged cases
        assert stats["calls"] > 0  # the changed answer's prompts were never sent before
        _, stats = await judge_all(config(server, path, n_questions=2))
        assert "reused_results" not in stats  # a setting of the judge's fingerprint
        _, stats = await judge_all(config(server, path, use_cache=False))
        assert "reused_results" not in stats and stats["cached_calls"] == 0


async def test_a_change_of_ragmeters_code_judges_everything_again(tmp_path, monkeypatch):
    path = tmp_path / "c.sqlite"
    with FakeOpenAI(Smart()) as server:
        first, _ = await judge_all(config(server, path))
        monkeypatch.setattr(reuse, "code_digest", lambda: "another version of the code")
        again, stats = await judge_all(config(server, path))
    assert "reused_results" not in stats and stats["calls"] == 0  # replayed from the calls
    assert again == first


def test_the_code_digest_follows_the_source_files_and_prompts_only(tmp_path):
    package = tmp_path / "ragmeter"
    (package / "judges" / "llm" / "prompts" / "en").mkdir(parents=True)
    source = package / "judges" / "llm" / "faithfulness.py"
    prompt = package / "judges" / "llm" / "prompts" / "en" / "split.md"
    model = package / "embeddings" / "weights.bin"
    model.parent.mkdir()
    source.write_text("SCORE = 1\n")
    prompt.write_text("Split the answer into claims.\n")
    model.write_bytes(b"\0" * 64)
    digest = reuse.digest_of(package)
    model.write_bytes(b"\1" * 64)
    assert reuse.digest_of(package) == digest
    source.write_text("SCORE = 2\n")
    assert reuse.digest_of(package) != digest
    changed = reuse.digest_of(package)
    prompt.write_text("Split the answer into short claims.\n")
    assert reuse.digest_of(package) != changed


async def test_a_result_a_failure_left_unscored_is_judged_again(tmp_path):
    path = tmp_path / "c.sqlite"
    with FakeOpenAI(
        Smart(), faults=[Fault("server_error", schema="ContextRecallPoints")]
    ) as server:
        first, _ = await judge_all(config(server, path))
        assert all(case["context_recall"]["unscored_reason"] for case in first)
        assert kept(path) == 12  # the other three metrics of each case
        server.faults.clear()  # the endpoint recovered
        server.reset_log()
        again, stats = await judge_all(config(server, path))
        assert stats["reused_results"] == 12 and len(server.log) == 4  # one recall call a case
    assert all(case["context_recall"]["score"] is not None for case in again)
    assert [{m: r for m, r in c.items() if m != "context_recall"} for c in again] == [
        {m: r for m, r in c.items() if m != "context_recall"} for c in first
    ]


async def test_nothing_is_kept_once_the_endpoint_refused_log_probabilities(tmp_path):
    path = tmp_path / "c.sqlite"
    with FakeOpenAI(Smart(), logprobs="reject") as server:
        first, _ = await judge_all(config(server, path))
        assert kept(path) == 0  # a re-run must say again that verdicts are not graded
        again, stats = await judge_all(config(server, path))
    assert "reused_results" not in stats
    scores = [[r["score"] for r in case.values()] for case in first]
    assert [[r["score"] for r in case.values()] for case in again] == scores


async def test_a_result_reached_without_a_call_is_reused_whatever_the_output_mode(tmp_path):
    """An out-of-scope case's retrieval metrics need no call: judged before the endpoint's
    output mode was found out, they are still found once it is known."""
    path = tmp_path / "c.sqlite"
    out_of_scope = Sample(
        case_id="oos",
        question="What is the weather on Mars today?",
        category="out_of_scope",
        contexts=["Warehouse 1 is located in Leeds."],
        answer="I don't know; the documents do not say.",
    )
    with FakeOpenAI(Smart()) as server:
        first, _ = await judge_all(config(server, path), [out_of_scope])
        assert first[0]["context_recall"]["reason_code"] == "out_of_scope"
        again, stats = await judge_all(config(server, path), [out_of_scope])
    assert again == first and stats["reused_results"] == 4
