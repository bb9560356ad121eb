"""Faithfulness: the share of the answer's claims supported by the retrieved contexts."""

from __future__ import annotations

from ..base import ClaimVerdict, Evidence, MetricResult
from .alignment import align
from .view import SampleView


def score_faithfulness(view: SampleView) -> MetricResult:
    """Split the answer into claims and check each against its best evidence window."""
    metric = "faithfulness"
    if not view.sample.answer.strip():
        return MetricResult.unscored(metric, "empty answer")
    roles = {s.role for s in view.segments}
    if not view.claims:
        if "abstention" in roles:
            evidence = Evidence(abstained=True, notes=["the answer abstains"])
            return MetricResult.unscored(metric, "refusal: answer has no claims", evidence=evidence)
        return MetricResult.unscored(
            metric, "answer has no claims", evidence=Evidence(notes=_role_notes(roles))
        )
    notes = _role_notes(roles)
    verdicts = []
    if not view.sample.contexts:
        notes.append("no contexts were retrieved, so no claim can be verified")
        verdicts = [
            ClaimVerdict(claim=c, verdict="not_verifiable", reason="no contexts were retrieved")
            for c in view.claims
        ]
    else:
        for claim in view.claims:
            found = align(claim, view.index, view.settings)
            verdicts.append(
                ClaimVerdict(
                    claim=claim,
                    verdict=found.label,
                    chunk_index=found.chunk,
                    span=found.span,
                    evidence=found.evidence,
                    reason=found.reason,
                    confidence=0.0 if found.label == "contradicted" else round(found.support, 4),
                )
            )
    supported = sum(v.verdict == "supported" for v in verdicts)
    evidence = Evidence(claims=verdicts, abstained=False, notes=notes)
    return MetricResult(metric=metric, score=supported / len(verdicts), evidence=evidence)


def _role_notes(roles: set[str]) -> list[str]:
    notes = []
    if "abstention" in roles:
        notes.append("part of the answer abstains")
    if "hedge" in roles:
        notes.append("the answer deflects (hedges or points elsewhere)")
    return notes
