"""Calibrate a judge against human labels: agreement per metric.

:func:`calibrate` judges every labelled case and measures agreement; :func:`calibrate_run`
measures it on the cases of an existing run that people labelled, and adds a
prediction-powered estimate of each metric's mean; :func:`calibration_notes` is what a run
records of a judge's known agreement. The calibration itself, and its store under the judge's
fingerprint key, are :mod:`ragmeter.results.calibration`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from .._exceptions import ConfigError
from .._util.plural import counted
from .._util.sync import run_sync
from ..cases.labels import LabelKind, LabelledCase, label_kind, labelled_metrics
from ..judges.base import JudgeBase
from ..judges.local.reference import reference_headline
from ..pipeline import PrecomputedPipeline
from ..results import CalibrationNote, CaseResult, RunResult
from ..results.calibration import (
    AlternativeScoring,
    Calibration,
    Disagreement,
    MetricCalibration,
    Scoring,
    find_calibration,
    graded_setting,
)
from ..stats.agreement import (
    DEFAULT_RESAMPLES,
    Measure,
    auroc,
    binary_measures,
    graded_measures,
    paired_difference,
    spearman,
)
from ..stats.ppi import ppi_mean
from ..vocabulary import METRICS, JudgeFingerprint, MetricName, MetricResult
from ._runner import judge_cases

DEFAULT_THRESHOLD = 0.5


def _supported_verdicts(result: MetricResult) -> list[tuple[bool, float | None]] | None:
    """(supported, P(supported)) for each claim of a faithfulness result or reference point of
    a context-recall one, in order (P None where the verdict carries no probability); None for
    the other metrics, whose scores are not shares of such verdicts."""
    if result.metric == "faithfulness":
        return [(c.verdict == "supported", c.confidence) for c in result.evidence.claims]
    if result.metric == "context_recall":
        return [(p.supported, p.confidence) for p in result.evidence.points]
    return None


def decision_threshold(judge: JudgeBase, metric: MetricName, default: float | None = None) -> float:
    """The score at or above which `judge` says yes on `metric` (`decision_thresholds`)."""
    if default is not None:
        return default
    declared = judge.decision_thresholds
    if metric in declared:
        return float(declared[metric])
    return DEFAULT_THRESHOLD


def measure_metric(
    metric: MetricName,
    results: Sequence[tuple[CaseResult, float]],
    *,
    kind: LabelKind | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    worst: int = 5,
    resamples: int = DEFAULT_RESAMPLES,
    labels_file: str = "",
    judge_fp: JudgeFingerprint | None = None,
) -> MetricCalibration:
    """Agreement on `metric` of judged cases with their human labels; with the judge's
    fingerprint, also how it scored the metric and, when every verdict carries P(supported),
    the agreement of the other scoring of the same verdicts."""
    scored = [(c, s, h) for c, h in results if (s := c.score(metric)) is not None]
    reasons: dict[str, int] = {}
    for case, _ in results:
        result = case.metrics.get(metric)
        if result is not None and result.score is None:
            reason = result.unscored_reason or "unscored"
            reasons[reason] = reasons.get(reason, 0) + 1
    kind = kind or label_kind(h for _, h in results)
    judge = [float(s) for _, s, _ in scored]
    human = [h for _, _, h in scored]

    def measures_of(scores: list[float]) -> list[Measure]:
        if kind == "graded":
            return graded_measures(scores, human, resamples=resamples)
        return binary_measures(scores, human, threshold=threshold, resamples=resamples)

    measures = measures_of(judge)
    scoring, other = (None, None) if judge_fp is None else _scorings(metric, scored, judge_fp)
    alternative = None
    if scoring in ("zero_one", "graded") and other is not None:
        statistic = spearman if kind == "graded" else auroc
        alternative = AlternativeScoring(
            scoring="graded" if scoring == "zero_one" else "zero_one",
            measures=measures_of(other),
            difference=paired_difference(
                f"{'Spearman' if kind == 'graded' else 'AUROC'} difference",
                statistic,
                other,
                judge,
                human,
                resamples=resamples,
            ),
        )
    ranked = sorted(scored, key=lambda t: -abs(float(t[1]) - t[2]))
    return MetricCalibration(
        metric=metric,
        kind=kind,
        n=len(scored),
        n_unscored=len(results) - len(scored),
        unscored_reasons=reasons,
        threshold=threshold if kind == "binary" else None,
        measures=measures,
        disagreements=[
            Disagreement(
                case_id=c.id,
                human=h,
                judge=float(s),
                question=_short(c.question, 160),
                answer=_short(c.answer, 200),
                reason=_reason(c.metrics[metric]),
            )
            for c, s, h in ranked[:worst]
            if abs(float(s) - h) > 1e-9
        ],
        scoring=scoring,
        alternative=alternative,
        labels_file=labels_file,
    )


def _scorings(
    metric: MetricName,
    scored: Sequence[tuple[CaseResult, float | None, float]],
    judge_fp: JudgeFingerprint,
) -> tuple[Scoring | Literal["mixed"] | None, list[float] | None]:
    """How the judge scored `metric` on the `scored` cases, and their scores the other way
    (None unless every verdict carries its P(supported)). Nothing is claimed when the judge
    has no such choice or a score is neither the share nor the mean of its verdicts."""
    configured = graded_setting(judge_fp)
    if configured is None:
        return None, None
    ways: set[Scoring] = set()
    pairs: list[tuple[float, float | None]] = []  # (0/1 score, graded score) per case
    for case, score, _ in scored:
        verdicts = _supported_verdicts(case.metrics[metric])
        if verdicts is None or score is None:
            return None, None
        if not verdicts:  # settled without verdicts (nothing retrieved): the same either way
            pairs.append((score, score))
            continue
        zero_one = sum(ok for ok, _ in verdicts) / len(verdicts)
        probabilities = [p for _, p in verdicts if p is not None]
        graded = None
        if len(probabilities) == len(verdicts):
            graded = sum(probabilities) / len(verdicts)
        way: Scoring = "zero_one"
        expected = zero_one
        if metric in configured and graded is not None:
            way, expected = "graded", graded
        if abs(expected - score) > 1e-6:  # scored some other way: claim nothing
            return None, None
        ways.add(way)
        pairs.append((zero_one, graded))
    if not ways:
        return None, None
    if len(ways) > 1:
        return "mixed", None
    (used,) = ways
    other: list[float] = []
    for zero_one, graded in pairs:
        if graded is None:
            return used, None
        other.append(graded if used == "zero_one" else zero_one)
    return used, other


async def calibrate_async(
    cases: Sequence[LabelledCase],
    judge: JudgeBase,
    *,
    metrics: Sequence[MetricName] | None = None,
    concurrency: int = 4,
    threshold: float | None = None,
    worst: int = 5,
    resamples: int = DEFAULT_RESAMPLES,
    labels_file: str = "",
    on_case: Callable[[CaseResult], None] | None = None,
) -> Calibration:
    """Judge every labelled case on the metrics it has labels for and measure agreement."""
    wanted = tuple(metrics) if metrics else labelled_metrics(cases)
    if not wanted:
        raise ConfigError("the labelled cases have no labels for the requested metrics")
    run = await judge_cases(
        [c.to_case() for c in cases],
        PrecomputedPipeline(),
        judge,
        metrics=wanted,
        concurrency=concurrency,
        on_case=on_case,
    )
    labels = {c.id: c.labels for c in cases}
    calibration = Calibration(judge=run.judge, judge_key=run.judge.key(), n_cases=len(cases))
    for metric in wanted:
        pairs = [(r, labels[r.id][metric]) for r in run.cases if metric in labels[r.id]]
        if not pairs:
            continue
        calibration.metrics[metric] = measure_metric(
            metric,
            pairs,
            threshold=decision_threshold(judge, metric, threshold),
            worst=worst,
            resamples=resamples,
            labels_file=labels_file,
            judge_fp=run.judge,
        )
    return calibration


def calibrate(cases: Sequence[LabelledCase], judge: JudgeBase, **kwargs: Any) -> Calibration:
    """:func:`calibrate_async` from synchronous code; closes the judge afterwards."""
    return run_sync(calibrate_async(cases, judge, **kwargs), closing=(judge,))


def calibrate_run(
    run: RunResult,
    labels: dict[str, dict[MetricName, float]],
    *,
    threshold: float | None = None,
    worst: int = 5,
    resamples: int = DEFAULT_RESAMPLES,
    labels_file: str = "",
    confidence: float = 0.95,
) -> Calibration:
    """Agreement on the run's cases that people labelled, and a prediction-powered mean per
    metric (judge scores on every case, corrected by the labelled ones)."""
    by_id = {c.id: c for c in run.cases}
    unknown = [case_id for case_id in labels if case_id not in by_id]
    if unknown:
        raise ConfigError(
            f"{counted(len(unknown), 'labelled id')} "
            f"{'is not a case' if len(unknown) == 1 else 'are not cases'} of the run "
            f"(first: '{unknown[0]}'); "
            "label cases of the same eval set, by their id"
        )
    calibration = Calibration(judge=run.judge, judge_key=run.judge.key(), n_cases=len(labels))
    for metric in METRICS:
        pairs = [(by_id[i], lab[metric]) for i, lab in labels.items() if metric in lab]
        if not pairs:
            continue
        calibration.metrics[metric] = measure_metric(
            metric,
            pairs,
            threshold=threshold if threshold is not None else DEFAULT_THRESHOLD,
            worst=worst,
            resamples=resamples,
            labels_file=labels_file,
            judge_fp=run.judge,
        )
        labelled = [(s, h) for c, h in pairs if (s := c.score(metric)) is not None]
        rest = [
            s
            for c in run.cases
            if (s := c.score(metric)) is not None and metric not in labels.get(c.id, {})
        ]
        if len(labelled) >= 2 and rest:
            calibration.estimates[metric] = ppi_mean(
                [h for _, h in labelled],
                [float(s) for s, _ in labelled],
                rest,
                confidence=confidence,
            )
    return calibration


# --- storage ------------------------------------------------------------------------------


def calibration_notes(
    fingerprint: JudgeFingerprint, root: str | Path | None = None
) -> list[CalibrationNote]:
    """Headline agreement per metric of the stored calibration; without one, the judge's
    published agreement on public labelled sets (the local judge ships it); [] when neither
    matches this exact judge configuration."""
    found = find_calibration(fingerprint, root)
    if found:
        return found.notes()

    return [CalibrationNote.model_validate(note) for note in reference_headline(fingerprint)]


def _reason(result: MetricResult) -> str:
    if result.score is None:
        return result.unscored_reason or ""
    evidence = result.evidence
    for claim in evidence.claims:
        if claim.verdict != "supported":
            return _short(f"{claim.verdict}: {claim.claim} ({claim.reason})", 200)
    if evidence.notes:
        return _short(evidence.notes[0], 200)
    return ""


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


__all__ = [
    "calibrate",
    "calibrate_async",
    "calibrate_run",
    "calibration_notes",
    "decision_threshold",
    "measure_metric",
]
