"""The declared Judge and Pipeline contracts (issue 14): every built-in judge and pipeline has
every member callers use; an old-style plugin judge (name, fingerprint, judge) and a bare
pipeline (name, run) are adapted where they come in and still run."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import ragmeter
from ragmeter import Case, evaluate_async
from ragmeter.config import JudgeSettings, Settings
from ragmeter.judges import registry
from ragmeter.judges.base import (
    METRICS,
    Judge,
    JudgeBase,
    JudgeFingerprint,
    MetricName,
    MetricResult,
    Sample,
    ensure_judge,
)
from ragmeter.judges.llama.judge import LlamaJudge
from ragmeter.judges.llm import LLMJudgeConfig, build_llm_judge
from ragmeter.judges.local import LocalJudge
from ragmeter.pipeline import (
    DEFAULT_TIMEOUT,
    AnswersFilePipeline,
    CallablePipeline,
    HttpPipeline,
    Pipeline,
    PipelineBase,
    PipelineOutput,
    PrecomputedPipeline,
    ensure_pipeline,
)

JUDGE_MEMBERS = ("name", "warning", "decision_thresholds", "fingerprint", "judge", "stats",
                 "estimate", "aclose")  # fmt: skip
PIPELINE_MEMBERS = ("name", "timeout", "run", "aclose")

CASES = [
    Case(id="a", question="How long are refunds?", ground_truth="14 days."),
    Case(id="b", question="When is the office open?", ground_truth="Weekdays 9 to 5."),
]


class OldStyleJudge:
    """A plugin judge written against the three-member protocol."""

    name = "old-style"

    def __init__(self) -> None:
        self.seen: list[str] = []

    def fingerprint(self) -> JudgeFingerprint:
        return JudgeFingerprint(kind="old-style", model="none", prompt_version="1")

    async def judge(
        self, sample: Sample, metrics: tuple[MetricName, ...] = METRICS
    ) -> dict[MetricName, MetricResult]:
        self.seen.append(sample.case_id)
        return {m: MetricResult(metric=m, score=0.75) for m in metrics}


class BarePipeline:
    """A pipeline with only `name` and `run`: no timeout, no aclose."""

    name = "bare"

    async def run(self, case: Case) -> PipelineOutput:
        return PipelineOutput(contexts=["Refunds take 14 days."], answer="14 days.")


def _llm_judge(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    return build_llm_judge(
        LLMJudgeConfig(model="m", base_url="http://127.0.0.1:9/v1", cache_path=tmp_path / "c")
    )


def _builtin_pipelines(tmp_path: Path) -> list[Any]:
    answers = tmp_path / "answers.jsonl"
    answers.write_text('{"id": "a", "contexts": ["c"], "answer": "x"}\n')
    return [
        CallablePipeline(lambda q, h: {"contexts": [], "answer": ""}, name="f"),
        HttpPipeline("http://127.0.0.1:9/rag"),
        AnswersFilePipeline(answers),
        PrecomputedPipeline(),
    ]


def test_every_builtin_judge_has_the_whole_contract(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    judges = [LocalJudge(embedder=None), _llm_judge(monkeypatch, tmp_path)]
    for judge in judges:
        assert isinstance(judge, JudgeBase)
        assert isinstance(judge, Judge)
        assert all(hasattr(judge, member) for member in JUDGE_MEMBERS)
        assert ensure_judge(judge) is judge  # nothing to adapt
    assert issubclass(LlamaJudge, JudgeBase)
    local, llm = judges
    assert local.warning is None and local.stats() == {}
    assert local.estimate([], METRICS) is None  # no paid calls
    assert local.decision_thresholds == {"faithfulness": 0.5}
    assert llm.estimate([], METRICS) is not None  # an Estimate, even of nothing
    assert llm.stats()["calls"] == 0
    asyncio.run(llm.aclose())
    asyncio.run(local.aclose())


def test_every_builtin_pipeline_has_the_whole_contract(tmp_path: Path) -> None:
    for pipeline in _builtin_pipelines(tmp_path):
        assert isinstance(pipeline, PipelineBase)
        assert isinstance(pipeline, Pipeline)
        assert all(hasattr(pipeline, member) for member in PIPELINE_MEMBERS)
        assert ensure_pipeline(pipeline) is pipeline
        asyncio.run(pipeline.aclose())
    assert PrecomputedPipeline().timeout == DEFAULT_TIMEOUT
    assert CallablePipeline(lambda q, h: None, timeout=None).timeout is None


def test_an_old_style_judge_and_a_bare_pipeline_are_adapted() -> None:
    old = OldStyleJudge()
    assert not isinstance(old, Judge)
    judge = ensure_judge(old)
    assert isinstance(judge, Judge) and judge.name == "old-style"
    assert (judge.warning, judge.stats(), judge.decision_thresholds) == (None, {}, {})
    assert judge.estimate([], METRICS) is None
    asyncio.run(judge.aclose())  # nothing to close, no error
    assert ensure_judge(judge) is judge

    bare = BarePipeline()
    assert not isinstance(bare, Pipeline)
    pipeline = ensure_pipeline(bare)
    assert isinstance(pipeline, Pipeline)
    assert (pipeline.name, pipeline.timeout) == ("bare", DEFAULT_TIMEOUT)
    asyncio.run(pipeline.aclose())


def test_an_adapted_judge_keeps_the_optional_members_it_has() -> None:
    closed: list[bool] = []

    class Partial(OldStyleJudge):
        warning = "first\nsecond"
        decision_thresholds = {"faithfulness": 0.7}  # noqa: RUF012

        def stats(self) -> dict[str, Any]:
            return {"calls": 3}

        async def aclose(self) -> None:
            closed.append(True)

    judge = ensure_judge(Partial())
    assert judge.warning == "first\nsecond"
    assert judge.decision_thresholds == {"faithfulness": 0.7}
    assert judge.stats() == {"calls": 3}
    asyncio.run(judge.aclose())
    assert closed == [True]
    run = asyncio.run(evaluate_async(CASES, BarePipeline(), Partial()))
    assert run.run.warnings[-2:] == ["first", "second"]
    assert run.run.judge_stats == {"calls": 3}


def test_old_style_judge_and_bare_pipeline_run_through_every_entry(tmp_path: Path) -> None:
    old = OldStyleJudge()
    run = asyncio.run(evaluate_async(CASES, BarePipeline(), old))
    assert run.judge.kind == "old-style" and old.seen == ["a", "b"]
    assert all(c.metrics[m].score == 0.75 for c in run.cases for m in METRICS)
    assert run.run.judge_stats == {} and run.run.warnings == []

    result = ragmeter.evaluate(
        [{"id": c.id, "question": c.question, "ground_truth": c.ground_truth} for c in CASES],
        BarePipeline(),
        judge=OldStyleJudge(),
    )
    assert result.run.pipeline == "bare"
    assert [c.answer for c in result.cases] == ["14 days.", "14 days."]

    from ragmeter.api import run_and_save

    saved = run_and_save(
        CASES, BarePipeline(), Settings(), out_dir=tmp_path / "out", judge=OldStyleJudge()
    )
    assert saved.run.pipeline == "bare"
    assert (tmp_path / "out" / "results.json").exists()


def test_a_plugin_factory_returning_an_old_style_judge_is_adapted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class EntryPoint:
        name = "old-style"

        def load(self) -> Any:
            return lambda settings: OldStyleJudge()

    monkeypatch.setattr(registry, "entry_points", lambda group: [EntryPoint()])
    judge = registry.create_judge(JudgeSettings.model_construct(kind="old-style"))
    assert isinstance(judge, Judge) and judge.name == "old-style"
    assert judge.stats() == {}


def test_estimating_with_a_judge_that_pays_nothing_runs_no_pipeline() -> None:
    from ragmeter.api import estimate_run

    calls: list[str] = []

    def rag(question: str, history: list[dict[str, str]]) -> dict[str, Any]:
        calls.append(question)
        return {"contexts": [], "answer": ""}

    assert estimate_run(CASES, CallablePipeline(rag), Settings()) is None
    assert calls == []
