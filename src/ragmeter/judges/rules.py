"""Rules every judge applies the same way, so local and LLM verdicts mean the same thing.

The unscored reasons are the words reports count and group by; the retrieval metrics share
when they apply; context precision is RAGAS's rank-weighted average precision.
"""

from __future__ import annotations

from collections.abc import Sequence

from .base import Evidence, MetricName, MetricResult, Sample

NO_GROUND_TRUTH = "no ground truth"
OUT_OF_SCOPE = "not applicable: out-of-scope case"
REFUSAL = "refusal: answer has no claims"
EMPTY_ANSWER = "empty answer"
NO_CONTEXTS_NOTE = "no contexts were retrieved"
EMPTY_ANSWER_NOTE = "empty answer: the pipeline answered nothing, so it scores 0"

BY_DESIGN = frozenset({NO_GROUND_TRUTH, OUT_OF_SCOPE, REFUSAL})
"""Unscored reasons that belong to a metric's definition: the metric does not apply to the
case. Every other reason (pipeline error, judge error, budget) means it could not be scored."""


def empty_answer_result(metric: MetricName) -> MetricResult:
    """Faithfulness and answer relevancy of a blank answer: 0 under every judge.

    An empty answer is not a refusal (that says so in words) but a failed generation; scoring
    it 0 keeps a pipeline that answers nothing from passing a gate on the cases it did answer.
    """
    return MetricResult(metric=metric, score=0.0, evidence=Evidence(notes=[EMPTY_ANSWER_NOTE]))


def retrieval_not_applicable(sample: Sample) -> str | None:
    """Why context recall and precision cannot be scored for `sample`, or None when they can.

    An out-of-scope case has nothing to retrieve; without a reference answer there is nothing
    to measure retrieval against. Empty contexts on a case that has both score 0.
    """
    if sample.category == "out_of_scope":
        return OUT_OF_SCOPE
    if not sample.ground_truth.strip():
        return NO_GROUND_TRUTH
    return None


def retrieval_unscored(sample: Sample, metric: MetricName) -> MetricResult | None:
    """The unscored result of a retrieval metric that does not apply to `sample`, else None."""
    reason = retrieval_not_applicable(sample)
    return None if reason is None else MetricResult.unscored(metric, reason)


def retrieval_shortcut(sample: Sample, metric: MetricName) -> MetricResult | None:
    """A retrieval metric's result when no judging is needed: unscored when it does not
    apply, 0 when nothing was retrieved; None when the chunks must be judged."""
    if (unscored := retrieval_unscored(sample, metric)) is not None:
        return unscored
    if not sample.contexts:
        return MetricResult(metric=metric, score=0.0, evidence=Evidence(notes=[NO_CONTEXTS_NOTE]))
    return None


def average_precision(useful: Sequence[bool]) -> float:
    """Mean of precision@k over the ranks k (1-based) of useful chunks; 0 when none is."""
    hits = 0
    total = 0.0
    for k, is_useful in enumerate(useful, start=1):
        if is_useful:
            hits += 1
            total += hits / k
    return total / hits if hits else 0.0
