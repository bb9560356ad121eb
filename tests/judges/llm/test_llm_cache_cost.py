"""Cache and resume (including a real SIGKILL), budget, and dry-run estimates."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

from ragmeter._exceptions import ConfigError
from ragmeter.clients import Price, forget_output_modes
from ragmeter.judges.base import Sample
from ragmeter.judges.llm import EmbeddingEndpoint, LLMJudgeConfig, build_llm_judge
from ragmeter.testing import FakeOpenAI, Smart


def sample(i: int) -> Sample:
    return Sample(
        case_id=f"c{i}",
        question=f"Where is warehouse {i} located?",
        ground_truth=f"Warehouse {i} is located in Leeds. It has {i + 3} loading docks.",
        contexts=[
            f"Warehouse {i} is located in Leeds.",
            "Bakeries open early.",
            f"The warehouse has {i + 3} loading docks.",
            "Rivers flow east.",
            "It rained.",
        ],
        answer=f"Warehouse {i} is located in Leeds. It has {i + 3} loading docks.",
    )


SAMPLES = [sample(i) for i in range(6)]


def config(server: FakeOpenAI, path, **kw) -> LLMJudgeConfig:
    return LLMJudgeConfig(
        model="judge-m",
        base_url=server.base_url,
        cache_path=path,
        backoff_base=0.01,
        embedding=EmbeddingEndpoint(model="emb", base_url=server.base_url, api_key_env=None),
        **kw,
    )


async def judge_all(cfg: LLMJudgeConfig, samples=SAMPLES):
    judge = build_llm_judge(cfg)
    results = await asyncio.gather(*(judge.judge(s) for s in samples))
    await judge.aclose()
    return [{m: r.model_dump() for m, r in case.items()} for case in results], judge


@pytest.fixture(autouse=True)
def _fresh_modes():
    forget_output_modes()


async def test_unchanged_rerun_makes_no_calls(tmp_path):
    with FakeOpenAI(Smart()) as server:
        first, judge1 = await judge_all(config(server, tmp_path / "c.sqlite"))
        calls = len(server.log)
        second, judge2 = await judge_all(config(server, tmp_path / "c.sqlite"))
        assert len(server.log) == calls
        no_cache, _ = await judge_all(config(server, tmp_path / "n.sqlite", use_cache=False))
        assert len(server.log) == 2 * calls
    assert not (tmp_path / "n.sqlite").exists()
    assert first == second == no_cache
    assert judge1.stats()["calls"] == 30 and judge1.stats()["cached_calls"] == 0
    assert judge2.stats()["calls"] == 0 and judge2.stats()["cached_calls"] == 30
    assert judge2.stats()["cached_prompt_tokens"] == judge1.stats()["prompt_tokens"]


async def test_resume_after_sigkill_makes_only_missing_calls(tmp_path):
    path = tmp_path / "c.sqlite"
    with FakeOpenAI(Smart(), latency=0.05) as server:
        clean, _ = await judge_all(config(server, tmp_path / "clean.sqlite"))
        total = len(server.chat_log())
        server.reset_log()
        cfg = config(server, path, concurrency=2)
        script = textwrap.dedent(f"""
            import asyncio, sys
            sys.path.insert(0, {os.path.dirname(__file__)!r})
            from test_llm_cache_cost import SAMPLES, judge_all
            from ragmeter.judges.llm import LLMJudgeConfig
            asyncio.run(judge_all(LLMJudgeConfig.model_validate_json({cfg.model_dump_json()!r})))
        """)
        proc = subprocess.Popen([sys.executable, "-c", script])
        deadline = time.monotonic() + 60
        while len([r for r in server.chat_log() if r.finished]) < 8:
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        with sqlite3.connect(path) as db:
            committed = db.execute("SELECT COUNT(*) FROM calls").fetchone()[0]
        assert 0 < committed < total
        server.reset_log()
        resumed, _ = await judge_all(cfg)
        assert len(server.chat_log()) == total - committed
    assert resumed == clean


async def test_max_cost_stops_cleanly(tmp_path):
    prices = {"judge-m": Price(prompt=1000.0, completion=1000.0)}  # $0.001 per token
    with FakeOpenAI(Smart()) as server:
        judge = build_llm_judge(config(server, tmp_path / "c.sqlite", prices=prices, max_cost=2.0))
        results = [await judge.judge(s) for s in SAMPLES]
        await judge.aclose()
        calls_made = len(server.chat_log())
    reasons = [r.unscored_reason for case in results for r in case.values() if not r.scored]
    assert reasons and set(reasons) == {"judge budget reached: --max-cost 2 would be exceeded"}
    assert all(not r.scored for r in results[-1].values())
    assert calls_made == judge.stats()["calls"] < 30
    assert 0 < judge.stats()["cost"] <= 2.0  # a hard ceiling: never above the budget


def test_max_cost_needs_a_price(tmp_path):
    with FakeOpenAI() as server, pytest.raises(ConfigError, match="price"):
        build_llm_judge(config(server, tmp_path / "c.sqlite", max_cost=1.0))


async def test_dry_run_estimate_counts_calls_and_prompt_tokens(tmp_path):
    out_of_scope = SAMPLES[0].model_copy(update={"case_id": "o", "category": "out_of_scope"})
    no_answer = SAMPLES[1].model_copy(update={"case_id": "e", "answer": ""})
    samples = [SAMPLES[2], out_of_scope, no_answer]
    with FakeOpenAI(Smart(), count_schema_tokens=True) as server:  # bills schemas as prompt
        judge = build_llm_judge(config(server, tmp_path / "c.sqlite"))
        estimate = judge.estimate(samples)
        assert server.log == []
        for s in samples:
            await judge.judge(s)
        await judge.aclose()
        actual = {}
        for r in server.chat_log():
            actual[r.schema_name] = actual.get(r.schema_name, 0) + r.prompt_tokens
    by = estimate.by_metric
    assert by["faithfulness"].calls == 4 and by["answer_relevancy"].calls == 2
    assert by["context_precision"].calls == 2 and by["context_recall"].calls == 2
    assert estimate.calls == 10 == judge.stats()["calls"] and estimate.cost is None
    assert by["context_precision"].prompt_tokens == actual["ContextPrecisionVerdicts"]
    assert by["context_recall"].prompt_tokens == actual["ContextRecallPoints"]
    assert by["answer_relevancy"].prompt_tokens == actual["AnswerRelevancy"]
    assert estimate.completion_tokens > 0


async def test_a_batch_dry_run_is_priced_at_batch_prices(tmp_path):
    prices = {"judge-m": Price(prompt=1000.0, completion=1000.0)}
    with FakeOpenAI(Smart()) as server:
        online = build_llm_judge(config(server, tmp_path / "a.sqlite", prices=prices))
        batch = build_llm_judge(config(server, tmp_path / "b.sqlite", prices=prices, batch=True))
        by_online, by_batch = online.estimate(SAMPLES), batch.estimate(SAMPLES)
        await online.aclose()
        await batch.aclose()
    assert by_online.calls == by_batch.calls and not by_online.batch and by_batch.batch
    assert by_online.cost is not None and by_online.cost > 0
    assert by_batch.cost == pytest.approx(by_online.cost / 2)  # OpenAI's Batch API: half
