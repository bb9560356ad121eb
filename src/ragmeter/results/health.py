"""Did a run measure what it set out to? Enough scored cases per metric, no budget stop.

A mean over the few cases that happened to be scored is not a measurement of the pipeline: a
run whose endpoint was down, whose judge rejected every call or whose budget ran out must never
read as a pass. This module says, per metric, how many of the cases it applies to were scored
(unscored *by design*, such as retrieval on an out-of-scope case, does not count against it),
and gives the exit code the command line reports.
"""

from __future__ import annotations

from .._util.exit_codes import ExitCode
from ..vocabulary import METRICS, MetricName
from ..vocabulary.reasons import BUDGET_REASON, BY_DESIGN
from ._model import MetricHealth, RunHealth, RunSummary, UnscoredGroup

DEFAULT_MIN_SCORED_SHARE = 0.9
"""Share of the cases a metric applies to that must be scored for the run to count."""


def _top_failure(groups: list[UnscoredGroup], metric: MetricName) -> str:
    for group in groups:
        if not group.by_design and metric in group.metrics:
            examples = ", ".join(group.example_ids)
            more = ", …" if group.n_cases > len(group.example_ids) else ""
            cases = "case" if group.n_cases == 1 else "cases"
            return f"{group.cause} ({group.n_cases} {cases}: {examples}{more})"
    return ""


def metric_health(
    summary: RunSummary, metric: MetricName, min_scored_share: float
) -> MetricHealth | None:
    """The health of `metric` in `summary`, None when the run did not judge it."""
    stats = summary.metrics.get(metric)
    if stats is None:
        return None
    not_applicable = sum(n for r, n in stats.unscored_reasons.items() if r in BY_DESIGN)
    applicable = stats.n_scored + stats.n_unscored - not_applicable
    share = stats.n_scored / applicable if applicable else None
    health = MetricHealth(
        metric=metric, n_scored=stats.n_scored, n_applicable=applicable, share=share, ok=True
    )
    if share is not None and (stats.n_scored == 0 or share < min_scored_share):
        health.ok = False
        health.problem = _top_failure(summary.unscored_groups, metric)
    return health


def _problem_lines(per_metric: list[MetricHealth], min_scored_share: float) -> list[str]:
    """One line per distinct shortfall; metrics that fell short alike share a line."""
    grouped: dict[tuple[int, int, str], list[MetricName]] = {}
    for health in per_metric:
        if not health.ok:
            key = (health.n_scored, health.n_applicable, health.problem)
            grouped.setdefault(key, []).append(health.metric)
    lines = []
    for (scored, applicable, cause), metrics in grouped.items():
        names = "every metric" if len(metrics) == len(METRICS) else ", ".join(metrics)
        line = f"{names}: {scored} of {applicable} cases scored ({min_scored_share:.0%} needed)"
        lines.append(line + (f"; cause: {cause}" if cause else ""))
    return lines


def assess_run(
    summary: RunSummary,
    metrics: tuple[MetricName, ...] = METRICS,
    *,
    min_scored_share: float = DEFAULT_MIN_SCORED_SHARE,
) -> RunHealth:
    """Check every metric of `summary` and pick the exit code (budget before incomplete)."""
    per_metric = [h for m in metrics if (h := metric_health(summary, m, min_scored_share))]
    problems = _problem_lines(per_metric, min_scored_share)
    budget = sum(
        g.n_results
        for g in summary.unscored_groups
        if g.code == "budget" or g.cause.startswith(BUDGET_REASON)
    )
    code = ExitCode.OK
    if budget:
        problems.insert(
            0, f"the judge budget ran out: {budget} case × metric results were left unjudged"
        )
        code = ExitCode.BUDGET
    elif problems:
        code = ExitCode.INCOMPLETE
    return RunHealth(
        ok=not problems,
        exit_code=int(code),
        min_scored_share=min_scored_share,
        problems=problems,
        metrics=per_metric,
        n_budget_unjudged=budget,
    )


__all__ = [
    "DEFAULT_MIN_SCORED_SHARE",
    "ExitCode",
    "MetricHealth",
    "RunHealth",
    "assess_run",
    "metric_health",
]
