"""Run a pipeline and a judge over every case: concurrency, progress, no case dropped."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from .._exceptions import ConfigError, JudgeUnavailable, PipelineError
from .._util.model_family import same_family
from .._util.redact import redact
from .._util.sync import run_sync
from .._version import __version__
from ..cases import Case, case_lang
from ..cases.digest import case_digest, combine
from ..judges.base import JudgeBase
from ..judges.rules import empty_answer_result
from ..pipeline import (
    PipelineBase,
    PipelineRaised,
    cancelled_from_outside,
    describe_error,
    is_ctrl_c,
    last_frames,
    run_case,
)
from ..results import CalibrationNote, CaseResult, RunInfo, RunResult
from ..results.diagnosis import diagnose
from ..results.health import DEFAULT_MIN_SCORED_SHARE, assess_run
from ..results.indicative import indicative_metrics
from ..results.spool import CaseSpool
from ..results.summary import DEFAULT_FAIL_THRESHOLDS, summarize_run
from ..vocabulary import (
    GENERATION_METRICS,
    METRICS,
    Evidence,
    JudgeFingerprint,
    Lang,
    MetricName,
    MetricResult,
    ReasonCode,
    Sample,
)
from ..vocabulary.reasons import NO_RESULT, PIPELINE_ERROR, TOO_LONG, code_of, without_case_id
from ._gc import fewer_collections
from .limits import max_text_chars, oversize_reason

ProgressCallback = Callable[[CaseResult], None]

TRACEBACK_NOTE = "traceback (innermost frames):"
"""How the evidence note holding a failed pipeline's traceback starts."""


def build_sample(case: Case, contexts: list[str], answer: str, lang: Lang) -> Sample:
    """What the judge sees of `case` once the pipeline has answered."""
    return Sample.of(case, case_id=case.id, contexts=contexts, answer=answer, lang=lang)


class _Answered(NamedTuple):
    """What the pipeline gave for one case, or why it gave nothing."""

    contexts: list[str]
    answer: str
    error: str | None
    seconds: float
    frames: str | None = None
    """The last frames of the traceback when the user's code raised (see `last_frames`)."""
    metadata: dict[str, Any] = {}  # noqa: RUF012 (a NamedTuple default, never mutated)
    """What the pipeline returned beside contexts and answer (`PipelineOutput.metadata`)."""


async def _run_pipeline(pipeline: PipelineBase, case: Case) -> _Answered:
    started = time.perf_counter()
    try:
        output = await run_case(pipeline, case)  # under the pipeline's deadline
    except PipelineError as exc:
        # The result carries the case id; without it equal errors group in the report.
        message = str(exc).replace(f" (case '{case.id}')", "")
        raised = exc.__cause__ if isinstance(exc, PipelineRaised) else None
        frames = redact(last_frames(raised)) if raised is not None else None
        return _Answered([], "", redact(message), time.perf_counter() - started, frames)
    except BaseException as exc:  # an adapter bug, or a user's pipeline exiting: one case
        if is_ctrl_c(exc) or (isinstance(exc, asyncio.CancelledError) and cancelled_from_outside()):
            raise
        message, frames = redact(describe_error(exc)), redact(last_frames(exc))
        return _Answered([], "", message, time.perf_counter() - started, frames)
    seconds = time.perf_counter() - started
    return _Answered(list(output.contexts), output.answer, None, seconds, None, output.metadata)


async def _judge(
    judge: JudgeBase, sample: Sample, metrics: tuple[MetricName, ...]
) -> dict[MetricName, MetricResult]:
    try:
        results = await judge.judge(sample, metrics)
    except JudgeUnavailable:
        raise
    except BaseException as exc:  # judges should not raise (nor exit); if one does, the case stays
        if is_ctrl_c(exc) or (isinstance(exc, asyncio.CancelledError) and cancelled_from_outside()):
            raise
        reason = without_case_id(redact(f"judge error: {describe_error(exc)}"), sample.case_id)
        code: ReasonCode = "judge_timeout" if isinstance(exc, TimeoutError) else "judge_error"
        return {m: MetricResult.unscored(m, reason, reason_code=code) for m in metrics}
    return {m: _coded(results.get(m), m, sample.case_id) for m in metrics}


def _coded(result: MetricResult | None, metric: MetricName, case_id: str) -> MetricResult:
    """`result` as the run records it: an unscored one with its code and a reason that does
    not name the case (see `ragmeter.vocabulary.reasons`); a missing one unscored."""
    if result is None:
        return MetricResult.unscored(metric, NO_RESULT, reason_code="judge_error")
    if result.score is not None or result.unscored_reason is None:
        return result
    reason = without_case_id(result.unscored_reason, case_id)
    if reason == result.unscored_reason and result.reason_code is not None:
        return result
    return result.model_copy(
        update={"unscored_reason": reason, "reason_code": result.reason_code or code_of(reason)}
    )


def _start_result(
    case: Case,
    lang: Lang | None,
    contexts: list[str],
    answer: str,
    error: str | None,
    seconds: float,
    pipeline_metadata: dict[str, Any] | None = None,
) -> CaseResult:
    return CaseResult.start(
        case,
        lang=case_lang(case, lang),
        contexts=contexts,
        answer=answer,
        error=error,
        seconds=seconds,
        pipeline_metadata=pipeline_metadata,
    )


async def _judge_result(
    case: Case,
    result: CaseResult,
    judge: JudgeBase,
    metrics: tuple[MetricName, ...],
    repeats: int,
    frames: str | None = None,
) -> CaseResult:
    """Fill ``result.metrics`` (and ``repeats``) from the judge, or unscored on a pipeline
    error (with the last `frames` of its traceback as evidence, when the user's code raised)."""
    if result.pipeline_error is not None:
        reason = without_case_id(f"{PIPELINE_ERROR}: {result.pipeline_error}", case.id)
        code = code_of(reason)  # pipeline_error, or pipeline_timeout
        notes = [f"{TRACEBACK_NOTE}\n{frames}"] if frames else []
        result.metrics = {
            m: MetricResult.unscored(m, reason, reason_code=code, evidence=Evidence(notes=notes))
            for m in metrics
        }
        return result
    too_long = oversize_reason(case.question, result.answer, case.ground_truth, result.contexts)
    if too_long is not None:
        reason = without_case_id(f"{TOO_LONG}: {too_long}", case.id)
        result.metrics = {
            m: MetricResult.unscored(m, reason, reason_code="too_long") for m in metrics
        }
        return result
    sample = build_sample(case, result.contexts, result.answer, result.lang)
    fixed: dict[MetricName, MetricResult] = {}
    if not result.answer.strip():
        fixed = {m: empty_answer_result(m) for m in metrics if m in GENERATION_METRICS}
    to_judge = tuple(m for m in metrics if m not in fixed)
    judged = await _judge(judge, sample, to_judge) if to_judge else {}
    result.metrics = {m: fixed.get(m) or judged[m] for m in metrics}
    if repeats > 1:
        scores = {m: [result.metrics[m].score] for m in metrics}
        for index in range(1, repeats):
            again = (
                await _judge(judge, sample.model_copy(update={"repeat": index}), to_judge)
                if to_judge
                else {}
            )
            for m in metrics:
                scores[m].append((fixed.get(m) or again[m]).score)
        result.repeats = scores
    return result


JUDGE_WINDOW = 4
"""Cases being judged at once, per unit of `concurrency` (at least 16): a case waiting on its
last call (faithfulness verifies claims after splitting them) holds little work, so the judge
needs more cases than the pipeline to keep its own call limit busy."""


async def judge_cases(
    cases: Sequence[Case],
    pipeline: PipelineBase,
    judge: JudgeBase,
    *,
    metrics: tuple[MetricName, ...] = METRICS,
    concurrency: int = 4,
    lang: Lang | None = None,
    thresholds: dict[MetricName, float] | None = None,
    targets: dict[MetricName, float] | None = None,
    info: RunInfo | None = None,
    on_case: ProgressCallback | None = None,
    repeats: int = 1,
    min_scored_share: float = DEFAULT_MIN_SCORED_SHARE,
    window: int | None = None,
    spool: CaseSpool | None = None,
    calibration: Sequence[CalibrationNote] = (),
) -> RunResult:
    """Evaluate every case; results keep the eval set's order whatever finishes first.

    At most `concurrency` cases are in the pipeline at once; judging admits more, `window`
    cases at once (default: see `JUDGE_WINDOW`; every case for a judge that works in rounds,
    `JudgeBase.in_rounds`, so one round of calls carries them all), and the judge's own limit
    caps its calls. A blank answer
    scores 0 on faithfulness and answer relevancy under every judge
    (`rules.empty_answer_result`).
    Raises :class:`JudgeUnavailable` as soon as the judge can judge nothing (the other cases
    are cancelled); the result's `health` says whether every metric was measured.
    The pipeline and judge come adapted from the door (`ragmeter.api`); neither is closed
    here. With a `spool` (as long as `cases`), each case goes to it as it finishes and the
    run's `cases` are the spool: memory does not grow with the eval set. `calibration` is the
    judge's known agreement with people (the door looks it up,
    :func:`ragmeter.run.calibrate.calibration_notes`); the run records the notes of the metrics
    it judged.
    """
    started = time.perf_counter()
    try:
        max_text_chars()  # a bad RAGMETER_MAX_TEXT_CHARS stops here, not once per case
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    concurrency = max(1, concurrency)
    in_pipeline = asyncio.Semaphore(concurrency)
    if spool is not None and len(spool) != len(cases):
        raise ValueError(f"a spool of {len(spool)} cases for {len(cases)} cases")
    case_results: list[CaseResult | None] = [None] * (len(cases) if spool is None else 0)
    generators: set[str] = set()  # the answering models the pipeline named

    async def one(index: int, case: Case) -> None:
        async with in_pipeline:
            answered = await _run_pipeline(pipeline, case)
        result = _start_result(case, lang, *answered[:4], answered.metadata)
        generator = answered.metadata.get(GENERATOR_KEY)
        if isinstance(generator, str) and generator.strip():
            generators.add(generator.strip())
        result = await _judge_result(case, result, judge, metrics, repeats, answered.frames)
        if spool is None:
            case_results[index] = result
        else:
            spool.put(index, result)
        if on_case is not None:
            on_case(result)

    # Tasks are started as earlier ones finish, at most `window` at once: a task per case up
    # front would hold tens of thousands of coroutines (and their frames) on a large eval set.
    if window is None:
        window = len(cases) if judge.in_rounds else max(16, JUDGE_WINDOW * concurrency)
    window = max(1, window)
    running: set[asyncio.Task[None]] = set()
    digests: list[str] | None = None if info is not None and info.cases_digest else []
    try:
        with fewer_collections():  # judge replies are many short-lived objects (see _gc)
            for index, case in enumerate(cases):
                if digests is not None:  # read here: a .jsonl eval set is read from disk
                    digests.append(case_digest(case))
                if len(running) >= window:
                    finished, running = await asyncio.wait(
                        running, return_when=asyncio.FIRST_COMPLETED
                    )
                    _raise_first_error(finished)  # JudgeUnavailable (or a bug) ends the run
                running.add(asyncio.ensure_future(one(index, case)))
            while running:
                finished, running = await asyncio.wait(running, return_when=asyncio.FIRST_EXCEPTION)
                _raise_first_error(finished)
    except BaseException:
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
        raise
    thresholds = {**DEFAULT_FAIL_THRESHOLDS, **(thresholds or {})}
    info = info or RunInfo()
    if digests is not None:
        info.cases_digest = combine(digests)
    info.seconds = round(time.perf_counter() - started, 3)
    info.ragmeter_version = __version__
    info.thresholds = dict(thresholds.items())  # keyed by str in RunInfo
    info.targets = dict((targets or {}).items())
    if warning := judge.warning:
        info.warnings = [*info.warnings, *warning.splitlines()]
    fingerprint = judge.fingerprint()
    info.warnings = [*info.warnings, *_same_family_warnings(fingerprint.model, generators)]
    if stats := judge.stats():  # {}: no counters (the info's own, if any, stay)
        info.judge_stats = stats
    judged: Sequence[CaseResult] = (
        [result for result in case_results if result is not None] if spool is None else spool
    )
    info.calibration = [note for note in calibration if note.metric in metrics]
    return assemble_run(fingerprint, info, judged, metrics, thresholds, targets, min_scored_share)


GENERATOR_KEY = "generator_model"
"""The key of a pipeline output's metadata (an answers record's too) naming the model that wrote
the answer, so a judge of its family is warned about."""


def _same_family_warnings(judge_model: str, generators: set[str]) -> list[str]:
    """One warning per answering model of the judge's own family (`_util.model_family`)."""
    return [
        f"The judge model ({judge_model}) is of the same family as the model that generated "
        f"the answers ({generator}, named by the pipeline's '{GENERATOR_KEY}'): models tend to "
        "rate their own family's answers favourably. Judge with a model of another family."
        for generator in sorted(generators)
        if same_family(generator, judge_model)
    ]


def _raise_first_error(finished: set[asyncio.Task[None]]) -> None:
    """Raise the first error among `finished` tasks, having read every one's (an error never
    read is printed as "Task exception was never retrieved" when the task is collected)."""
    errors = [task.exception() for task in finished if not task.cancelled()]
    first = next((error for error in errors if error is not None), None)
    if first is not None:
        raise first


def assemble_run(
    judge: JudgeFingerprint,
    info: RunInfo,
    cases: Sequence[CaseResult],
    metrics: tuple[MetricName, ...],
    thresholds: Mapping[MetricName, float],
    targets: Mapping[MetricName, float] | None,
    min_scored_share: float | None,
) -> RunResult:
    """The run record of judged `cases`: their summary, diagnosis and health (None without a
    `min_scored_share`), computed the one way a run and a merge of its shards both use. The
    diagnosis reads the judge's agreement with people from `info.calibration`.
    A :class:`CaseSpool` is kept as the run's cases, not copied into memory."""
    summary = summarize_run(cases, metrics, dict(thresholds))
    health = None
    if min_scored_share is not None:
        health = assess_run(summary, metrics, min_scored_share=min_scored_share)
    run = RunResult(
        judge=judge,
        run=info,
        summary=summary,
        diagnosis=diagnose(summary, targets, indicative_metrics(info.calibration)),
        health=health,
        cases=[] if isinstance(cases, CaseSpool) else cases,
    )
    if isinstance(cases, CaseSpool):
        run.cases = cases  # validated when each was put; read from disk when walked
    return run


def evaluate(
    cases: Sequence[Case],
    pipeline: PipelineBase,
    judge: JudgeBase,
    **kwargs: Any,
) -> RunResult:
    """:func:`judge_cases` from synchronous code (see `ragmeter._util.sync.run_sync`); the
    pipeline and judge stay open, the caller's to close."""
    return run_sync(judge_cases(cases, pipeline, judge, **kwargs))
