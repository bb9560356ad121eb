"""Context recall: the share of the reference answer's points found in the retrieved chunks.

One call splits the reference answer into points and attributes each to chunk indices.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..base import Evidence, MetricName, MetricResult, PointVerdict, Sample
from ..rules import precheck
from .context import JudgeContext, Spend, check_chunk_refs, counted_from_one
from .graded import BOOLEAN_LABELS, verdict_probabilities
from .schemas import ContextRecallPoints

METRIC: MetricName = "context_recall"


async def judge_context_recall(ctx: JudgeContext, sample: Sample) -> MetricResult:
    if (early := precheck(sample, METRIC)) is not None:
        return early
    spend = Spend()
    n = len(sample.contexts)

    def check(out: ContextRecallPoints) -> str | None:
        if not [p for p in out.points if p.point.strip()]:
            return "judge split the reference answer into no points"
        return check_chunk_refs([i for p in out.points for i in p.chunk_indices], n)

    def fix(out: ContextRecallPoints) -> None:
        if counted_from_one([i for p in out.points for i in p.chunk_indices], n):
            for p in out.points:
                p.chunk_indices = [i - 1 for i in p.chunk_indices]

    res = await ctx.ask(sample, METRIC, "context_recall", ContextRecallPoints, check=check, fix=fix)
    spend.add(res)
    if res.value is None:
        return spend.unscored(METRIC, res.error or "judge error")
    replies = res.value.points
    probabilities: Sequence[float | None] = verdict_probabilities(
        res, "supported", BOOLEAN_LABELS, "true", len(replies)
    ) or [None] * len(replies)
    points = [
        PointVerdict(
            point=p.point.strip(),
            supported=p.supported,
            chunk_index=p.chunk_indices[0] if p.supported and p.chunk_indices else None,
            reason=p.reason,
            confidence=probability,
        )
        for p, probability in zip(replies, probabilities, strict=True)
        if p.point.strip()
    ]
    graded = [p.confidence for p in points]
    if METRIC in ctx.graded and all(c is not None for c in graded):
        score = sum(c for c in graded if c is not None) / len(points)
    else:
        score = sum(p.supported for p in points) / len(points)
    return spend.scored(METRIC, score, Evidence(points=points))
