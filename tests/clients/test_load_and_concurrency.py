"""The fake server's benchmark features, and the judge keeping the endpoint busy."""

from __future__ import annotations

import asyncio
import json
import random

import httpx

from ragmeter import evaluate_async
from ragmeter.cases import Case
from ragmeter.clients import AdaptiveLimiter, forget_output_modes
from ragmeter.judges.llm import LLMJudgeConfig, build_llm_judge
from ragmeter.pipeline import PrecomputedPipeline
from ragmeter.testing import FakeOpenAI, FakeRequest, Smart, schema_valid
from ragmeter.testing.latency import concurrency_timeline, lognormal, parse_latency, uniform


def _post(server: FakeOpenAI, **body) -> httpx.Response:
    payload = {"model": "m", "messages": [{"role": "user", "content": "hi"}], **body}
    return httpx.post(f"{server.base_url}/chat/completions", json=payload, timeout=5)


def test_rate_limit_answers_429_past_n_requests_per_second():
    with FakeOpenAI(rate_limit=2) as server:
        statuses = [_post(server).status_code for _ in range(4)]
        assert statuses == [200, 200, 429, 429]
        assert server.summary()["rejected"] == 2


def test_latency_models_draw_in_their_range():
    rng = random.Random(1)
    assert all(0.1 <= uniform(0.1, 0.3)(rng) <= 0.3 for _ in range(100))
    draws = sorted(lognormal(0.2, 0.6)(rng) for _ in range(2000))
    assert 0.17 < draws[1000] < 0.23 and 0.5 < draws[1900] < 0.72
    assert parse_latency("0.05")(rng) == 0.05
    assert 0.1 <= parse_latency("uniform:0.1:0.2")(rng) <= 0.2


def test_schema_in_a_system_prompt_is_recognised_and_answered():
    schema = {
        "title": "Verdict",
        "type": "object",
        "required": ["reason", "verdict"],
        "properties": {"reason": {"type": "string"}, "verdict": {"type": "integer"}},
    }
    system = (
        "As a genius expert, provide the parsed objects in json that match the "
        f"following json_schema:\n\n{json.dumps(schema, indent=2)}\n\nMake sure ..."
    )
    request = FakeRequest.parse(
        {
            "model": "m",
            "response_format": {"type": "json_object"},
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": "rate it"},
            ],
        }
    )
    assert request.schema_name == "Verdict"
    assert json.loads(schema_valid(request)) == {"reason": "", "verdict": 0}


def test_schema_tokens_count_when_asked_and_summary_reports_load():
    rf = {
        "type": "json_schema",
        "json_schema": {
            "name": "X",
            "schema": {
                "type": "object",
                "properties": {"a_rather_long_property_name": {"type": "string"}},
            },
        },
    }
    counts = []
    for flag in (False, True):
        with FakeOpenAI(count_schema_tokens=flag) as server:
            assert _post(server, response_format=rf).status_code == 200
            summary = server.summary()
            counts.append(summary["prompt_tokens"])
            assert summary["chat_calls"] == 1 and summary["max_in_flight"] == 1
    assert counts[1] > counts[0]


def test_concurrency_timeline_counts_overlaps():
    class R:
        def __init__(self, started: float, finished: float) -> None:
            self.started, self.finished = started, finished

    log = [R(0.0, 1.0), R(0.05, 0.5), R(0.6, 1.0)]
    assert concurrency_timeline(log, step=0.25) == [1, 2, 1, 2, 0]  # type: ignore[arg-type]


async def test_limiter_serves_waiters_in_order_and_never_exceeds_its_limit():
    limiter = AdaptiveLimiter(2)
    order: list[int] = []
    peak = 0

    async def call(i: int) -> None:
        nonlocal peak
        await limiter.acquire()
        order.append(i)
        peak = max(peak, limiter.in_flight)
        await asyncio.sleep(0.01)
        limiter.release()

    await asyncio.gather(*(call(i) for i in range(6)))
    assert order == list(range(6)) and peak == 2 and limiter.in_flight == 0


def _cases(n: int) -> list[Case]:
    return [
        Case(
            id=f"c{i}",
            question=f"What does plan {i} cost?",
            lang="en",
            ground_truth=f"Plan {i} costs {i} dollars.",
            answer=f"Plan {i} costs {i} dollars.",
            contexts=[f"Plan {i} costs {i} dollars a month.", "Other text."],
        )
        for i in range(n)
    ]


async def test_judge_fills_its_call_limit_even_with_one_case_at_a_time(tmp_path):
    forget_output_modes()
    with FakeOpenAI(Smart(), latency=0.05) as server:
        judge = build_llm_judge(
            LLMJudgeConfig(
                model="m",
                base_url=server.base_url,
                api_key_env=None,
                concurrency=8,
                cache_path=tmp_path / "c.sqlite",
                embedding="local",
            )
        )
        run = await evaluate_async(_cases(6), PrecomputedPipeline(), judge, concurrency=1)
        await judge.aclose()
        # one case offers at most 4 calls at once: 8 in flight means cases overlap in judging
        assert server.max_in_flight == 8
    assert [c.id for c in run.cases] == [f"c{i}" for i in range(6)]
    assert all(r.scored for c in run.cases for r in c.metrics.values())


async def test_first_burst_is_not_serialized_while_the_output_mode_is_unknown(tmp_path):
    forget_output_modes()
    with FakeOpenAI(Smart(), latency=0.05) as server:
        judge = build_llm_judge(
            LLMJudgeConfig(
                model="m",
                base_url=server.base_url,
                api_key_env=None,
                concurrency=8,
                cache_path=tmp_path / "c.sqlite",
            )
        )
        await evaluate_async(_cases(1), PrecomputedPipeline(), judge, concurrency=1)
        await judge.aclose()
        first = [r.in_flight for r in server.chat_log()[:4]]
    assert max(first) == 4 and judge.stats()["output_mode"] == "json_schema"
