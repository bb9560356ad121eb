"""Faithfulness: the share of the answer's claims supported by the retrieved contexts.

Each claim counts by its fitted support probability (fully above a high mark, not at all
below a low one), so the score stays a share of supported claims with finer grades between.
"""

from __future__ import annotations

from ..base import ClaimVerdict, Evidence, MetricResult
from ..rules import EMPTY_ANSWER, REFUSAL
from .combine import ClaimEvidence, Combination, claim_evidence, load_combination
from .view import SampleView


def score_faithfulness(view: SampleView) -> MetricResult:
    """Split the answer into claims and check each against its best evidence window."""
    metric = "faithfulness"
    if not view.sample.answer.strip():
        return MetricResult.unscored(metric, EMPTY_ANSWER)
    roles = {s.role for s in view.segments}
    if not view.claims:
        if "abstention" in roles:
            evidence = Evidence(abstained=True, notes=["the answer abstains"])
            return MetricResult.unscored(metric, REFUSAL, evidence=evidence)
        return MetricResult.unscored(
            metric, "answer has no claims", evidence=Evidence(notes=_role_notes(roles))
        )
    notes = _role_notes(roles)
    verdicts: list[ClaimVerdict] = []
    credits: list[float] = []
    if not view.sample.contexts:
        notes.append("no contexts were retrieved, so no claim can be verified")
        verdicts = [
            ClaimVerdict(claim=c, verdict="not_verifiable", reason="no contexts were retrieved")
            for c in view.claims
        ]
    else:
        combination = load_combination()
        for item in claim_evidence(view):
            verdict, credit = _verdict(item, combination)
            verdicts.append(verdict)
            credits.append(credit)
    if not credits:
        credits = [1.0 if v.verdict == "supported" else 0.0 for v in verdicts]
    evidence = Evidence(claims=verdicts, abstained=False, notes=notes)
    score = round(sum(credits) / len(credits), 6)
    return MetricResult(metric=metric, score=score, evidence=evidence)


def _verdict(item: ClaimEvidence, combination: Combination | None) -> tuple[ClaimVerdict, float]:
    """The claim's verdict and how much it counts: rules decide conflicts, unknown numbers or
    names and near-complete lexical support; otherwise the fitted support probability does
    (the rules' threshold when no weights are installed)."""
    found = item.alignment
    verdict = ClaimVerdict(
        claim=item.claim,
        verdict=found.label,
        chunk_index=found.chunk,
        span=found.span,
        evidence=found.evidence,
        reason=found.reason,
        confidence=0.0 if found.label == "contradicted" else round(found.support, 4),
    )
    if combination is None or item.decided is not None:
        return verdict, 1.0 if found.label == "supported" else 0.0
    probability = combination.probability(item.features)
    verdict.confidence = round(probability, 4)
    supported = probability >= combination.threshold
    if supported != (found.label == "supported"):
        verdict.verdict = "supported" if supported else "not_verifiable"
        verdict.reason = (
            f"{found.reason}; support probability {probability:.2f} from all the evidence"
        )
    return verdict, combination.credit(probability)


def _role_notes(roles: set[str]) -> list[str]:
    notes = []
    if "abstention" in roles:
        notes.append("part of the answer abstains")
    if "hedge" in roles:
        notes.append("the answer deflects (hedges or points elsewhere)")
    return notes
