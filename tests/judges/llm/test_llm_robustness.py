"""Structured-output fallbacks, repair, verdict counts, retries and random faults."""

from __future__ import annotations

import pytest

from ragmeter.clients import forget_output_modes
from ragmeter.judges.base import Sample
from ragmeter.judges.llm import EmbeddingEndpoint, LLMJudgeConfig, build_llm_judge
from ragmeter.testing import FakeOpenAI, Fault, Scripted, Smart


def sample(i: int, lang: str = "en") -> Sample:
    if lang == "zh":
        return Sample(
            case_id=f"zh{i}",
            lang="zh",
            question=f"第{i}号仓库在哪个城市？",
            ground_truth=f"第{i}号仓库位于杭州。仓库有{i + 3}个装卸口。",
            contexts=[
                f"第{i}号仓库位于杭州西湖区。",
                "面包店早上七点开门。",
                f"该仓库共有{i + 3}个装卸口。",
                "河流向东流。",
                "天气晴朗。",
            ],
            answer=f"第{i}号仓库位于杭州。它有{i + 3}个装卸口。月亮是奶酪做的。",
        )
    return Sample(
        case_id=f"en{i}",
        question=f"Where is warehouse {i} located?",
        ground_truth=f"Warehouse {i} is located in Leeds. It has {i + 3} loading docks.",
        contexts=[
            f"Warehouse {i} is located in Leeds, near the station.",
            "Bakeries open early.",
            f"The warehouse has {i + 3} loading docks.",
            "Rivers flow east.",
            "It rained.",
        ],
        answer=f"Warehouse {i} is located in Leeds. It has {i + 3} loading docks. "
        "The manager is called Bob.",
    )


def make_judge(server: FakeOpenAI, tmp_path, name="c.sqlite", **kw):
    config = LLMJudgeConfig(
        model="judge-m",
        base_url=server.base_url,
        cache_path=tmp_path / name,
        embedding=EmbeddingEndpoint(model="emb", base_url=server.base_url, api_key_env=None),
        backoff_base=0.01,
        **{"graded": (), **kw},  # 0/1 scores: these tests count verdicts
    )
    return build_llm_judge(config)


@pytest.fixture(autouse=True)
def _fresh_modes():
    forget_output_modes()


def scores(results):
    return {m: r.score for m, r in results.items()}


async def test_json_schema_rejected_falls_back_once_and_is_remembered(tmp_path):
    with FakeOpenAI(Smart(), json_schema=False) as server:
        judge = make_judge(server, tmp_path)
        first = await judge.judge(sample(1), ("context_recall",))
        n_first = len(server.chat_log())
        second = await judge.judge(sample(2))
        await judge.aclose()
        log = server.chat_log()
        assert [r.fault for r in log[:n_first]] == ["rejected_format", None]
        assert all(r.fault is None and r.response_format == "json_object" for r in log[n_first:])
        # a new judge (new process) reads the mode from the cache database
        forget_output_modes()
        again = make_judge(server, tmp_path, use_cache=True)
        server.reset_log()
        await again.judge(sample(3), ("context_precision",))
        await again.aclose()
        assert [r.response_format for r in server.chat_log()] == ["json_object"]
    assert first["context_recall"].score == 1.0
    assert all(r.scored for r in second.values())


async def test_prompt_only_mode_when_no_response_format_is_supported(tmp_path):
    with FakeOpenAI(Smart(), json_schema=False, json_object=False) as server:
        judge = make_judge(server, tmp_path)
        results = await judge.judge(sample(1))
        await judge.aclose()
        formats = [r.response_format for r in server.chat_log() if r.fault is None]
    assert set(formats) == {None} and judge.stats()["output_mode"] == "prompt"
    with FakeOpenAI(Smart()) as clean_server:
        clean = await make_judge(clean_server, tmp_path, "clean.sqlite").judge(sample(1))
    assert scores(results) == scores(clean)


async def test_invalid_reply_is_repaired(tmp_path):
    smart = Smart()
    responder = Scripted({"ContextRecallPoints": ["I cannot do JSON, sorry", smart]})
    with FakeOpenAI(responder) as server:
        judge = make_judge(server, tmp_path)
        result = (await judge.judge(sample(1), ("context_recall",)))["context_recall"]
        await judge.aclose()
        log = server.chat_log()
    assert result.score == 1.0 and result.calls == 2
    assert [r.repair for r in log] == [False, True]
    assert "invalid JSON" in log[1].body["messages"][-1]["content"]


async def test_unrepairable_reply_is_unscored_with_raw_output_kept(tmp_path):
    responder = Scripted({"ContextPrecisionVerdicts": "{'chunks': nope"})
    with FakeOpenAI(responder) as server:
        judge = make_judge(server, tmp_path)
        result = (await judge.judge(sample(1), ("context_precision",)))["context_precision"]
        assert len(server.chat_log()) == 3  # first try, repair round, fresh retry
        raw = [judge.raw_output(i) for i in result.evidence.raw_output_ids]
        await judge.aclose()
    assert result.score is None and result.unscored_reason.startswith("invalid JSON from judge")
    assert len(raw) == 3 and raw[0] == "{'chunks': nope"


async def test_wrong_verdict_count_is_repaired_or_unscored(tmp_path):
    with FakeOpenAI(
        Smart(), faults=[Fault("wrong_count", schema="ContextPrecisionVerdicts", times=1)]
    ) as server:
        judge = make_judge(server, tmp_path)
        repaired = await judge.judge(sample(1), ("context_precision",))
        await judge.aclose()
    with FakeOpenAI(Smart(), faults=[Fault("wrong_count", schema="FaithfulnessVerdicts")]) as srv:
        judge = make_judge(srv, tmp_path, "other.sqlite")
        broken = await judge.judge(sample(1), ("faithfulness", "context_precision"))
        await judge.aclose()
    assert repaired["context_precision"].score == pytest.approx(5 / 6)
    assert repaired["context_precision"].calls == 2
    assert broken["faithfulness"].unscored_reason == "judge returned 2 verdicts for 3 claims"
    assert broken["context_precision"].score == pytest.approx(5 / 6)


async def test_rate_limit_honours_retry_after(tmp_path):
    with FakeOpenAI(Smart(), faults=[Fault("rate_limit", times=1, retry_after=0.4)]) as server:
        judge = make_judge(server, tmp_path, concurrency=4)
        result = await judge.judge(sample(1), ("context_recall",))
        await judge.aclose()
        limited, retried = server.chat_log()
    assert limited.status == 429 and retried.status == 200
    assert retried.started - limited.finished >= 0.4
    assert result["context_recall"].score == 1.0
    assert judge.stats()["rate_limited"] == 1 and judge.client.limiter.limit == 2


async def test_server_errors_and_timeouts_are_retried(tmp_path):
    faults = [
        Fault("server_error", times=2, schema="ContextRecallPoints"),
        Fault("slow", times=1, delay=1.0, schema="ContextPrecisionVerdicts"),
    ]
    with FakeOpenAI(Smart(), faults=faults) as server:
        judge = make_judge(server, tmp_path, timeout=0.3)
        results = await judge.judge(sample(1), ("context_recall", "context_precision"))
        await judge.aclose()
    assert results["context_recall"].score == 1.0
    assert results["context_precision"].score == pytest.approx(5 / 6)
    # judge_stats say why calls were retried, over every client
    stats = judge.stats()
    assert (stats["retries"], stats["server_errors"], stats["timeouts"]) == (3, 2, 1)
    assert stats["connection_errors"] == 0
    judge.embedder.retry_stats.retries += 1  # the embedding client's retries count too
    judge.embedder.retry_stats.connection_errors += 1
    assert (judge.stats()["retries"], judge.stats()["connection_errors"]) == (4, 1)


def test_judge_stats_count_the_batch_collectors_retries(tmp_path):
    with FakeOpenAI(Smart()) as server:
        judge = make_judge(server, tmp_path, batch=True)
        judge.client.batcher.retry_stats.retries += 2
        judge.client.batcher.retry_stats.timeouts += 2
        stats = judge.stats()
    assert (stats["retries"], stats["timeouts"]) == (2, 2)


async def test_persistent_server_error_leaves_the_metric_unscored(tmp_path):
    with FakeOpenAI(Smart(), faults=[Fault("server_error", schema="ContextRecallPoints")]) as srv:
        judge = make_judge(srv, tmp_path, max_retries=1)
        results = await judge.judge(sample(1), ("context_recall", "context_precision"))
        await judge.aclose()
    reason = results["context_recall"].unscored_reason
    assert "HTTP 500" in reason and "1 retries exhausted" in reason
    assert results["context_precision"].score == pytest.approx(5 / 6)


async def test_random_faults_end_scored_or_unscored_and_scores_match_clean_run(tmp_path):
    import asyncio

    samples = [sample(i, "zh" if i % 3 == 0 else "en") for i in range(12)]
    with FakeOpenAI(Smart()) as server:
        judge = make_judge(server, tmp_path, "clean.sqlite")
        clean = await asyncio.gather(*(judge.judge(s) for s in samples))
        await judge.aclose()
    faults = [
        Fault("rate_limit", rate=0.1, retry_after=0.05),
        Fault("server_error", rate=0.1),
        Fault("slow", rate=0.05, delay=0.6),
        Fault("malformed", rate=0.1),
        Fault("truncated", rate=0.1),
        Fault("wrong_count", rate=0.1),
    ]
    with FakeOpenAI(Smart(), faults=faults, seed=7) as server:
        judge = make_judge(server, tmp_path, "faulty.sqlite", timeout=0.3, max_retries=3)
        faulty = await asyncio.gather(*(judge.judge(s) for s in samples))
        await judge.aclose()
        assert sum(r.fault is not None for r in server.chat_log()) >= 10
    scored = 0
    for clean_case, faulty_case in zip(clean, faulty, strict=True):
        for metric, result in faulty_case.items():
            assert result.scored or result.unscored_reason
            if result.scored:
                scored += 1
                assert result.score == clean_case[metric].score
                assert result.evidence.claims == clean_case[metric].evidence.claims
    assert scored >= 40
