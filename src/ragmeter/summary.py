"""Aggregate case results into per-metric and per-category summaries."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator

from .judges.rules import BY_DESIGN
from .reasons import (
    BY_DESIGN_CODES,
    LABELS,
    NOT_JUDGED,
    short_cause,
    unscored_code,
    without_case_id,
)
from .results import CaseResult, MetricSummary, RunSummary, UnscoredGroup
from .stats import bootstrap_ci, histogram, mean
from .vocabulary import METRICS, MetricName

DEFAULT_FAIL_THRESHOLDS: dict[MetricName, float] = {
    "context_recall": 0.5,
    "context_precision": 0.5,
    "faithfulness": 0.7,
    "answer_relevancy": 0.5,
}
"""A case fails a metric when its score is below this."""


MAX_REASONS = 10
"""Causes a metric summary counts one by one (`MetricSummary.unscored_reasons`), the most
common first; rarer ones are counted together per code, so the summary stays small however
many distinct causes the cases hold."""
MAX_CAUSES_PER_CODE = 5
"""Groups of one cause per code in `RunSummary.unscored_groups`; the rarer causes of a code
share one group."""
EXAMPLE_IDS = 3


def _other_causes(code: str, n_causes: int) -> str:
    return f"{LABELS.get(code, code)}: {n_causes:,} other causes"


def summarize_metric(
    cases: Iterable[CaseResult],
    metric: MetricName,
    threshold: float | None = None,
    *,
    with_ci: bool = True,
    first_only: bool = False,
) -> MetricSummary:
    """Mean, interval, counts and distribution of one metric over `cases` (without the
    bootstrap interval, the slow part, when not `with_ci`). A re-judged case counts with the
    mean of its judgements (`CaseResult.aggregate_score`), as the gate counts it; `first_only`
    counts its first judgement (how files written before that rule were summarised).

    Unscored results are counted by cause (their reason without the case id), the
    :data:`MAX_REASONS` most common and every by-design one by name, the rest per code."""
    scores: list[float] = []
    causes: Counter[tuple[str, str]] = Counter()
    for case in cases:
        result = case.metrics.get(metric)
        if result is None:
            causes[("not_judged", NOT_JUDGED)] += 1
            continue
        value = result.score if first_only else case.aggregate_score(metric)
        if value is None:
            cause = without_case_id(result.unscored_reason or "unscored", case.id)
            causes[(unscored_code(result), cause)] += 1
        else:
            scores.append(value)
    return MetricSummary(
        mean=mean(scores),
        ci=bootstrap_ci(scores) if with_ci else None,
        n_scored=len(scores),
        n_unscored=sum(causes.values()),
        unscored_reasons=_bounded_reasons(causes),
        n_failed=sum(s < threshold for s in scores) if threshold is not None else 0,
        threshold=threshold,
        histogram=histogram(scores),
    )


def _bounded_reasons(causes: Counter[tuple[str, str]]) -> dict[str, int]:
    reasons: Counter[str] = Counter()
    rest: dict[str, list[int]] = {}  # code -> [results, causes]
    for rank, ((code, cause), count) in enumerate(causes.most_common()):
        if rank < MAX_REASONS or cause in BY_DESIGN:
            reasons[short_cause(cause)] += count
        else:
            tally = rest.setdefault(code, [0, 0])
            tally[0] += count
            tally[1] += 1
    for code, (count, n_causes) in rest.items():
        reasons[_other_causes(code, n_causes)] += count
    return dict(reasons.most_common())


def summarize_run(
    cases: list[CaseResult],
    metrics: tuple[MetricName, ...] = METRICS,
    thresholds: dict[MetricName, float] | None = None,
) -> RunSummary:
    """Summaries over all cases and per category."""
    thresholds = {**DEFAULT_FAIL_THRESHOLDS, **(thresholds or {})}
    by_category: dict[str, list[CaseResult]] = {}
    for case in cases:
        by_category.setdefault(case.category, []).append(case)
    return RunSummary(
        metrics={m: summarize_metric(cases, m, thresholds.get(m)) for m in metrics},
        by_category={
            cat: {m: summarize_metric(members, m, thresholds.get(m)) for m in metrics}
            for cat, members in sorted(by_category.items())
        },
        n_cases=len(cases),
        n_pipeline_errors=sum(c.pipeline_error is not None for c in cases),
        unscored_groups=group_unscored(cases, metrics),
    )


def unscored_cause(reason: str, case_id: str) -> str:
    """`reason` without what is particular to its case (its quoted id), so equal causes group
    together (:func:`ragmeter.reasons.without_case_id`)."""
    return without_case_id(reason, case_id)


def _unscored(
    cases: list[CaseResult], metrics: tuple[MetricName, ...]
) -> Iterator[tuple[CaseResult, MetricName, tuple[str, str]]]:
    """Each unscored result with its (code, cause)."""
    for case in cases:
        for metric in metrics:
            result = case.metrics.get(metric)
            if result is not None and result.score is None:
                cause = without_case_id(result.unscored_reason or "unscored", case.id)
                yield case, metric, (unscored_code(result), cause)


def group_unscored(
    cases: list[CaseResult], metrics: tuple[MetricName, ...] = METRICS
) -> list[UnscoredGroup]:
    """Unscored results grouped by code and cause across metrics, most cases first.

    Per code, the :data:`MAX_CAUSES_PER_CODE` causes that left most results unscored have a
    group each and the others share one, so the groups are bounded by the number of codes
    whatever the number of failing cases (or of distinct error messages)."""
    counts = Counter(key for _, _, key in _unscored(cases, metrics))
    own: set[tuple[str, str]] = set()
    n_own: Counter[str] = Counter()
    n_merged: Counter[str] = Counter()
    for key, _ in counts.most_common():  # ties: first seen first
        if n_own[key[0]] < MAX_CAUSES_PER_CODE:
            n_own[key[0]] += 1
            own.add(key)
        else:
            n_merged[key[0]] += 1
    del counts
    groups: dict[tuple[str, str], UnscoredGroup] = {}
    last_case: dict[tuple[str, str], str] = {}
    for case, metric, key in _unscored(cases, metrics):
        code, cause = key
        if key not in own:
            key = (code, "")  # the code's shared group
        group = groups.get(key)
        if group is None:
            shared = key not in own
            group = groups[key] = UnscoredGroup(
                cause=_other_causes(code, n_merged[code]) if shared else short_cause(cause),
                code=code,
                n_causes=n_merged[code] if shared else 1,
                metrics=[],
                n_cases=0,
                n_results=0,
                by_design=code in BY_DESIGN_CODES,
            )
        group.n_results += 1
        if metric not in group.metrics:
            group.metrics.append(metric)
        if last_case.get(key) != case.id:
            last_case[key] = case.id
            group.n_cases += 1
            if len(group.example_ids) < EXAMPLE_IDS:
                group.example_ids.append(case.id)
    for group in groups.values():
        group.metrics.sort(key=metrics.index)
    return sorted(groups.values(), key=lambda g: (g.by_design, -g.n_cases, g.cause))


def failed_cases(cases: list[CaseResult], metric: MetricName, threshold: float) -> list[CaseResult]:
    """Scored cases below `threshold` on `metric`, worst first."""
    scored = [c for c in cases if (s := c.aggregate_score(metric)) is not None and s < threshold]
    return sorted(scored, key=lambda c: (c.aggregate_score(metric), c.id))
