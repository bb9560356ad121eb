"""The runner with small pipelines and judges on the base classes (the runner takes them as
the door, `ragmeter.api`, hands them over: adapted once, never again here)."""

import asyncio

import pytest

from ragmeter._exceptions import PipelineError
from ragmeter.cases import Case
from ragmeter.judges.base import METRICS, JudgeBase, JudgeFingerprint, MetricResult, Sample
from ragmeter.judges.rules import precheck
from ragmeter.pipeline import CallablePipeline, PipelineBase, PipelineOutput
from ragmeter.run._runner import TRACEBACK_NOTE, evaluate, judge_cases


class EchoPipeline(PipelineBase):
    name = "echo"

    async def run(self, case: Case) -> PipelineOutput:
        if case.id == "broken":
            raise PipelineError("index offline")
        await asyncio.sleep(0.01 if case.id == "slow" else 0)
        return PipelineOutput(contexts=[f"ctx {case.id}"], answer=f"answer {case.id}")


class CountingJudge(JudgeBase):
    """Scores 1.0 when the answer mentions the case id; raises for one case."""

    name = "counting"

    def __init__(self):
        self.samples: list[Sample] = []

    def fingerprint(self) -> JudgeFingerprint:
        return JudgeFingerprint(kind="counting", model="none", prompt_version="1")

    async def judge(self, sample, metrics=METRICS):
        self.samples.append(sample)
        if sample.case_id == "judge-bug":
            raise RuntimeError("boom")
        if sample.case_id == "partial":
            return {"faithfulness": MetricResult(metric="faithfulness", score=1.0)}
        score = 1.0 if sample.case_id in sample.answer else 0.0
        if sample.repeat:
            score = 0.5
        return {m: MetricResult(metric=m, score=score) for m in metrics}


def _cases(*ids):
    return [Case(id=i, question=f"question {i}?", ground_truth="gt") for i in ids]


def test_every_case_is_kept_in_order_with_reasons():
    judge = CountingJudge()
    run = evaluate(_cases("slow", "broken", "judge-bug", "partial", "ok"), EchoPipeline(), judge)
    assert [c.id for c in run.cases] == ["slow", "broken", "judge-bug", "partial", "ok"]
    by_id = {c.id: c for c in run.cases}
    assert by_id["broken"].pipeline_error == "index offline"
    assert (
        by_id["broken"].metrics["faithfulness"].unscored_reason == "pipeline error: index offline"
    )
    assert (
        by_id["judge-bug"]
        .metrics["context_recall"]
        .unscored_reason.startswith("judge error: RuntimeError: boom")
    )
    assert by_id["partial"].metrics["context_recall"].unscored_reason == "judge returned no result"
    assert by_id["ok"].metrics["faithfulness"].score == 1.0
    assert run.summary.n_pipeline_errors == 1
    assert run.summary.metrics["faithfulness"].n_scored == 3
    assert run.summary.metrics["faithfulness"].n_unscored == 2
    assert "broken" not in {s.case_id for s in judge.samples}


def test_language_is_detected_per_case_unless_given():
    cases = [Case(id="zh", question="如何重置密码？"), Case(id="en", question="How do I reset?")]
    run = evaluate(cases, EchoPipeline(), CountingJudge())
    assert [c.lang for c in run.cases] == ["zh", "en"]
    forced = evaluate(cases, EchoPipeline(), CountingJudge(), lang="en")
    assert [c.lang for c in forced.cases] == ["en", "en"]


def test_repeats_keep_every_judgement():
    run = evaluate(_cases("ok"), EchoPipeline(), CountingJudge(), repeats=3)
    assert run.cases[0].repeats["faithfulness"] == [1.0, 0.5, 0.5]
    assert run.cases[0].metrics["faithfulness"].score == 1.0


class EmptyAnswerPipeline(PipelineBase):
    name = "empty"

    async def run(self, case: Case) -> PipelineOutput:
        return PipelineOutput(contexts=["Refunds take 14 days."], answer="  " if case.id else "")


def test_a_blank_answer_scores_zero_under_every_judge_without_asking_it(tmp_path):
    from ragmeter.judges.llm import LLMJudgeConfig, build_llm_judge
    from ragmeter.judges.local import LocalJudge
    from ragmeter.testing import FakeOpenAI, Smart

    with FakeOpenAI(Smart()) as server:
        llm = build_llm_judge(
            LLMJudgeConfig(model="m", base_url=server.base_url, cache_path=tmp_path / "c.db")
        )
        judges = [CountingJudge(), LocalJudge(), llm]
        runs = [evaluate(_cases("a", "b"), EmptyAnswerPipeline(), j, repeats=2) for j in judges]
        asked = {r.schema_name for r in server.chat_log()}
    for result in runs:
        for case in result.cases:
            for metric in ("faithfulness", "answer_relevancy"):
                verdict = case.metrics[metric]
                assert verdict.score == 0.0 and "empty answer" in verdict.evidence.notes[0]
                assert verdict == precheck(judges[0].samples[0], metric)  # the judges' rule
                assert case.repeats[metric] == [0.0, 0.0]
            assert case.metrics["context_recall"].score is not None  # retrieval still judged
    assert judges[0].samples and all(s.answer.strip() == "" for s in judges[0].samples)
    assert asked and not asked & {"FaithfulnessClaims", "AnswerRelevancy"}  # never asked


def test_a_case_over_the_size_limit_is_unscored_with_the_reason(monkeypatch):
    import pytest

    from ragmeter._exceptions import ConfigError

    monkeypatch.setenv("RAGMETER_MAX_TEXT_CHARS", "12")
    judge = CountingJudge()
    result = evaluate(_cases("a", "long-case-id"), EchoPipeline(), judge)
    ok, long = result.cases
    assert all(r.scored for r in ok.metrics.values())
    reasons = {r.unscored_reason for r in long.metrics.values()}
    assert reasons == {
        "too long to judge: question is 22 characters, answer is 19 characters, contexts are "
        "16 characters, above the 12-character limit (set RAGMETER_MAX_TEXT_CHARS to raise it)"
    }
    assert [s.case_id for s in judge.samples] == ["a"]  # the judge never saw it
    monkeypatch.setenv("RAGMETER_MAX_TEXT_CHARS", "lots")
    with pytest.raises(ConfigError, match="RAGMETER_MAX_TEXT_CHARS must be a whole number"):
        evaluate(_cases("a"), EchoPipeline(), CountingJudge())


class NamingPipeline(PipelineBase):
    """Fails as pipelines do, naming the case in its messages."""

    name = "naming"

    async def run(self, case: Case) -> PipelineOutput:
        from ragmeter.pipeline import PipelineTimeout

        if case.id.startswith("missing"):
            raise PipelineError(
                f"no answer for case '{case.id}' in a.jsonl; add a record with id '{case.id}'"
            )
        if case.id == "hung":
            raise PipelineTimeout(5)
        return PipelineOutput(contexts=["ctx"], answer=f"answer {case.id}")


class NamingJudge(CountingJudge):
    """Unscored for its own reasons, some naming the case; raises TimeoutError for one."""

    async def judge(self, sample, metrics=METRICS):
        if sample.case_id == "judge-slow":
            raise TimeoutError("deadline passed")
        reasons = {
            "faithfulness": f"judge returned 2 verdicts for 3 claims of case '{sample.case_id}'",
            "answer_relevancy": "judge budget reached: --max-cost 1 would be exceeded",
            "context_recall": f'plugin cannot read "{sample.case_id}"',
        }
        out = {m: MetricResult.unscored(m, r) for m, r in reasons.items() if m in metrics}
        if "context_precision" in metrics:
            out["context_precision"] = MetricResult(metric="context_precision", score=1.0)
        return out


def test_unscored_results_carry_a_code_and_a_reason_without_the_case_id():
    ids = ("missing-1", "missing-2", "hung", "judge-slow", "ok-1", "ok-2")
    run = evaluate(_cases(*ids), NamingPipeline(), NamingJudge())
    codes = {}
    for case in run.cases:
        for metric, result in case.metrics.items():
            if result.score is None:
                assert case.id not in result.unscored_reason, result.unscored_reason
                codes.setdefault(case.id, {})[metric] = result.reason_code
    assert set(codes["missing-1"].values()) == {"pipeline_error"}
    assert set(codes["hung"].values()) == {"pipeline_timeout"}
    assert set(codes["judge-slow"].values()) == {"judge_timeout"}
    assert codes["ok-1"] == {
        "faithfulness": "invalid_reply",
        "answer_relevancy": "budget",
        "context_recall": "other",
    }
    # The case's own fields keep naming it; the reasons read the same across cases.
    by_id = {c.id: c for c in run.cases}
    assert "'missing-1'" in by_id["missing-1"].pipeline_error
    assert by_id["missing-1"].metrics["faithfulness"].unscored_reason == (
        "pipeline error: no answer for case '…' in a.jsonl; add a record with id '…'"
    )
    assert by_id["ok-2"].metrics["context_recall"].unscored_reason == 'plugin cannot read "…"'
    groups = {(g.code, g.cause): g for g in run.summary.unscored_groups}
    missing = groups[
        (
            "pipeline_error",
            "pipeline error: no answer for case '…' in a.jsonl; add a record with id '…'",
        )
    ]
    assert (missing.n_cases, missing.example_ids) == (2, ["missing-1", "missing-2"])
    assert run.health is not None and run.health.n_budget_unjudged == 2


class LeakyPipeline(PipelineBase):
    """Fails the way a misconfigured RAG service does: its error echoes the credentials."""

    name = "leaky"

    async def run(self, case: Case) -> PipelineOutput:
        if case.id == "typed":
            raise PipelineError(
                "401 from https://bot:hunter22@rag.example/v1: key sk-live1234567890abcd"
            )
        raise ValueError("bad key sk-proj-ABCDEFGH12345678 for user")


class LeakyJudge(CountingJudge):
    async def judge(self, sample, metrics=METRICS):
        raise RuntimeError("judge key sk-abcdefgh12345678 rejected")


def test_keys_and_url_passwords_in_pipeline_and_judge_errors_are_never_stored():
    run = evaluate(_cases("typed", "untyped"), LeakyPipeline(), CountingJudge())
    stored = run.model_dump_json()
    for secret in ("hunter22", "sk-live1234567890abcd", "sk-proj-ABCDEFGH12345678"):
        assert secret not in stored
    by_id = {c.id: c for c in run.cases}
    assert by_id["typed"].pipeline_error == "401 from https://***@rag.example/v1: key ***"
    assert by_id["untyped"].pipeline_error == "ValueError: bad key *** for user"
    judged = evaluate(_cases("a"), EchoPipeline(), LeakyJudge())
    reason = judged.cases[0].metrics["faithfulness"].unscored_reason
    assert reason == "judge error: RuntimeError: judge key *** rejected"


class GaugeJudge(JudgeBase):
    """Counts the cases being judged at once; each judgement waits a little."""

    name = "gauge"

    def __init__(self):
        self.now = self.most = 0

    def fingerprint(self) -> JudgeFingerprint:
        return JudgeFingerprint(kind="gauge", model="none", prompt_version="1")

    async def judge(self, sample, metrics=METRICS):
        self.now += 1
        self.most = max(self.most, self.now)
        await asyncio.sleep(0.1)  # far longer than the pipeline takes for every case
        self.now -= 1
        return {m: MetricResult(metric=m, score=1.0) for m in metrics}


def test_cases_are_judged_a_window_at_a_time_and_all_at_once_for_a_batch_judge():
    cases = _cases(*(f"c{i}" for i in range(60)))
    judge = GaugeJudge()
    run = evaluate(cases, EchoPipeline(), judge, concurrency=2)
    assert judge.most == 16  # JUDGE_WINDOW x 2 = 8, raised to the floor of 16
    assert [c.id for c in run.cases] == [c.id for c in cases]
    judge = GaugeJudge()
    run = evaluate(cases, EchoPipeline(), judge, concurrency=2, window=len(cases))
    assert judge.most == 60 and run.summary.n_cases == 60


def _lookup(index: dict[str, str], key: str) -> str:
    return index[key]


def _retrieve(question: str) -> list[str]:
    return [_lookup({}, "doc-7")]


def traced_rag(question: str, history: list[dict[str, str]]) -> dict[str, object]:
    if "bad" in question:
        return {"contexts": "not a list", "answer": "x"}
    if "fails" in question:
        _retrieve(question)
    return {"contexts": ["ctx"], "answer": "answer"}


class TracedPipeline(PipelineBase):
    name = "traced"

    async def run(self, case: Case) -> PipelineOutput:
        return PipelineOutput(contexts=_retrieve(case.question), answer="never")


def test_the_last_frames_of_a_pipelines_traceback_are_kept_as_evidence():
    cases = [Case(id=i, question=f"{i} question?") for i in ("fails", "bad", "ok")]
    run = evaluate(cases, CallablePipeline(traced_rag, name="rag"), CountingJudge())
    by_id = {c.id: c for c in run.cases}
    failed = by_id["fails"]
    assert failed.pipeline_error == "pipeline rag raised KeyError: 'doc-7'"  # no frames here
    for result in failed.metrics.values():
        assert result.unscored_reason == "pipeline error: pipeline rag raised KeyError: 'doc-7'"
        (note,) = result.evidence.notes
        lines = note.splitlines()
        assert lines[0] == TRACEBACK_NOTE
        # Innermost last, as Python prints them; ragmeter's own frames (the thread the
        # callable ran in) are left out.
        functions = [line.rsplit(" in ", 1)[1] for line in lines if line.startswith("  File ")]
        assert functions == ["traced_rag", "_retrieve", "_lookup"]
        assert all(__file__ in line for line in lines if line.startswith("  File "))
        assert lines[-1] == "KeyError: 'doc-7'"
    # The summary still counts the one-line reason, frames apart.
    reasons = run.summary.metrics["faithfulness"].unscored_reasons
    assert reasons["pipeline error: pipeline rag raised KeyError: 'doc-7'"] == 1
    # An output of the wrong shape is ragmeter's finding, not a raise: no traceback.
    assert all(not r.evidence.notes for r in by_id["bad"].metrics.values())
    assert by_id["ok"].pipeline_error is None and by_id["ok"].metrics["faithfulness"].score == 0

    # A pipeline object's own raise keeps its frames too.
    traced = evaluate(_cases("x"), TracedPipeline(), CountingJudge()).cases[0]
    assert traced.pipeline_error == "KeyError: 'doc-7'"
    note = traced.metrics["faithfulness"].evidence.notes[0]
    assert [line.rsplit(" in ", 1)[1] for line in note.splitlines() if "File " in line] == [
        "run",
        "_retrieve",
        "_lookup",
    ]


async def interrupted_rag(question: str, history: list[dict[str, str]]) -> dict[str, object]:
    raise KeyboardInterrupt  # what Python raises in the main thread on Ctrl-C


def test_ctrl_c_still_stops_a_run_whose_caller_runs_the_loop_in_the_main_thread():
    pipeline = CallablePipeline(interrupted_rag, name="rag")
    # On ragmeter's own loop (its own thread) no Ctrl-C can land in the pipeline: the raise is
    # the pipeline's, and costs its case only.
    run = evaluate(_cases("a", "b"), pipeline, CountingJudge())
    assert [c.pipeline_error for c in run.cases] == ["pipeline rag raised KeyboardInterrupt"] * 2
    # A caller's loop in the main thread is where Ctrl-C lands: it stops the run.
    with pytest.raises(KeyboardInterrupt):
        asyncio.run(judge_cases(_cases("a", "b"), pipeline, CountingJudge()))


async def cancelling_rag(question: str, history: list[dict[str, str]]) -> dict[str, object]:
    if "inner" in question:
        inner = asyncio.ensure_future(asyncio.sleep(60))
        inner.cancel()
        await inner  # the user's own cancelled task: its CancelledError comes out of the pipeline
    return {"contexts": ["ctx"], "answer": "answer"}


def sync_cancelling_rag(question: str, history: list[dict[str, str]]) -> dict[str, object]:
    if "inner" in question:
        raise asyncio.CancelledError
    return {"contexts": ["ctx"], "answer": "answer"}


class CancellingJudge(CountingJudge):
    async def judge(self, sample, metrics=METRICS):
        if sample.case_id == "judged":
            raise asyncio.CancelledError
        return await super().judge(sample, metrics)


def test_a_cancelled_error_the_users_code_lets_out_is_its_case_error_not_a_lost_case():
    ids = ("a", "inner", "judged", "b")
    for fn in (cancelling_rag, sync_cancelling_rag):
        run = evaluate(_cases(*ids), CallablePipeline(fn, name="rag"), CancellingJudge())
        assert [c.id for c in run.cases] == list(ids)  # before: 'inner' vanished from the run
        by_id = {c.id: c for c in run.cases}
        assert by_id["inner"].pipeline_error == "pipeline rag raised CancelledError"
        reason = by_id["judged"].metrics["faithfulness"].unscored_reason
        assert reason == "judge error: CancelledError"
        assert by_id["a"].pipeline_error is None and by_id["b"].pipeline_error is None


class ModelJudge(CountingJudge):
    """A judge whose fingerprint names `model`, as an LLM judge's does."""

    def __init__(self, model: str):
        super().__init__()
        self.model = model

    def fingerprint(self) -> JudgeFingerprint:
        return JudgeFingerprint(kind="openai", model=self.model, prompt_version="1")


def _answer_with(metadata):
    def answer(question, history):
        return {"contexts": ["ctx"], "answer": "answer", "metadata": metadata}

    return CallablePipeline(answer)


def test_what_a_pipeline_returns_beside_its_answer_is_kept_with_the_case():
    cases = [Case(id="a", question="q?", metadata={"source": "sheet"})]
    run = evaluate(cases, _answer_with({"scores": [0.9], "node_ids": ["n1"]}), CountingJudge())
    assert run.cases[0].metadata == {
        "source": "sheet",
        "pipeline": {"scores": [0.9], "node_ids": ["n1"]},
    }
    plain = evaluate(cases, _answer_with({}), CountingJudge())
    assert plain.cases[0].metadata == {"source": "sheet"}


@pytest.mark.parametrize(
    ("judge_model", "generator", "warned"),
    [
        ("gpt-4o", "gpt-4o-mini-2024-07-18", True),
        ("qwen2.5:14b", "Qwen/Qwen2.5-7B-Instruct", True),
        ("gpt-4o", "qwen2.5:7b", False),
    ],
)
def test_a_generator_the_pipeline_names_warns_a_judge_of_its_family(judge_model, generator, warned):
    pipeline = _answer_with({"generator_model": generator})
    run = evaluate(_cases("a", "b"), pipeline, ModelJudge(judge_model))
    warnings = [w for w in run.run.warnings if "same family" in w]
    assert len(warnings) == (1 if warned else 0)
    if warned:
        assert generator in warnings[0] and "'generator_model'" in warnings[0]
