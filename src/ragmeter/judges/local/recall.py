"""Context recall: the share of the reference answer's points found in the contexts."""

from __future__ import annotations

from ..base import Evidence, MetricName, MetricResult, PointVerdict
from ..rules import precheck
from .alignment import align
from .view import SampleView


def score_context_recall(view: SampleView) -> MetricResult:
    """Split the ground truth into points; a point counts when some chunk supports it,
    numbers included."""
    metric: MetricName = "context_recall"
    if (early := precheck(view.sample, metric)) is not None:
        return early
    if not view.points:
        return MetricResult.unscored(
            metric, "ground truth has no statements", reason_code="no_points"
        )
    verdicts = []
    for point in view.points:
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
    return MetricResult(metric=metric, score=score, evidence=Evidence(points=verdicts))
