"""Did the pipeline and judge keep the expectations of `ragmeter vary`? (`ragmeter vary check`)

Reads a run over a varied eval set, pairs every variant with its origin (by the origin id in
the variant's metadata) and checks each expected direction, metric by metric:

- ``same``: the variant's score is within the tolerance of the origin's;
- ``up_or_same`` / ``down_or_same``: it did not fall / rise by more than the tolerance;
- ``reranked`` (context precision of a shuffle): it is within the tolerance of the precision the
  origin's per-chunk verdicts give in the shuffled order;
- ``abstain``: the variant's answer relevancy is at least 1 - tolerance (an out-of-scope case
  scores 1 when the answer declines, 0 when it answers).

A pair where either score is missing is *unscored* (with the reason), never held. A pair is
*not checked* when the run cannot test it: the origin is not in the run, or the run's contexts
are not the variation (a pipeline that retrieves its own chunks ignores an inserted distractor
or a new order; run such a set without a pipeline), or the origin's precision is not an
average precision of its chunk verdicts. Scores are the ones reports count (the mean of a
re-judged case's judgements).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, cast

from pydantic import BaseModel

from .._exceptions import ResultsError
from ..results import RESULTS_FILE, CaseResult, RunResult, load_run
from ..vocabulary import METRICS, MetricName
from ..vocabulary.precision import average_precision, soft_average_precision
from . import DIRECTIONS, KINDS, META_KEY, Direction

DEFAULT_TOLERANCE = 0.1

Status = Literal["held", "broke", "unscored", "not_checked"]

DIRECTION_LABELS: dict[Direction, str] = {
    "same": "same",
    "up_or_same": "up or same",
    "down_or_same": "down or same",
    "reranked": "follows the chunks",
    "abstain": "abstains",
}


class PairOutcome(BaseModel):
    """One variant, one metric: what was expected and what happened."""

    variant: str
    origin: str
    kind: str
    metric: MetricName
    expected: Direction
    status: Status
    origin_score: float | None = None
    variant_score: float | None = None
    predicted: float | None = None
    """For `reranked`: the precision the origin's chunk verdicts give in the variant's order."""
    reason: str = ""
    """Why a pair is unscored or not checked."""


class Row(BaseModel):
    """One kind and metric: the expectation and how many pairs held it."""

    kind: str
    metric: MetricName
    expected: Direction
    pairs: int = 0
    held: int = 0
    broke: int = 0
    unscored: int = 0
    not_checked: int = 0


class VaryCheck(BaseModel):
    """The outcome of checking a run over a varied eval set."""

    source: str
    tolerance: float
    rows: list[Row]
    outcomes: list[PairOutcome]
    variants: int
    """Variant cases found in the run."""

    @property
    def broken(self) -> list[PairOutcome]:
        return [o for o in self.outcomes if o.status == "broke"]

    def exit_code(self, fail_on_broken: bool) -> int:
        """1 when asked to fail on a broken expectation and one broke, else 0."""
        return 1 if fail_on_broken and self.broken else 0


def check_run(
    run: RunResult, *, tolerance: float = DEFAULT_TOLERANCE, source: str = ""
) -> VaryCheck:
    """Check every variant of `run` against its origin (module docstring). A run with no
    variant, or a variant whose metadata is not what `ragmeter vary` writes, is a
    :class:`ResultsError` naming the case."""
    if not 0 <= tolerance < 1:
        raise ResultsError(f"tolerance {tolerance}: give a number in [0, 1)")
    by_id = {case.id: case for case in run.cases}
    outcomes: list[PairOutcome] = []
    variants = 0
    for case in run.cases:
        spec = case.metadata.get(META_KEY)
        if spec is None:
            continue
        variants += 1
        origin_id, kind, expect, change = _read_spec(source, case, spec)
        origin = by_id.get(origin_id)
        for metric in METRICS:
            if metric not in expect or metric not in case.metrics:
                continue  # no expectation, or the run did not compute the metric
            outcome = PairOutcome(
                variant=case.id,
                origin=origin_id,
                kind=kind,
                metric=metric,
                expected=expect[metric],
                status="not_checked",
            )
            _judge_pair(outcome, case, origin, change, tolerance)
            outcomes.append(outcome)
    if not variants:
        raise ResultsError(
            f"{source or 'the run'}: no variants (cases with metadata '{META_KEY}'): run an "
            "eval set written by `ragmeter vary`"
        )
    return VaryCheck(
        source=source,
        tolerance=tolerance,
        rows=_rows(outcomes),
        outcomes=outcomes,
        variants=variants,
    )


def _read_spec(
    source: str, case: CaseResult, spec: Any
) -> tuple[str, str, dict[MetricName, Direction], dict[str, Any]]:
    where = f"{source or 'the run'}: case '{case.id}': metadata '{META_KEY}'"
    if not isinstance(spec, dict):
        raise ResultsError(f"{where}: not an object; it is written by `ragmeter vary`")
    origin, kind = spec.get("origin"), spec.get("kind")
    expect, change = spec.get("expect", {}), spec.get("change", {})
    if not isinstance(origin, str) or not origin:
        raise ResultsError(f"{where}: 'origin' must name the case it was made from")
    if kind not in KINDS:
        raise ResultsError(f"{where}: 'kind' {kind!r} is not one of {', '.join(KINDS)}")
    if not isinstance(expect, dict) or not isinstance(change, dict):
        raise ResultsError(f"{where}: 'expect' and 'change' must be objects")
    for metric, direction in expect.items():
        if metric not in METRICS:
            raise ResultsError(
                f"{where}: 'expect' names '{metric}', not one of {', '.join(METRICS)}"
            )
        if direction not in DIRECTIONS:
            raise ResultsError(
                f"{where}: 'expect.{metric}' {direction!r} is not one of {', '.join(DIRECTIONS)}"
            )
    return origin, kind, cast(dict[MetricName, Direction], expect), change


def _judge_pair(
    outcome: PairOutcome,
    variant: CaseResult,
    origin: CaseResult | None,
    change: dict[str, Any],
    tolerance: float,
) -> None:
    """Fill in the status (and scores, reason) of one pair."""
    metric = outcome.metric
    outcome.variant_score = variant.aggregate_score(metric)
    if outcome.expected == "abstain":  # absolute: the origin does not matter
        if outcome.variant_score is None:
            outcome.status = "unscored"
            outcome.reason = f"variant unscored: {_unscored_reason(variant, metric)}"
        else:
            held = outcome.variant_score >= 1 - tolerance - 1e-9
            outcome.status = "held" if held else "broke"
        return
    if origin is None:
        outcome.reason = f"the origin '{outcome.origin}' is not in the run"
        return
    outcome.origin_score = origin.aggregate_score(metric)
    problem = _not_applied(outcome.kind, variant, origin, change)
    if problem:
        outcome.reason = problem
        return
    missing = {
        side: _unscored_reason(case, metric)
        for side, case, score in (
            ("origin", origin, outcome.origin_score),
            ("variant", variant, outcome.variant_score),
        )
        if score is None
    }
    if missing:
        outcome.status = "unscored"
        if len(set(missing.values())) == 1:
            sides = " and ".join(missing)
            outcome.reason = f"{sides} unscored: {next(iter(missing.values()))}"
        else:
            outcome.reason = "; ".join(f"{side} unscored: {why}" for side, why in missing.items())
        return
    before, after = outcome.origin_score, outcome.variant_score
    assert before is not None and after is not None
    slack = tolerance + 1e-9
    if outcome.expected == "reranked":
        predicted = _reranked_precision(origin, change.get("order"))
        if predicted is None:
            outcome.reason = (
                "the origin's context precision is not an average precision of its chunk "
                "verdicts, so the shuffled order predicts nothing"
            )
            return
        outcome.predicted = predicted
        held = abs(after - predicted) <= slack
    elif outcome.expected == "same":
        held = abs(after - before) <= slack
    elif outcome.expected == "up_or_same":
        held = after >= before - slack
    else:  # down_or_same
        held = after <= before + slack
    outcome.status = "held" if held else "broke"


def _not_applied(kind: str, variant: CaseResult, origin: CaseResult, change: dict[str, Any]) -> str:
    """Why the run's contexts for `variant` are not the origin's with the variation, or ''."""
    if variant.pipeline_error is not None:
        return ""  # unscored, with the pipeline's error as the reason
    hint = (
        "the run's contexts for the variant are not the origin's {}: a pipeline that "
        "retrieves its own chunks ignores them; run the varied set without a pipeline"
    )
    if kind == "distractor":
        at = change.get("inserted_at")
        ctx = variant.contexts
        if not (
            isinstance(at, int)
            and 0 <= at < len(ctx)
            and len(ctx) == len(origin.contexts) + 1
            and ctx[:at] + ctx[at + 1 :] == origin.contexts
        ):
            return hint.format("with the distractor inserted")
    if kind == "shuffle":
        order = change.get("order")
        if not _is_permutation(order, len(origin.contexts)) or variant.contexts != [
            origin.contexts[j] for j in cast(list[int], order)
        ]:
            return hint.format("in the shuffled order")
    return ""


def _is_permutation(order: Any, n: int) -> bool:
    return (
        isinstance(order, list)
        and all(isinstance(j, int) and not isinstance(j, bool) for j in order)
        and sorted(order) == list(range(n))
    )


def _reranked_precision(origin: CaseResult, order: Any) -> float | None:
    """Context precision of the origin's chunk verdicts re-ranked into `order`: average
    precision of its useful flags, or soft average precision of its P(useful) when that is
    what its score is; None when neither reproduces the origin's own score."""
    result = origin.metrics.get("context_precision")
    score = origin.aggregate_score("context_precision")
    if result is None or score is None or not _is_permutation(order, len(origin.contexts)):
        return None
    chunks = sorted(result.evidence.chunks, key=lambda chunk: chunk.index)
    if [chunk.index for chunk in chunks] != list(range(len(origin.contexts))):
        return None
    order = cast(list[int], order)
    flags = [chunk.useful for chunk in chunks]
    if abs(average_precision(flags) - score) <= 1e-6:
        return average_precision([flags[j] for j in order])
    probabilities = [chunk.score for chunk in chunks]
    if all(p is not None for p in probabilities):
        p = cast(list[float], probabilities)
        if abs(soft_average_precision(p) - score) <= 1e-3:
            return soft_average_precision([p[j] for j in order])
    return None


def _unscored_reason(case: CaseResult, metric: MetricName) -> str:
    if case.pipeline_error is not None:
        return f"pipeline error: {case.pipeline_error}"
    result = case.metrics.get(metric)
    return (result.unscored_reason if result else None) or "no score"


def _rows(outcomes: Sequence[PairOutcome]) -> list[Row]:
    rows: dict[tuple[str, MetricName, Direction], Row] = {}
    for outcome in outcomes:
        key = (outcome.kind, outcome.metric, outcome.expected)
        row = rows.setdefault(
            key, Row(kind=outcome.kind, metric=outcome.metric, expected=outcome.expected)
        )
        row.pairs += 1
        setattr(row, outcome.status, getattr(row, outcome.status) + 1)
    kind_rank: dict[str, int] = {kind: i for i, kind in enumerate(KINDS)}
    metric_rank = {metric: i for i, metric in enumerate(METRICS)}
    return sorted(
        rows.values(),
        key=lambda r: (kind_rank.get(r.kind, len(KINDS)), metric_rank[r.metric], r.expected),
    )


def load_check(path: str | Path, *, tolerance: float = DEFAULT_TOLERANCE) -> VaryCheck:
    """:func:`check_run` on the run at `path` (a directory or its results.json)."""
    path = Path(path)
    run = load_run(path)
    shown = path / RESULTS_FILE if path.is_dir() else path
    return check_run(run, tolerance=tolerance, source=str(shown))


def reasons(outcomes: Sequence[PairOutcome], status: Status) -> list[tuple[str, int, list[str]]]:
    """The reasons of the pairs with `status`, most common first: (reason, pairs, variant ids)."""
    counts: Counter[str] = Counter()
    ids: dict[str, list[str]] = {}
    for outcome in outcomes:
        if outcome.status != status:
            continue
        counts[outcome.reason] += 1
        ids.setdefault(outcome.reason, [])
        if outcome.variant not in ids[outcome.reason]:
            ids[outcome.reason].append(outcome.variant)
    return [(reason, n, ids[reason]) for reason, n in counts.most_common()]


__all__ = [
    "DEFAULT_TOLERANCE",
    "DIRECTION_LABELS",
    "PairOutcome",
    "Row",
    "VaryCheck",
    "check_run",
    "load_check",
    "reasons",
]
