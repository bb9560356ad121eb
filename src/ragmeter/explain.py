"""Why a case scored as it did on a metric, in lines read from the judge's evidence (no
rescoring). Core, not presentation: comparisons, the pytest plugin and every report use it."""

from __future__ import annotations

from dataclasses import dataclass

from .judges.llm.graded import LLM_JUDGE_KINDS
from .results import CaseResult
from .safe_text import printable
from .vocabulary import JudgeFingerprint, MetricName


@dataclass(frozen=True)
class StrengthLabels:
    """What the number on each kind of verdict means for one judge, as reports name it: a
    claim's and a reference point's `confidence`, a chunk's `score`."""

    claim: str
    point: str
    chunk: str


def strength_labels(judge: JudgeFingerprint) -> StrengthLabels:
    """The LLM judge's numbers are P(supported) and P(useful) read from the verdict token's
    probabilities; the local judge's are support and usefulness scores of its evidence (a
    claim's fitted support probability, where weights are installed, is one too); other
    judges' by what the fields declare: a claim's or point's `confidence`, a chunk's
    usefulness."""
    if judge.kind in LLM_JUDGE_KINDS:
        return StrengthLabels(claim="P(supported)", point="P(supported)", chunk="P(useful)")
    if judge.kind == "local":
        return StrengthLabels(claim="support", point="support", chunk="usefulness")
    return StrengthLabels(claim="confidence", point="confidence", chunk="usefulness")


def strength_note(label: str | None, value: float | None) -> str:
    """` (label 0.12)`, or nothing when the verdict carries no number or its meaning is
    unknown."""
    return "" if label is None or value is None else f" ({label} {value:.2f})"


def short(text: str, limit: int = 110) -> str:
    """`text` on one line, printable, cut to `limit` characters."""
    text = printable(" ".join(text.split()))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def explain(
    case: CaseResult, metric: MetricName, judge: JudgeFingerprint | None = None
) -> list[str]:
    """Human-readable evidence lines for why `case` scored as it did on `metric`; with the
    `judge` that gave the verdicts, each with its number where it carries one."""
    result = case.metrics[metric]
    evidence = result.evidence
    labels = None if judge is None else strength_labels(judge)
    lines: list[str] = []
    if metric == "faithfulness":
        for claim in evidence.claims:
            if claim.verdict == "supported":
                continue
            where = (
                f" (closest: chunk {claim.chunk_index + 1}" if claim.chunk_index is not None else ""
            )
            if where and claim.evidence:
                where += f" «{short(claim.evidence, 80)}»)"
            elif where:
                where += ")"
            reason = f": {claim.reason}" if claim.reason else ""
            strength = strength_note(None if labels is None else labels.claim, claim.confidence)
            lines.append(
                f"{claim.verdict.replace('_', ' ')}{strength}: «{short(claim.claim)}»{where}"
                f"{reason}"
            )
    elif metric == "context_recall":
        for point in evidence.points:
            if not point.supported:
                reason = f": {point.reason}" if point.reason else ""
                strength = strength_note(None if labels is None else labels.point, point.confidence)
                lines.append(f"missing from contexts{strength}: «{short(point.point)}»{reason}")
    elif metric == "context_precision":
        for chunk in evidence.chunks:
            if not chunk.useful:
                reason = f": {chunk.reason}" if chunk.reason else ""
                strength = strength_note(None if labels is None else labels.chunk, chunk.score)
                lines.append(
                    f"chunk {chunk.index + 1} not useful{strength} «{short(chunk.preview, 80)}»"
                    f"{reason}"
                )
    lines.extend(evidence.notes)
    return lines
