"""Context precision: are the useful chunks ranked first (rank-weighted average precision)?

One call rates every ranked chunk useful or not against the reference answer; the score is
the mean of precision@k over the ranks k of useful chunks (0 when none is useful).
"""

from __future__ import annotations

from ..base import ChunkVerdict, Evidence, MetricResult, Sample
from .context import (
    NO_CONTEXTS,
    NO_GROUND_TRUTH,
    OUT_OF_SCOPE,
    JudgeContext,
    Spend,
    check_indices,
)
from .schemas import ContextPrecisionVerdicts

METRIC = "context_precision"


def average_precision(useful: list[bool]) -> float:
    """Mean of precision@k over the ranks k (1-based) of useful items; 0 when none is."""
    hits = 0
    total = 0.0
    for k, ok in enumerate(useful, start=1):
        if ok:
            hits += 1
            total += hits / k
    return total / hits if hits else 0.0


async def judge_context_precision(ctx: JudgeContext, sample: Sample) -> MetricResult:
    spend = Spend()
    if sample.category == "out_of_scope":
        return spend.unscored(METRIC, OUT_OF_SCOPE)
    if not sample.ground_truth.strip():
        return spend.unscored(METRIC, NO_GROUND_TRUTH)
    if not sample.contexts:
        return spend.unscored(METRIC, NO_CONTEXTS)
    n = len(sample.contexts)

    def check(out: ContextPrecisionVerdicts) -> str | None:
        return check_indices("chunk", "chunks", [c.index for c in out.chunks], n)

    res = await ctx.ask(
        sample, METRIC, "context_precision", ContextPrecisionVerdicts, check=check, n_chunks=n
    )
    spend.add(res)
    if res.value is None:
        return spend.unscored(METRIC, res.error or "judge error")
    by_index = {c.index: c for c in res.value.chunks}
    verdicts = [
        ChunkVerdict(
            index=i,
            useful=by_index[i].useful,
            reason=by_index[i].reason,
            preview=sample.contexts[i][:120],
        )
        for i in range(n)
    ]
    score = average_precision([v.useful for v in verdicts])
    return spend.scored(METRIC, score, Evidence(chunks=verdicts))
