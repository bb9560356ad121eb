"""Faithfulness and context recall from one-token verdicts (``verifier`` mode).

The answer (or the reference answer) is split into statements without any call, by the local
judge's rule-based splitter (English and Chinese); a statement too short to stand alone (an
answer such as "30 days.") is read with its question. Each statement is verified against the
evidence windows that share most of its words (`verifier.WINDOWS_PER_STATEMENT`; one when a
window holds it nearly word for word), one Yes/No token each; its P(supported) is its best
window's. The calls are grouped by window, so a window's prefill serves every statement
checked against it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..._exceptions import JudgeError
from ...text import normalize
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
from ..local.claims import split_claims as split_statements
from ..rules import no_context_verdicts, precheck
from .calibration import calibrate
from .combine import FAITHFULNESS_COMBINER, Combiner, combine
from .context import JudgeContext, Spend
from .verifier import (
    Messages,
    ask_in_groups,
    pick_windows,
    sample_windows,
    statement_messages,
    statement_question,
)

SHORT_WORDS = 4
"""An English statement of fewer words than this ("30 days.") is read with its question."""
SHORT_CHARS = 5
"""The same for Chinese, in characters (punctuation and spaces aside)."""


def is_short(statement: str, lang: Lang) -> bool:
    """Whether `statement` is too short to be checked without its question ("30 days.")."""
    if lang == "zh":
        return len(normalize(statement)) < SHORT_CHARS
    return len(statement.split()) < SHORT_WORDS


def with_question(question: str, statement: str, lang: Lang) -> str:
    """A short answer made into a statement with its question."""
    if lang == "zh":
        return f"“{question.strip()}”的答案：{statement.strip()}"
    return f'The answer to "{question.strip()}" is: {statement.strip()}'


def statements(text: str, question: str, lang: Lang) -> list[str]:
    """The statements of `text` to verify, short ones read with their question; a text with
    content but no statement the splitter keeps is one statement."""
    found = split_statements(text, lang)
    return [with_question(question, s, lang) if is_short(s, lang) else s for s in found]


@dataclass
class Support:
    """A statement's best window: P(supported), where it lies, and whether P is graded."""

    probability: float | None = None
    graded: bool = True
    chunk_index: int | None = None
    span: Span | None = None


async def verify_statements(
    ctx: JudgeContext, sample: Sample, texts: list[str], metric: MetricName, spend: Spend
) -> list[Support]:
    """Each statement's best window of `sample.contexts` (None probability: no window's reply
    said Yes or No)."""
    windows = sample_windows(sample)
    question = statement_question(sample)
    groups: dict[int, list[tuple[int, Messages]]] = {}
    for s, text in enumerate(texts):
        for w in pick_windows(text, windows, sample.lang):
            messages = statement_messages(windows[w].text, question, text, sample.lang)
            groups.setdefault(w, []).append((s, messages))
    order = sorted(groups)
    verdicts = await ask_in_groups(
        ctx, sample, metric, [[m for _, m in groups[w]] for w in order], spend
    )
    best = [Support() for _ in texts]
    for w, replies in zip(order, verdicts, strict=True):
        window = windows[w]
        for (s, _), read in zip(groups[w], replies, strict=True):
            if read is None:
                continue
            p, graded = read
            if graded and ctx.calibration is not None:
                p = calibrate(p, ctx.calibration)
            current = best[s]
            if current.probability is None or p > current.probability:
                # windows are visited in order: a tie keeps the earlier window
                best[s] = Support(p, graded and current.graded, window.chunk_index, window.span)
            elif not graded:
                current.graded = False
    return best


def _unreadable(supports: list[Support]) -> str | None:
    missing = sum(s.probability is None for s in supports)
    if not missing:
        return None
    return f"judge error: the verifier answered neither Yes nor No for {missing} of {len(supports)}"


def _reason(s: Support) -> str:
    p = s.probability or 0.0
    if s.graded:
        return f"P(Yes) {p:.2f} in its best window"
    return f"answered {'Yes' if p >= 0.5 else 'No'} (no probabilities)"


def _score(supports: list[Support], graded: bool, how: Combiner) -> float:
    probabilities = [s.probability or 0.0 for s in supports]
    if graded and all(s.graded for s in supports):
        return combine(probabilities, how)
    return sum(p >= 0.5 for p in probabilities) / len(probabilities)


async def verify_faithfulness(ctx: JudgeContext, sample: Sample) -> MetricResult:
    """Faithfulness from one-token verdicts: the claims' P(supported) combined
    (`combine.FAITHFULNESS_COMBINER`) when graded, else the share of claims with
    P(supported) >= 0.5."""
    metric: MetricName = "faithfulness"
    if (early := precheck(sample, metric)) is not None:
        return early
    claims = statements(sample.answer, sample.question, sample.lang)
    if (early := precheck(sample, metric, refused=not claims)) is not None:
        early.evidence.claims = no_context_verdicts(claims) if claims else []
        return early
    spend = Spend()
    try:
        supports = await verify_statements(ctx, sample, claims, metric, spend)
    except JudgeError as exc:  # a failed call or the budget: unscored, as in the JSON mode
        return spend.unscored(metric, str(exc))
    if (problem := _unreadable(supports)) is not None:
        return spend.unscored(metric, problem)
    verdicts = [
        ClaimVerdict(
            claim=claim,
            verdict="supported" if (s.probability or 0.0) >= 0.5 else "not_verifiable",
            chunk_index=s.chunk_index,
            span=s.span,
            reason=_reason(s),
            confidence=s.probability if s.graded else None,
        )
        for claim, s in zip(claims, supports, strict=True)
    ]
    score = _score(supports, metric in ctx.graded, FAITHFULNESS_COMBINER)
    return spend.scored(metric, score, Evidence(claims=verdicts, abstained=False))


async def verify_context_recall(ctx: JudgeContext, sample: Sample) -> MetricResult:
    """Context recall from one-token verdicts: the reference answer split the same way, each
    point verified against the chunks' windows."""
    metric: MetricName = "context_recall"
    if (early := precheck(sample, metric)) is not None:
        return early
    points = statements(sample.ground_truth, sample.question, sample.lang) or [
        with_question(sample.question, sample.ground_truth, sample.lang)
    ]
    spend = Spend()
    try:
        supports = await verify_statements(ctx, sample, points, metric, spend)
    except JudgeError as exc:
        return spend.unscored(metric, str(exc))
    if (problem := _unreadable(supports)) is not None:
        return spend.unscored(metric, problem)
    verdicts = [
        PointVerdict(
            point=point,
            supported=(s.probability or 0.0) >= 0.5,
            chunk_index=s.chunk_index if (s.probability or 0.0) >= 0.5 else None,
            reason=_reason(s),
            confidence=s.probability if s.graded else None,
        )
        for point, s in zip(points, supports, strict=True)
    ]
    score = _score(supports, metric in ctx.graded, "mean")  # the share of points found
    return spend.scored(metric, score, Evidence(points=verdicts))


__all__ = [
    "Support",
    "is_short",
    "statements",
    "verify_context_recall",
    "verify_faithfulness",
    "verify_statements",
    "with_question",
]
