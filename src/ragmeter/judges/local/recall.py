"""Context recall: the share of the reference answer's points found in the contexts."""

from __future__ import annotations

from ..base import Evidence, MetricResult, PointVerdict
from ..rules import NO_CONTEXTS_NOTE, retrieval_unscored
from .alignment import align
from .view import SampleView


def score_context_recall(view: SampleView) -> MetricResult:
    """Split the ground truth into points; a point counts when some chunk supports it,
    numbers included."""
    metric = "context_recall"
    if (unscored := retrieval_unscored(view.sample, metric)) is not None:
        return unscored
    if not view.points:
        return MetricResult.unscored(metric, "ground truth has no statements")
    notes = []
    verdicts = []
    if not view.sample.contexts:
        notes.append(NO_CONTEXTS_NOTE)
        verdicts = [
            PointVerdict(point=p, supported=False, reason=NO_CONTEXTS_NOTE) for p in view.points
        ]
    for point in view.points if view.sample.contexts else []:
        found = align(point, view.index, view.settings)
        verdicts.append(
            PointVerdict(
                point=point,
                supported=found.label == "supported",
                chunk_index=found.chunk,
                span=found.span,
                evidence=found.evidence,
                reason=found.reason,
            )
        )
    score = sum(v.supported for v in verdicts) / len(verdicts)
    return MetricResult(metric=metric, score=score, evidence=Evidence(points=verdicts, notes=notes))
