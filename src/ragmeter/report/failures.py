"""Select failed cases, worst first, explained by :mod:`ragmeter.results.explain` (no rescoring)."""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from ..results import CaseResult, RunResult
from ..results.explain import StrengthLabels, explain, strength_labels
from ..results.indicative import indicative_metrics
from ..vocabulary import METRICS, MetricName


@dataclass(frozen=True)
class Failure:
    """One case failing one metric, with the lines of evidence that show why."""

    case: CaseResult
    metric: MetricName
    score: float
    pass_mark: float
    """The metric's per-case pass mark the score is under (the run's `thresholds`)."""
    reasons: list[str]
    """The evidence, led by what pulled the score under the pass mark (`explain.shortfall`)."""
    indicative: bool = False
    """Whether the metric is indicative only in this run (its judge agrees with people near
    chance: :mod:`ragmeter.results.indicative`)."""

    @property
    def mark(self) -> str:
        """`< pass mark 0.70`, and `(indicative only)` after it when the metric is."""
        return f"< pass mark {self.pass_mark:.2f}" + (
            " (indicative only)" if self.indicative else ""
        )


def collect_failures(run: RunResult, metrics: tuple[MetricName, ...] = METRICS) -> list[Failure]:
    """Every (case, metric) scored below the run's threshold, worst first. Explains each one:
    reports that show a few use :func:`worst_failures`."""
    return worst_failures(run, None, metrics)[0]


def worst_failures(
    run: RunResult, limit: int | None, metrics: tuple[MetricName, ...] = METRICS
) -> tuple[list[Failure], int]:
    """The `limit` worst (case, metric) pairs scored below the run's threshold (all of them
    when None), explained, and how many there are in all. Only those shown are explained, and
    they are picked without sorting the rest, so a report of a large run costs one pass over
    its cases."""
    order = {m: i for i, m in enumerate(METRICS)}
    keys: list[tuple[float, int, str, int]] = []
    for index, case in enumerate(run.cases):
        for metric in metrics:
            outcome = case.outcome(metric, run.run.thresholds.get(metric))
            if outcome.failed and outcome.score is not None:  # re-judged: the mean
                keys.append((outcome.score, order[metric], case.id, index))
    total = len(keys)
    shown = sorted(keys) if limit is None else heapq.nsmallest(max(0, limit), keys)
    indicative = indicative_metrics(run.run.calibration)
    failures = []
    for score, metric_index, _, index in shown:
        case, metric = run.cases[index], METRICS[metric_index]
        mark = run.run.thresholds[metric]  # a case fails only against its metric's pass mark
        reasons = explain(case, metric, run.judge, pass_mark=mark)
        failures.append(Failure(case, metric, score, mark, reasons, metric in indicative))
    return failures, total


__all__ = [
    "Failure",
    "StrengthLabels",
    "collect_failures",
    "explain",
    "strength_labels",
    "worst_failures",
]
