"""Judge noise from re-judged cases (`--repeats K`): spread, flips and the run's noise floor.

A *flip* is a case whose pass/fail verdict on a metric changes between judgements of the
same output. The *noise floor* of a metric is the standard deviation of the run's mean due to
judge noise alone: ``sqrt(sum of per-case variances) / n`` for one judgement per case.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, Field

from ..results import CaseResult, RunResult
from ..results.summary import DEFAULT_FAIL_THRESHOLDS
from ..vocabulary import METRICS, MetricName


class CaseNoise(BaseModel):
    """How much one case's score on one metric moves between judgements."""

    case_id: str
    metric: MetricName
    scores: list[float]
    """Scored judgements (unscored repeats left out)."""
    mean: float
    sd: float
    """Sample standard deviation of the judgements (0 with one)."""
    spread: float
    """Highest minus lowest judgement."""
    flip_rate: float
    """Share of judgements whose pass/fail verdict differs from the first one."""


class MetricNoise(BaseModel):
    """Judge noise of one metric over a run."""

    metric: MetricName
    repeats: int
    """Most judgements per case."""
    n_cases: int
    """Cases with at least two scored judgements."""
    mean_sd: float
    """Average per-case standard deviation."""
    max_spread: float
    """Largest per-case spread."""
    noise_floor: float
    """Standard deviation of the run's mean due to judge noise (one judgement per case)."""
    flip_rate: float
    """Share of cases whose verdict flipped at least once."""
    flipping: list[str] = Field(default_factory=list)
    """Ids of the cases that flipped, noisiest first."""


class NoiseSummary(BaseModel):
    """Judge noise of a run re-judged K times."""

    repeats: int
    metrics: dict[MetricName, MetricNoise]
    cases: list[CaseNoise] = Field(default_factory=list)
    """Cases whose judgements differ, largest spread first."""


def _sd(values: list[float]) -> float:
    if len(values) < 2:
        return 0.0
    mu = sum(values) / len(values)
    return math.sqrt(sum((v - mu) ** 2 for v in values) / (len(values) - 1))


def case_noise(case: CaseResult, metric: MetricName, threshold: float) -> CaseNoise | None:
    """Spread and flips of one case on one metric; None without two scored judgements."""
    scores = [s for s in case.repeats.get(metric, []) if s is not None]
    if len(scores) < 2:
        return None
    first_fails = scores[0] < threshold
    flips = sum((s < threshold) != first_fails for s in scores[1:])
    return CaseNoise(
        case_id=case.id,
        metric=metric,
        scores=scores,
        mean=sum(scores) / len(scores),
        sd=_sd(scores),
        spread=max(scores) - min(scores),
        flip_rate=flips / (len(scores) - 1),
    )


def measure_noise(run: RunResult) -> NoiseSummary | None:
    """Noise of every metric from the cases' repeats; None when the run was judged once."""
    if not any(len(v) > 1 for c in run.cases for v in c.repeats.values()):
        return None
    # The run's thresholds, read from results.json, are keyed by any string.
    thresholds: dict[str, float] = dict(DEFAULT_FAIL_THRESHOLDS.items())
    thresholds.update(run.run.thresholds)
    per_metric: dict[MetricName, MetricNoise] = {}
    noisy: list[CaseNoise] = []
    for metric in METRICS:
        rows = [
            n for c in run.cases if (n := case_noise(c, metric, thresholds[metric])) is not None
        ]
        if not rows:
            continue
        variance = sum(r.sd**2 for r in rows)
        flipping = sorted((r for r in rows if r.flip_rate > 0), key=lambda r: -r.spread)
        per_metric[metric] = MetricNoise(
            metric=metric,
            repeats=max(len(r.scores) for r in rows),
            n_cases=len(rows),
            mean_sd=sum(r.sd for r in rows) / len(rows),
            max_spread=max(r.spread for r in rows),
            noise_floor=math.sqrt(variance) / len(rows),
            flip_rate=len(flipping) / len(rows),
            flipping=[r.case_id for r in flipping],
        )
        noisy.extend(r for r in rows if r.spread > 0)
    noisy.sort(key=lambda r: (-r.spread, r.case_id, r.metric))
    repeats = max(len(v) for c in run.cases for v in c.repeats.values())
    return NoiseSummary(repeats=repeats, metrics=per_metric, cases=noisy)


def case_scores(run: RunResult, metric: MetricName, *, average_repeats: bool) -> dict[str, float]:
    """Each scored case's score on `metric` by id; the mean of its judgements when asked."""
    scores: dict[str, float] = {}
    for case in run.cases:
        score = case.aggregate_score(metric) if average_repeats else case.score(metric)
        if score is not None:
            scores[case.id] = score
    return scores


def in_noise_band(value: float, threshold: float, noise_sd: float, width: float = 2.0) -> bool:
    """Whether `threshold` lies within `width` noise standard deviations of `value`."""
    return noise_sd > 0 and abs(value - threshold) <= width * noise_sd


__all__ = [
    "CaseNoise",
    "MetricNoise",
    "NoiseSummary",
    "case_noise",
    "case_scores",
    "in_noise_band",
    "measure_noise",
]
