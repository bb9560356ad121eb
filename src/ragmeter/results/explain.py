"""Why a case scored as it did on a metric, in lines read from the judge's evidence (no
rescoring). Core, not presentation: comparisons, the pytest plugin and every report use it."""

from __future__ import annotations

from dataclasses import dataclass

from .._util.safe_text import printable
from ..vocabulary import (
    ChunkVerdict,
    ClaimVerdict,
    JudgeFingerprint,
    MetricName,
    MetricResult,
    PointVerdict,
)
from ._case import CaseResult


@dataclass(frozen=True)
class StrengthLabels:
    """What the number on each kind of verdict means for one judge, as reports name it: a
    claim's and a reference point's `confidence`, a chunk's `score`."""

    claim: str
    point: str
    chunk: str


def strength_labels(judge: JudgeFingerprint) -> StrengthLabels:
    """What the judge declared its numbers to be (:class:`~ragmeter.vocabulary.JudgeTraits`):
    the LLM judge's are P(supported) and P(useful) read from the verdict token's
    probabilities, the local judge's support and usefulness scores of its evidence; a judge
    that declares nothing has a claim's or point's `confidence` and a chunk's usefulness."""
    traits = judge.traits
    return StrengthLabels(
        claim=traits.claim_strength, point=traits.point_strength, chunk=traits.chunk_strength
    )


def strength_note(label: str | None, value: float | None) -> str:
    """` (label 0.12)`, or nothing when the verdict carries no number or its meaning is
    unknown."""
    return "" if label is None or value is None else f" ({label} {value:.2f})"


def short(text: str, limit: int = 110) -> str:
    """`text` on one line, printable, cut to `limit` characters."""
    text = printable(" ".join(text.split()))
    return text if len(text) <= limit else text[: limit - 1] + "…"


_VERDICT_RANK = {"contradicted": 0, "not_verifiable": 1, "supported": 2}


def _claim_weight(claim: ClaimVerdict) -> tuple[int, float]:
    """Order of claims by how much they pull a score down: contradicted, then not verifiable,
    then supported; within each, the lowest number first."""
    strength = 1.0 if claim.confidence is None else claim.confidence
    return _VERDICT_RANK.get(claim.verdict, 1), strength


def _point_weight(point: PointVerdict) -> tuple[int, float]:
    return int(point.supported), 1.0 if point.confidence is None else point.confidence


def _claim_line(claim: ClaimVerdict, labels: StrengthLabels | None) -> str:
    """`not verifiable (support 0.21): «claim» (closest: chunk 1 «…»): reason`."""
    where = f" (closest: chunk {claim.chunk_index + 1}" if claim.chunk_index is not None else ""
    if where and claim.evidence:
        where += f" «{short(claim.evidence, 80)}»)"
    elif where:
        where += ")"
    reason = f": {claim.reason}" if claim.reason else ""
    strength = strength_note(None if labels is None else labels.claim, claim.confidence)
    return f"{claim.verdict.replace('_', ' ')}{strength}: «{short(claim.claim)}»{where}{reason}"


def _point_line(point: PointVerdict, labels: StrengthLabels | None) -> str:
    reason = f": {point.reason}" if point.reason else ""
    strength = strength_note(None if labels is None else labels.point, point.confidence)
    state = "missing from contexts" if not point.supported else "weakly found in contexts"
    return f"{state}{strength}: «{short(point.point)}»{reason}"


def _chunk_line(chunk: ChunkVerdict, labels: StrengthLabels | None) -> str:
    reason = f": {chunk.reason}" if chunk.reason else ""
    strength = strength_note(None if labels is None else labels.chunk, chunk.score)
    return f"chunk {chunk.index + 1} not useful{strength} «{short(chunk.preview, 80)}»{reason}"


def shortfall(result: MetricResult, pass_mark: float, judge: JudgeFingerprint | None = None) -> str:
    """The one line that says what pulled `result` under `pass_mark`, read from the evidence
    its judge recorded: the weakest claim with its number and the judge's reason (a claim
    judged supported but on a support under the pass mark says so), the reference point no
    chunk holds, the first useless chunk and whether it is ranked above a useful one, or the
    judge's notes."""
    evidence = result.evidence
    labels = None if judge is None else strength_labels(judge)
    metric = result.metric
    if metric == "faithfulness" and evidence.claims:
        claim = min(evidence.claims, key=_claim_weight)
        if claim.verdict != "supported":
            return _claim_line(claim, labels)
        name = "confidence" if labels is None else labels.claim
        text = f"claim «{short(claim.claim)}»"
        reason = f": {claim.reason}" if claim.reason else ": the judge recorded no reason"
        if claim.confidence is not None and claim.confidence < pass_mark:
            return (
                f"{text} has {name} {claim.confidence:.2f}, under the {pass_mark:.2f} pass "
                f"mark{reason}"
            )
        return f"weakest {text} is supported{strength_note(name, claim.confidence)}{reason}"
    if metric == "context_recall" and evidence.points:
        return _point_line(min(evidence.points, key=_point_weight), labels)
    if metric == "context_precision" and evidence.chunks:
        ranked = sorted(evidence.chunks, key=lambda c: c.index)
        useless = next((c for c in ranked if not c.useful), None)
        if useless is not None:
            useful_after = [c.index + 1 for c in ranked if c.useful and c.index > useless.index]
            line = _chunk_line(useless, labels)
            if useful_after:
                return f"{line} (ranked above useful chunk {useful_after[0]})"
            if not any(c.useful for c in ranked):
                return f"{line} (no retrieved chunk is useful)"
            return line
    if metric == "answer_relevancy":  # its whole account: what the answer answers, the notes
        asked = evidence.generated_questions[:1]
        parts = [f"the answer reads as answering «{short(q, 90)}»" for q in asked]
        parts += evidence.notes
        if parts:
            return short("; ".join(parts), 300)
    elif evidence.notes:
        return short(evidence.notes[0], 300)
    return "the judge recorded no evidence for this score"


def explain(
    case: CaseResult,
    metric: MetricName,
    judge: JudgeFingerprint | None = None,
    *,
    pass_mark: float | None = None,
) -> list[str]:
    """Human-readable evidence lines for why `case` scored as it did on `metric`; with the
    `judge` that gave the verdicts, each with its number where it carries one. With the
    metric's `pass_mark`, a case under it leads with :func:`shortfall` (what pulled it down,
    and why), and the lines after it do not repeat that one."""
    result = case.metrics[metric]
    evidence = result.evidence
    labels = None if judge is None else strength_labels(judge)
    score = case.outcome(metric).score
    under = pass_mark is not None and score is not None and score < pass_mark
    lead = shortfall(result, pass_mark, judge) if under and pass_mark is not None else ""
    lines: list[str] = []
    if metric == "faithfulness":
        lines += [_claim_line(c, labels) for c in evidence.claims if c.verdict != "supported"]
    elif metric == "context_recall":
        lines += [_point_line(p, labels) for p in evidence.points if not p.supported]
    elif metric == "context_precision":
        lines += [_chunk_line(c, labels) for c in evidence.chunks if not c.useful]
    lines.extend(evidence.notes)
    if not lead:
        return lines
    return [lead, *(line for line in lines if line not in lead)]  # the lead may extend one
