"""Faithfulness: the share of the answer's claims that the contexts support.

Two calls: claims are split from the answer, then all claims are verified at once against the
contexts (given once). Contradicted and not-verifiable claims both count as unsupported.
"""

from __future__ import annotations

from ..base import ClaimVerdict, Evidence, MetricName, MetricResult, Sample, Span
from ..rules import no_context_verdicts, precheck
from .context import (
    JudgeContext,
    Spend,
    check_chunk_refs,
    check_indices,
    counted_from_one,
)
from .graded import CLAIM_LABELS, verdict_probabilities
from .prompts import fence
from .schemas import FaithfulnessClaims, FaithfulnessVerdicts

METRIC: MetricName = "faithfulness"


async def split_claims(ctx: JudgeContext, sample: Sample, spend: Spend) -> list[str] | MetricResult:
    """The answer's claims, or the result that settles faithfulness before any verdict (shared
    by the JSON and verifier modes): the edge cases of `rules.precheck` (an empty answer
    before any call; once split, an answer with no claims, or claims with no contexts), and a
    failed split (unscored)."""
    if (early := precheck(sample, METRIC)) is not None:
        return early
    split = await ctx.ask(sample, METRIC, "faithfulness_claims", FaithfulnessClaims)
    spend.add(split)
    if split.value is None:
        return spend.unscored(METRIC, split.error or "judge error")
    claims = [c.strip() for c in split.value.claims if c.strip()]
    if (early := precheck(sample, METRIC, refused=not claims)) is not None:
        early.evidence.claims = no_context_verdicts(claims) if claims else []
        return spend.settle(early)
    return claims


async def judge_faithfulness(ctx: JudgeContext, sample: Sample) -> MetricResult:
    spend = Spend()
    claims = await split_claims(ctx, sample, spend)
    if isinstance(claims, MetricResult):
        return claims

    n_chunks = len(sample.contexts)

    def fix(out: FaithfulnessVerdicts) -> None:
        claims_from_one = sorted(v.claim_index for v in out.verdicts) == list(
            range(1, len(claims) + 1)
        )
        if claims_from_one:
            for v in out.verdicts:
                v.claim_index -= 1
        refs = [v.chunk_index for v in out.verdicts]
        if counted_from_one(refs, n_chunks, likely=claims_from_one):
            for v in out.verdicts:
                v.chunk_index = None if v.chunk_index is None else v.chunk_index - 1

    def check(out: FaithfulnessVerdicts) -> str | None:
        indices = [v.claim_index for v in out.verdicts]
        return check_indices("claim", "claims", indices, len(claims)) or check_chunk_refs(
            [v.chunk_index for v in out.verdicts], n_chunks
        )

    numbered = "\n".join(f"{i}. {claim}" for i, claim in enumerate(claims))
    verify = await ctx.ask(
        sample,
        METRIC,
        "faithfulness_verify",
        FaithfulnessVerdicts,
        check=check,
        fix=fix,
        claims=fence("CLAIMS", numbered),
        n_claims=len(claims),
    )
    spend.add(verify)
    if verify.value is None:
        return spend.unscored(METRIC, verify.error or "judge error")
    replies = verify.value.verdicts
    probabilities = verdict_probabilities(
        verify, "verdict", CLAIM_LABELS, "supported", len(replies)
    )
    p_supported = (
        {v.claim_index: p for v, p in zip(replies, probabilities, strict=True)}
        if probabilities is not None
        else {}
    )
    by_index = {v.claim_index: v for v in replies}
    verdicts = []
    for i, claim in enumerate(claims):
        v = by_index[i]
        span = None
        if v.chunk_index is not None and v.quote:
            start = sample.contexts[v.chunk_index].find(v.quote)
            if start >= 0:
                span = Span(start=start, end=start + len(v.quote))
        verdicts.append(
            ClaimVerdict(
                claim=claim,
                verdict=v.verdict,
                chunk_index=v.chunk_index,
                span=span,
                evidence=v.quote,
                reason=v.reason,
                confidence=p_supported.get(i),
            )
        )
    evidence = Evidence(claims=verdicts, abstained=False)
    if METRIC in ctx.graded and p_supported:
        return spend.scored(METRIC, sum(p_supported.values()) / len(verdicts), evidence)
    supported = sum(v.verdict == "supported" for v in verdicts)
    return spend.scored(METRIC, supported / len(verdicts), evidence)
