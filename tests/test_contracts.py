"""The judge and pipeline contracts (issues 14 and 33): per contract one protocol (what a
judge or pipeline must have: `name`, `fingerprint` and `judge`; `name` and `run`) and one base
class (the rest, with defaults). Every built-in judge and pipeline subclasses its base; one that
only satisfies the protocol is adapted once, at the door (`ragmeter.api`), runs through every
entry (Python, a plugin's entry point, the command line), and behind the door the runner gets
base-class objects only."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import ragmeter
from ragmeter import Case, api, evaluate_async
from ragmeter.api import as_judge, as_pipeline
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
)

JUDGE_MEMBERS = ("name", "warning", "decision_thresholds", "fingerprint", "judge", "stats",
                 "estimate", "aclose")  # fmt: skip
PIPELINE_MEMBERS = ("name", "timeout", "run", "aclose")

CASES = [
    Case(id="a", question="How long are refunds?", ground_truth="14 days."),
    Case(id="b", question="When is the office open?", ground_truth="Weekdays 9 to 5."),
]


class OldStyleJudge:
    """A plugin judge written against the protocol alone: `name`, `fingerprint`, `judge`."""

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
        assert as_judge(judge) is judge  # nothing to adapt
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
        assert as_pipeline(pipeline) is pipeline
        asyncio.run(pipeline.aclose())
    assert PrecomputedPipeline().timeout == DEFAULT_TIMEOUT
    assert CallablePipeline(lambda q, h: None, timeout=None).timeout is None


def test_the_protocols_are_what_a_plugin_writes_and_the_door_adapts_them_once() -> None:
    old = OldStyleJudge()
    assert isinstance(old, Judge) and not isinstance(old, JudgeBase)
    judge = as_judge(old)
    assert isinstance(judge, JudgeBase) and judge.name == "old-style"
    assert (judge.warning, judge.stats(), judge.decision_thresholds) == (None, {}, {})
    assert judge.estimate([], METRICS) is None and judge.in_rounds is False
    assert judge.fingerprint() == old.fingerprint()  # the same identity, so the same results
    asyncio.run(judge.aclose())  # nothing to close, no error
    assert as_judge(judge) is judge  # adapted once: never wrapped again

    bare = BarePipeline()
    assert isinstance(bare, Pipeline) and not isinstance(bare, PipelineBase)
    pipeline = as_pipeline(bare)
    assert isinstance(pipeline, PipelineBase)
    assert (pipeline.name, pipeline.timeout) == ("bare", DEFAULT_TIMEOUT)
    asyncio.run(pipeline.aclose())
    assert as_pipeline(pipeline) is pipeline


def test_an_adapted_judge_keeps_the_optional_members_it_has() -> None:
    closed: list[bool] = []

    class Partial(OldStyleJudge):
        warning = "first\nsecond"
        decision_thresholds = {"faithfulness": 0.7}  # noqa: RUF012

        def stats(self) -> dict[str, Any]:
            return {"calls": 3}

        @property
        def in_rounds(self) -> bool:
            return True

        async def aclose(self) -> None:
            closed.append(True)

    judge = as_judge(Partial())
    assert judge.in_rounds is True
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


class EntryPoint:
    """A `ragmeter.judges` entry point whose factory returns a protocol-only judge."""

    name = "old-style"

    def load(self) -> Any:
        return lambda settings: OldStyleJudge()


def test_a_plugin_factory_returning_a_protocol_only_judge_is_adapted_at_the_door(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(registry, "entry_points", lambda group: [EntryPoint()])
    plain = registry.create_judge(JudgeSettings.model_construct(kind="old-style"))
    assert isinstance(plain, OldStyleJudge)  # the registry hands it over as it is
    judge = api.build_judge(JudgeSettings.model_construct(kind="old-style"))
    assert isinstance(judge, JudgeBase) and judge.name == "old-style"
    assert judge.stats() == {}
    assert isinstance(ragmeter.judge("old-style"), JudgeBase)
    rows = [{"id": c.id, "question": c.question, "ground_truth": c.ground_truth} for c in CASES]
    run = ragmeter.evaluate(rows, BarePipeline(), judge="old-style")
    assert run.judge == OldStyleJudge().fingerprint()
    assert all(c.metrics[m].score == 0.75 for c in run.cases for m in METRICS)


class FullDuckJudge(OldStyleJudge):
    """Every member the base class has, without subclassing it."""

    warning = None
    decision_thresholds: dict[MetricName, float] = {}  # noqa: RUF012
    in_rounds = False

    def stats(self) -> dict[str, Any]:
        return {}

    def estimate(self, samples: Any, metrics: Any = METRICS) -> Any:
        return None

    async def aclose(self) -> None:
        pass


def test_behind_the_door_the_runner_gets_base_class_objects_adapted_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    received: list[tuple[Any, Any]] = []
    runner = api.judge_cases

    async def spy(cases: Any, pipeline: Any, judge: Any, **options: Any) -> Any:
        received.append((pipeline, judge))
        return await runner(cases, pipeline, judge, **options)

    monkeypatch.setattr(api, "judge_cases", spy)
    rows = [{"id": c.id, "question": c.question, "ground_truth": c.ground_truth} for c in CASES]
    judges = [OldStyleJudge(), FullDuckJudge(), OldStyleJudge(), FullDuckJudge()]
    pipelines = [BarePipeline() for _ in judges]
    ragmeter.evaluate(rows, pipelines[0], judge=judges[0])
    asyncio.run(evaluate_async(CASES, pipelines[1], judges[1]))
    out = tmp_path / "out"
    api.run_and_save(CASES, pipelines[2], Settings(), out_dir=out, judge=judges[2])
    api.run_and_save(CASES, pipelines[3], Settings(), out_dir=out, judge=judges[3], overwrite=True)
    assert len(received) == 4
    for (pipeline, judge), given_pipeline, given_judge in zip(
        received, pipelines, judges, strict=True
    ):
        assert isinstance(pipeline, PipelineBase) and isinstance(judge, JudgeBase)
        assert pipeline.inner is given_pipeline and judge.inner is given_judge  # wrapped once


def test_estimating_with_a_judge_that_pays_nothing_runs_no_pipeline() -> None:
    from ragmeter.api import estimate_run

    calls: list[str] = []

    def rag(question: str, history: list[dict[str, str]]) -> dict[str, Any]:
        calls.append(question)
        return {"contexts": [], "answer": ""}

    assert estimate_run(CASES, CallablePipeline(rag), Settings()) is None
    assert calls == []


PLUGIN_MODULE = """
from ragmeter import PipelineOutput


class BarePipeline:
    name = "bare"

    async def run(self, case):
        return PipelineOutput(contexts=["Refunds take 14 days."], answer="14 days.")


rag = BarePipeline()
"""


def test_the_command_line_runs_a_protocol_only_plugin_judge_and_pipeline(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import json

    from typer.testing import CliRunner

    from ragmeter.cli import app

    (tmp_path / "bare_rag_plugin.py").write_text(PLUGIN_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(__import__("sys").modules, "bare_rag_plugin", raising=False)
    monkeypatch.setattr(registry, "entry_points", lambda group: [EntryPoint()])
    cases = tmp_path / "cases.jsonl"
    cases.write_text("".join(json.dumps(c.model_dump(exclude_none=True)) + "\n" for c in CASES))
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        ["run", "--cases", str(cases), "--pipeline", "bare_rag_plugin:rag",
         "--judge", "old-style", "--out", str(out), "--no-progress"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads((out / "results.json").read_text())
    assert data["run"]["pipeline"] == "bare"
    assert data["judge"]["kind"] == "old-style"
    assert [c["answer"] for c in data["cases"]] == ["14 days.", "14 days."]
    assert {c["metrics"]["faithfulness"]["score"] for c in data["cases"]} == {0.75}


def test_the_plugins_page_example_runs_as_written() -> None:
    import re

    page = Path(__file__).resolve().parents[1] / "docs" / "plugins.md"
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
    assert blocks, "docs/plugins.md has no Python example"
    for block in blocks:
        exec(compile(block, str(page), "exec"), {})
