"""Context precision from one-token verdicts (``verifier`` mode).

Each ranked chunk is asked, evidence first, whether it helps answer the question (the reference
answer shown as what a correct answer says), one Yes/No token per evidence window; a chunk's
P(useful) is its best window's. The score is rank-weighted average precision: graded (each chunk
useful with its probability, `graded.soft_average_precision`) when the metric is graded, else
over the chunks with P(useful) >= 0.5.
"""

from __future__ import annotations

from ..._exceptions import JudgeError
from ..base import ChunkVerdict, Evidence, MetricName, MetricResult, Sample
from ..rules import PREVIEW_CHARS, average_precision, precheck
from .context import JudgeContext, Spend
from .graded import soft_average_precision
from .verifier import ask_in_groups, chunk_messages, question_block, sample_windows

METRIC: MetricName = "context_precision"


async def verify_context_precision(ctx: JudgeContext, sample: Sample) -> MetricResult:
    if (early := precheck(sample, METRIC)) is not None:
        return early
    spend = Spend()
    windows = sample_windows(sample)
    question = question_block(sample)
    groups = [[chunk_messages(w.text, question, sample.ground_truth, sample.lang)] for w in windows]
    try:
        replies = await ask_in_groups(ctx, sample, METRIC, groups, spend)
    except JudgeError as exc:
        return spend.unscored(METRIC, str(exc))
    n = len(sample.contexts)
    best: list[float | None] = [None] * n
    graded = True
    for window, (read,) in zip(windows, replies, strict=True):
        if read is None:
            continue
        p, window_graded = read
        graded = graded and window_graded
        current = best[window.chunk_index]
        best[window.chunk_index] = p if current is None else max(current, p)
    missing = sum(p is None for p in best)
    if missing:
        return spend.unscored(
            METRIC, f"judge error: the verifier answered neither Yes nor No for {missing} of {n}"
        )
    ps = [p or 0.0 for p in best]
    verdicts = [
        ChunkVerdict(
            index=i,
            useful=p >= 0.5,
            score=p if graded else None,
            reason=f"P(useful) {p:.2f}"
            if graded
            else f"answered {'Yes' if p >= 0.5 else 'No'} (no probabilities)",
            preview=sample.contexts[i][:PREVIEW_CHARS],
        )
        for i, p in enumerate(ps)
    ]
    if METRIC in ctx.graded and graded:
        score = soft_average_precision(ps)
    else:
        score = average_precision([v.useful for v in verdicts])
    return spend.scored(METRIC, score, Evidence(chunks=verdicts))
