"""Context precision: are the useful chunks ranked first (rank-weighted average precision)?

One call rates every ranked chunk useful or not against the reference answer; the score is
the mean of precision@k over the ranks k of useful chunks (0 when none is useful).
"""

from __future__ import annotations

from ..base import ChunkVerdict, Evidence, MetricName, MetricResult, Sample
from ..rules import PREVIEW_CHARS, average_precision, precheck
from .context import (
    JudgeContext,
    Spend,
    check_indices,
)
from .graded import BOOLEAN_LABELS, soft_average_precision, verdict_probabilities
from .schemas import ContextPrecisionVerdicts

METRIC: MetricName = "context_precision"


async def judge_context_precision(ctx: JudgeContext, sample: Sample) -> MetricResult:
    if (early := precheck(sample, METRIC)) is not None:
        return early
    spend = Spend()
    n = len(sample.contexts)

    def fix(out: ContextPrecisionVerdicts) -> None:
        if sorted(c.index for c in out.chunks) == list(range(1, n + 1)):
            for c in out.chunks:
                c.index -= 1

    def check(out: ContextPrecisionVerdicts) -> str | None:
        return check_indices("chunk", "chunks", [c.index for c in out.chunks], n)

    res = await ctx.ask(
        sample,
        METRIC,
        "context_precision",
        ContextPrecisionVerdicts,
        check=check,
        fix=fix,
        n_chunks=n,
    )
    spend.add(res)
    if res.value is None:
        return spend.unscored(METRIC, res.error or "judge error")
    replies = res.value.chunks
    probabilities = verdict_probabilities(res, "useful", BOOLEAN_LABELS, "true", len(replies))
    p_useful = (
        {c.index: p for c, p in zip(replies, probabilities, strict=True)} if probabilities else {}
    )
    by_index = {c.index: c for c in replies}
    verdicts = [
        ChunkVerdict(
            index=i,
            useful=by_index[i].useful,
            score=p_useful.get(i),
            reason=by_index[i].reason,
            preview=sample.contexts[i][:PREVIEW_CHARS],
        )
        for i in range(n)
    ]
    if METRIC in ctx.graded and p_useful:
        score = soft_average_precision([p_useful[i] for i in range(n)])
    else:
        score = average_precision([v.useful for v in verdicts])
    return spend.scored(METRIC, score, Evidence(chunks=verdicts))
