"""Aggregate case results into per-metric and per-category summaries."""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterable, Mapping

from ..stats import bootstrap_ci, histogram, mean
from ..vocabulary import METRICS, MetricName, MetricResult
from ..vocabulary.reasons import (
    BY_DESIGN,
    BY_DESIGN_CODES,
    LABELS,
    NOT_JUDGED,
    short_cause,
    unscored_code,
    without_case_id,
)
from ._case import CaseResult
from ._model import MetricSummary, RunSummary, UnscoredGroup

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


Cause = tuple[str, str]
"""An unscored result's (code, cause): its reason code and its reason without the case id."""
_NOT_JUDGED: Cause = ("not_judged", NOT_JUDGED)


def _cause(case: CaseResult, result: MetricResult) -> Cause:
    return unscored_code(result), without_case_id(result.unscored_reason or "unscored", case.id)


def _outcome(case: CaseResult, metric: MetricName, first_only: bool = False) -> float | Cause:
    """The score `case` counts with on `metric` (`CaseResult.aggregate_score`, or its first
    judgement when `first_only`), else the cause it went unscored for."""
    result = case.metrics.get(metric)
    if result is None:
        return _NOT_JUDGED
    value = result.score if first_only else case.outcome(metric).score
    return _cause(case, result) if value is None else value


class _MetricTally:
    """One metric over the cases seen so far: their scores in order (8 bytes each, for the
    bootstrap) and how many went unscored for each cause."""

    __slots__ = ("causes", "scores")

    def __init__(self) -> None:
        self.scores: array[float] = array("d")
        self.causes: Counter[Cause] = Counter()  # insertion order: first seen first

    def count(self, outcome: float | Cause) -> None:
        if isinstance(outcome, tuple):
            self.causes[outcome] += 1
        else:
            self.scores.append(outcome)

    def summary(self, threshold: float | None, *, with_ci: bool = True) -> MetricSummary:
        scores = self.scores
        return MetricSummary(
            mean=mean(scores),
            ci=bootstrap_ci(scores) if with_ci else None,
            n_scored=len(scores),
            n_unscored=sum(self.causes.values()),
            unscored_reasons=_bounded_reasons(self.causes),
            n_failed=sum(s < threshold for s in scores) if threshold is not None else 0,
            threshold=threshold,
            histogram=histogram(scores),
        )


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
    tally = _MetricTally()
    for case in cases:
        tally.count(_outcome(case, metric, first_only))
    return tally.summary(threshold, with_ci=with_ci)


def _bounded_reasons(causes: Counter[Cause]) -> dict[str, int]:
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


class _CauseTally:
    """The unscored results of one cause: counts, metrics and the first few cases."""

    __slots__ = ("examples", "metrics", "n_cases", "n_results", "rank")

    def __init__(self, rank: int) -> None:
        self.rank = rank
        """Order in which the causes were first seen."""
        self.n_results = 0
        self.n_cases = 0
        self.metrics = 0
        """Bit i set: unscored on the run's i-th metric."""
        self.examples: list[tuple[int, str]] = []
        """(position, id) of the first :data:`EXAMPLE_IDS` cases."""


class _UnscoredTally:
    """:func:`group_unscored` in one pass: per cause, counts and the first few case ids; per
    code, how many cases had two or more of its causes, so that the cases of the causes that
    end up sharing a group are counted once each. Each `add` is one case (ids are unique in a
    run: eval sets and results files with a repeated id are refused)."""

    def __init__(self, metrics: tuple[MetricName, ...]) -> None:
        self.metrics = metrics
        self._bit = {m: 1 << metrics.index(m) for m in metrics}
        self.causes: dict[Cause, _CauseTally] = {}  # first seen first
        self.together: dict[str, Counter[frozenset[int]]] = {}
        """Per code, the sets of its causes (by rank) met in one case, when more than one."""
        self.n_cases = 0

    def add(self, case_id: str, unscored: Iterable[tuple[MetricName, Cause]]) -> None:
        """Count one case's unscored results (`metrics` order), each with its cause."""
        position = self.n_cases
        self.n_cases += 1
        hit: dict[Cause, _CauseTally] = {}
        for metric, key in unscored:
            tally = self.causes.get(key)
            if tally is None:
                tally = self.causes[key] = _CauseTally(len(self.causes))
            tally.n_results += 1
            tally.metrics |= self._bit[metric]
            hit[key] = tally
        by_code: dict[str, list[int]] = {}
        for (code, _), tally in hit.items():
            tally.n_cases += 1
            if len(tally.examples) < EXAMPLE_IDS:
                tally.examples.append((position, case_id))
            by_code.setdefault(code, []).append(tally.rank)
        for code, ranks in by_code.items():
            if len(ranks) > 1:
                self.together.setdefault(code, Counter())[frozenset(ranks)] += 1

    def groups(self) -> list[UnscoredGroup]:
        # Counter.most_common's order: most results first, ties in the order first seen.
        ranked = sorted(self.causes.items(), key=lambda item: item[1].n_results, reverse=True)
        own: list[tuple[Cause, _CauseTally]] = []
        shared: dict[str, list[_CauseTally]] = {}
        n_own: Counter[str] = Counter()
        for key, tally in ranked:
            if n_own[key[0]] < MAX_CAUSES_PER_CODE:
                n_own[key[0]] += 1
                own.append((key, tally))
            else:
                shared.setdefault(key[0], []).append(tally)
        made: list[tuple[int, UnscoredGroup]] = []  # with the rank its first result had
        for (code, cause), tally in own:
            group = self._group(code, [tally])
            group.cause = short_cause(cause)
            made.append((tally.rank, group))
        for code, tallies in shared.items():
            group = self._group(code, tallies)
            group.cause = _other_causes(code, len(tallies))
            ranks = {t.rank for t in tallies}
            for together, n in self.together.get(code, Counter()).items():
                group.n_cases -= n * max(0, len(together & ranks) - 1)
            made.append((min(ranks), group))
        made.sort(key=lambda item: item[0])  # equal sort keys below keep this order
        groups = [group for _, group in made]
        return sorted(groups, key=lambda g: (g.by_design, -g.n_cases, g.cause))

    def _group(self, code: str, tallies: list[_CauseTally]) -> UnscoredGroup:
        bits = 0
        for t in tallies:
            bits |= t.metrics
        examples = sorted({p: i for t in tallies for p, i in t.examples}.items())
        return UnscoredGroup(
            cause="",
            code=code,
            n_causes=len(tallies),
            metrics=[m for i, m in enumerate(self.metrics) if bits >> i & 1],
            n_cases=sum(t.n_cases for t in tallies),
            n_results=sum(t.n_results for t in tallies),
            example_ids=[case_id for _, case_id in examples[:EXAMPLE_IDS]],
            by_design=code in BY_DESIGN_CODES,
        )


class SummaryBuilder:
    """A run's :class:`RunSummary` built in one pass over its cases, so they can stream past.

    `add` each case once, in eval-set order, then `build`. Per case it keeps a score per
    metric (twice: overall and in the case's category, for the bootstrap intervals) and nothing
    else that grows with the cases: unscored results are counted per distinct cause (a cause
    keeps at most :data:`EXAMPLE_IDS` case ids), so memory grows with the number of distinct
    causes, which is small unless every case fails its own way."""

    def __init__(
        self,
        metrics: tuple[MetricName, ...] = METRICS,
        thresholds: Mapping[MetricName, float] | None = None,
    ) -> None:
        self.metrics = metrics
        self.thresholds: dict[MetricName, float] = {
            **DEFAULT_FAIL_THRESHOLDS,
            **(thresholds or {}),
        }
        self._overall = {m: _MetricTally() for m in metrics}
        self._by_category: dict[str, dict[MetricName, _MetricTally]] = {}
        self._unscored = _UnscoredTally(metrics)
        self._n_cases = 0
        self._n_pipeline_errors = 0

    def add(self, case: CaseResult) -> None:
        """Count `case` (the next in eval-set order); nothing of it is kept."""
        self._n_cases += 1
        self._n_pipeline_errors += case.pipeline_error is not None
        category = self._by_category.get(case.category)
        if category is None:
            category = self._by_category[case.category] = {m: _MetricTally() for m in self.metrics}
        causes: dict[MetricName, Cause] = {}
        one: dict[Cause, Cause] = {}  # a cause met on several metrics is kept once, not per metric
        for metric, tally in self._overall.items():
            outcome = _outcome(case, metric)
            if isinstance(outcome, tuple):
                outcome = one.setdefault(outcome, outcome)
            tally.count(outcome)
            category[metric].count(outcome)
            if isinstance(outcome, tuple) and metric in case.metrics:  # judged, no score
                causes[metric] = outcome
        self._unscored.add(case.id, [(m, causes[m]) for m in self.metrics if m in causes])

    def build(self) -> RunSummary:
        """The summary of the cases added so far."""
        return RunSummary(
            metrics={m: t.summary(self.thresholds.get(m)) for m, t in self._overall.items()},
            by_category={
                category: {m: t.summary(self.thresholds.get(m)) for m, t in tallies.items()}
                for category, tallies in sorted(self._by_category.items())
            },
            n_cases=self._n_cases,
            n_pipeline_errors=self._n_pipeline_errors,
            unscored_groups=self._unscored.groups(),
        )


def summarize_run(
    cases: Iterable[CaseResult],
    metrics: tuple[MetricName, ...] = METRICS,
    thresholds: Mapping[MetricName, float] | None = None,
) -> RunSummary:
    """Summaries over all cases and per category (:class:`SummaryBuilder` fed `cases`)."""
    builder = SummaryBuilder(metrics, thresholds)
    for case in cases:
        builder.add(case)
    return builder.build()


def unscored_cause(reason: str, case_id: str) -> str:
    """`reason` without what is particular to its case (its quoted id), so equal causes group
    together (:func:`ragmeter.vocabulary.reasons.without_case_id`)."""
    return without_case_id(reason, case_id)


def group_unscored(
    cases: Iterable[CaseResult], metrics: tuple[MetricName, ...] = METRICS
) -> list[UnscoredGroup]:
    """Unscored results grouped by code and cause across metrics, most cases first.

    Per code, the :data:`MAX_CAUSES_PER_CODE` causes that left most results unscored have a
    group each and the others share one, so the groups are bounded by the number of codes
    whatever the number of failing cases (or of distinct error messages). A result counts as
    unscored when the case has no score on it (`CaseResult.outcome`): a re-judged case whose
    first judgement is unscored but two or more repeats scored counts as scored, as in the
    means."""
    tally = _UnscoredTally(metrics)
    for case in cases:
        tally.add(
            case.id,
            [
                (metric, _cause(case, result))
                for metric in metrics
                if (result := case.metrics.get(metric)) is not None
                and case.outcome(metric).score is None
            ],
        )
    return tally.groups()


def failed_cases(cases: list[CaseResult], metric: MetricName, threshold: float) -> list[CaseResult]:
    """Scored cases below `threshold` on `metric`, worst first."""
    scored = [c for c in cases if c.outcome(metric, threshold).failed]
    return sorted(scored, key=lambda c: (c.aggregate_score(metric), c.id))
