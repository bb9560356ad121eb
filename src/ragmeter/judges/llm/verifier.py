"""Verifier mode: each claim checked against each evidence window with one output token.

The answer is split into claims by the usual claims call; then every (window, claim) pair is one
call that reads the evidence first and the claim last, capped at one output token, with token
log-probabilities. P(supported) = P(Yes) / (P(Yes) + P(No)) over the alternatives at that token;
a claim's probability is its best window's. Long chunks are cut into windows of whole sentences.

Evidence first lets llama.cpp's prompt cache (``cache_prompt``, on by default) reuse a window's
prefill for every claim of the case: the calls of one window run one after another, so they
land on the slot that already holds it. Where the endpoint gives no log-probabilities the
Yes/No token itself decides (0/1), and the client says so once in the run's warnings.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from string import Template

from ..._exceptions import JudgeError
from ...llm.client import ChatResponse
from ...llm.cost import Usage, count_tokens
from ...llm.logprobs import TokenLogprob, impossible_value
from ...text import sentence_spans
from ..base import (
    ClaimVerdict,
    Evidence,
    Lang,
    MetricName,
    MetricResult,
    PointVerdict,
    Sample,
    Span,
)
from ..rules import precheck
from .context import JudgeContext, Spend
from .faithfulness import split_claims
from .prompts import fence, load_prompt
from .schemas import FaithfulnessClaims

WINDOW_TOKENS = 320
"""Most tokens of evidence in one window (a longer chunk is cut between sentences)."""
YES = frozenset({"yes", "是"})
NO = frozenset({"no", "否"})
PROMPTS = ("verifier_system", "verifier")


@cache
def verifier_prompt_version() -> str:
    """A short hash of the verifier's prompt files."""
    digest = hashlib.sha256()
    for lang in ("en", "zh"):
        for name in PROMPTS:
            digest.update(f"{lang}/{name}\n{load_prompt(name, lang)}\n".encode())
    return digest.hexdigest()[:12]


def verifier_messages(evidence: str, claim: str, lang: Lang) -> list[dict[str, str]]:
    """System and user messages asking whether `evidence` supports `claim` (evidence first)."""
    body = Template(load_prompt("verifier", lang)).substitute(
        evidence=fence("EVIDENCE", evidence), claim=fence("CLAIM", claim)
    )
    return [
        {"role": "system", "content": load_prompt("verifier_system", lang)},
        {"role": "user", "content": body},
    ]


def evidence_windows(
    text: str, lang: Lang, max_tokens: int = WINDOW_TOKENS
) -> list[tuple[int, int]]:
    """(start, end) of the windows `text` is cut into: whole sentences, at most `max_tokens`
    each (a longer sentence is cut by characters); the whole text when it fits."""
    if count_tokens(text) <= max_tokens:
        return [(0, len(text))]
    windows: list[tuple[int, int]] = []
    start = end = None
    for s, e in sentence_spans(text, lang) or [(0, len(text))]:
        if start is not None and count_tokens(text[start:e]) <= max_tokens:
            end = e
            continue
        if start is not None and end is not None:
            windows.append((start, end))
        start, end = s, e
        while count_tokens(text[start:end]) > max_tokens:  # one sentence too long on its own
            step = max(1, (end - start) * max_tokens // count_tokens(text[start:end]))
            windows.append((start, start + step))
            start += step
    if start is not None and end is not None and end > start:
        windows.append((start, end))
    return windows


def yes_probability(text: str, tokens: Sequence[TokenLogprob] | None) -> tuple[float, bool] | None:
    """(P(Yes), graded) of a one-token reply: from the first token's alternatives when given
    and possible (graded), else 1.0 or 0.0 from the reply itself; None when it says neither."""
    if tokens and impossible_value(tokens[:1]) is None:
        first = tokens[0]
        mass = {"yes": 0.0, "no": 0.0}
        seen: set[str] = set()
        for token, logprob in (*first.top, (first.token, first.logprob)):
            if token in seen:
                continue
            seen.add(token)
            word = token.strip().lower()
            label = "yes" if word in YES else "no" if word in NO else None
            if label is not None:
                mass[label] += math.exp(logprob)
        total = mass["yes"] + mass["no"]
        if total > 0:
            return round(mass["yes"] / total, 4), True
    word = text.strip().strip(".。!！").lower()
    if word in YES:
        return 1.0, False
    if word in NO:
        return 0.0, False
    return None


@dataclass
class Support:
    """A claim's best window: P(supported), where it lies, and whether P is graded."""

    probability: float | None = None
    graded: bool = True
    chunk_index: int | None = None
    span: Span | None = None


async def verify_claims(
    ctx: JudgeContext, sample: Sample, claims: list[str], metric: str, spend: Spend
) -> list[Support]:
    """The best window of `sample.contexts` for each claim (None probability: no window's
    reply said Yes or No). As many windows run at once as the client sends calls at once,
    the claims of one window in turn: interleaved windows would evict each other's prefill
    from the server's slots."""
    client = ctx.caller.client
    windows = [
        (i, Span(start=s, end=e))
        for i, chunk in enumerate(sample.contexts)
        for s, e in evidence_windows(chunk, sample.lang)
    ]
    best = [Support() for _ in claims]
    replies: list[ChatResponse] = []
    lanes = asyncio.Semaphore(max(1, client.concurrency))

    async def one_window(chunk_index: int, span: Span) -> None:
        async with lanes:
            await window_claims(chunk_index, span)

    async def window_claims(chunk_index: int, span: Span) -> None:
        evidence = sample.contexts[chunk_index][span.start : span.end]
        for c, claim in enumerate(claims):
            reply = await client.complete(
                verifier_messages(evidence, claim, sample.lang),
                metric=metric,
                case_id=sample.case_id,
                salt=sample.repeat,
                max_tokens=1,
            )
            replies.append(reply)
            read = yes_probability(reply.text, reply.logprobs)
            if read is None:
                continue
            p, graded = read
            current = best[c]
            if current.probability is None or _better(p, chunk_index, span, current):
                best[c] = Support(p, graded and current.graded, chunk_index, span)
            elif not graded:
                current.graded = False

    outcomes = await asyncio.gather(
        *(one_window(i, span) for i, span in windows), return_exceptions=True
    )
    for reply in replies:
        spend.usage.add(Usage(1, reply.prompt_tokens, reply.completion_tokens))
        spend.raw_ids.append(reply.key)
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            raise outcome
    return best


def _better(p: float, chunk_index: int, span: Span, current: Support) -> bool:
    """Whether a window beats the claim's best so far: a higher P, or an equal P in an
    earlier window, so the evidence named does not depend on which reply came back first."""
    assert current.probability is not None and current.chunk_index is not None
    assert current.span is not None
    if p != current.probability:
        return p > current.probability
    return (chunk_index, span.start) < (current.chunk_index, current.span.start)


def _score(supports: list[Support], graded: bool) -> float:
    probabilities = [s.probability or 0.0 for s in supports]
    if graded and all(s.graded for s in supports):
        return sum(probabilities) / len(probabilities)
    return sum(p >= 0.5 for p in probabilities) / len(probabilities)


def _unreadable(supports: list[Support]) -> str | None:
    missing = sum(s.probability is None for s in supports)
    if not missing:
        return None
    return f"judge error: the verifier answered neither Yes nor No for {missing} of {len(supports)}"


async def verify_faithfulness(ctx: JudgeContext, sample: Sample) -> MetricResult:
    """Faithfulness in verifier mode: mean P(supported) over the claims when graded, else the
    share of claims with P(supported) >= 0.5."""
    metric: MetricName = "faithfulness"
    spend = Spend()
    claims = await split_claims(ctx, sample, spend)
    if isinstance(claims, MetricResult):
        return claims
    try:
        supports = await verify_claims(ctx, sample, claims, metric, spend)
    except JudgeError as exc:  # a failed call or the budget: unscored, as in the JSON mode
        return spend.unscored(metric, str(exc))
    if (problem := _unreadable(supports)) is not None:
        return spend.unscored(metric, problem)
    verdicts = []
    for claim, s in zip(claims, supports, strict=True):
        p = s.probability or 0.0
        verdicts.append(
            ClaimVerdict(
                claim=claim,
                verdict="supported" if p >= 0.5 else "not_verifiable",
                chunk_index=s.chunk_index,
                span=s.span,
                reason=f"P(Yes) {p:.2f} in its best window"
                if s.graded
                else f"answered {'Yes' if p >= 0.5 else 'No'} (no probabilities)",
                confidence=p if s.graded else None,
            )
        )
    score = _score(supports, metric in ctx.graded)
    return spend.scored(metric, score, Evidence(claims=verdicts, abstained=False))


async def verify_context_recall(ctx: JudgeContext, sample: Sample) -> MetricResult:
    """Context recall in verifier mode: the reference answer split into points by the claims
    call, each point verified against the chunks' windows."""
    metric: MetricName = "context_recall"
    if (early := precheck(sample, metric)) is not None:
        return early
    spend = Spend()
    reference = sample.model_copy(update={"answer": sample.ground_truth})
    split = await ctx.ask(reference, metric, "faithfulness_claims", FaithfulnessClaims)
    spend.add(split)
    if split.value is None:
        return spend.unscored(metric, split.error or "judge error")
    points = [c.strip() for c in split.value.claims if c.strip()]
    if not points:
        return spend.unscored(metric, "judge split the reference answer into no points")
    try:
        supports = await verify_claims(ctx, sample, points, metric, spend)
    except JudgeError as exc:
        return spend.unscored(metric, str(exc))
    if (problem := _unreadable(supports)) is not None:
        return spend.unscored(metric, problem)
    verdicts = [
        PointVerdict(
            point=point,
            supported=(s.probability or 0.0) >= 0.5,
            chunk_index=s.chunk_index if (s.probability or 0.0) >= 0.5 else None,
            reason=f"P(Yes) {s.probability:.2f} in its best window"
            if s.graded
            else f"answered {'Yes' if (s.probability or 0.0) >= 0.5 else 'No'} (no probabilities)",
            confidence=s.probability if s.graded else None,
        )
        for point, s in zip(points, supports, strict=True)
    ]
    score = _score(supports, metric in ctx.graded)
    return spend.scored(metric, score, Evidence(points=verdicts))


__all__ = [
    "WINDOW_TOKENS",
    "evidence_windows",
    "verifier_messages",
    "verifier_prompt_version",
    "verify_claims",
    "verify_context_recall",
    "verify_faithfulness",
    "yes_probability",
]
