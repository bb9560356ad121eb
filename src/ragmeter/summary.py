"""Aggregate case results into per-metric and per-category summaries."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from .judges.base import METRICS, MetricName
from .judges.rules import BY_DESIGN
from .results import CaseResult, MetricSummary, RunSummary, UnscoredGroup
from .stats import bootstrap_ci, histogram, mean

DEFAULT_FAIL_THRESHOLDS: dict[MetricName, float] = {
    "context_recall": 0.5,
    "context_precision": 0.5,
    "faithfulness": 0.7,
    "answer_relevancy": 0.5,
}
"""A case fails a metric when its score is below this."""


def summarize_metric(
    cases: Iterable[CaseResult],
    metric: MetricName,
    threshold: float | None = None,
    *,
    with_ci: bool = True,
) -> MetricSummary:
    """Mean, interval, counts and distribution of one metric over `cases` (without the
    bootstrap interval, the slow part, when not `with_ci`)."""
    scores: list[float] = []
    reasons: Counter[str] = Counter()
    for case in cases:
        result = case.metrics.get(metric)
        if result is None:
            reasons["not judged"] += 1
        elif result.score is None:
            reasons[result.unscored_reason or "unscored"] += 1
        else:
            scores.append(result.score)
    return MetricSummary(
        mean=mean(scores),
        ci=bootstrap_ci(scores) if with_ci else None,
        n_scored=len(scores),
        n_unscored=sum(reasons.values()),
        unscored_reasons=dict(reasons.most_common()),
        n_failed=sum(s < threshold for s in scores) if threshold is not None else 0,
        threshold=threshold,
        histogram=histogram(scores),
    )


def summarize_run(
    cases: list[CaseResult],
    metrics: tuple[MetricName, ...] = METRICS,
    thresholds: dict[MetricName, float] | None = None,
) -> RunSummary:
    """Summaries over all cases and per category."""
    thresholds = {**DEFAULT_FAIL_THRESHOLDS, **(thresholds or {})}
    categories = sorted({c.category for c in cases})
    return RunSummary(
        metrics={m: summarize_metric(cases, m, thresholds.get(m)) for m in metrics},
        by_category={
            cat: {
                m: summarize_metric([c for c in cases if c.category == cat], m, thresholds.get(m))
                for m in metrics
            }
            for cat in categories
        },
        n_cases=len(cases),
        n_pipeline_errors=sum(c.pipeline_error is not None for c in cases),
        unscored_groups=group_unscored(cases, metrics),
    )


EXAMPLE_IDS = 3


def unscored_cause(reason: str, case_id: str) -> str:
    """`reason` without what is particular to its case (its quoted id), so equal causes group
    together."""
    if not case_id:
        return reason
    reason = reason.replace(f" (case '{case_id}')", "")
    return reason.replace(f"'{case_id}'", "'…'").replace(f'"{case_id}"', '"…"')


def group_unscored(
    cases: list[CaseResult], metrics: tuple[MetricName, ...] = METRICS
) -> list[UnscoredGroup]:
    """Unscored results grouped by cause across metrics, most cases first."""
    groups: dict[str, UnscoredGroup] = {}
    last_case: dict[str, str] = {}
    for case in cases:
        for metric in metrics:
            result = case.metrics.get(metric)
            if result is None or result.score is not None:
                continue
            reason = result.unscored_reason or "unscored"
            cause = unscored_cause(reason, case.id)
            group = groups.get(cause)
            if group is None:
                group = groups[cause] = UnscoredGroup(
                    cause=cause, metrics=[], n_cases=0, n_results=0, by_design=reason in BY_DESIGN
                )
            group.n_results += 1
            if metric not in group.metrics:
                group.metrics.append(metric)
            if last_case.get(cause) != case.id:
                last_case[cause] = case.id
                group.n_cases += 1
                if len(group.example_ids) < EXAMPLE_IDS:
                    group.example_ids.append(case.id)
    for group in groups.values():
        group.metrics.sort(key=metrics.index)
    return sorted(groups.values(), key=lambda g: (g.by_design, -g.n_cases, g.cause))


def failed_cases(cases: list[CaseResult], metric: MetricName, threshold: float) -> list[CaseResult]:
    """Scored cases below `threshold` on `metric`, worst first."""
    scored = [c for c in cases if (s := c.score(metric)) is not None and s < threshold]
    return sorted(scored, key=lambda c: (c.score(metric), c.id))
