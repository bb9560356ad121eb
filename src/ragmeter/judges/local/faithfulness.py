"""Faithfulness: the share of the answer's claims supported by the retrieved contexts.

Each claim counts by its fitted support probability (fully above a high mark, not at all
below a low one), so the score stays a share of supported claims with finer grades between.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet

from ..base import ClaimVerdict, Evidence, MetricName, MetricResult
from ..rules import no_context_verdicts, precheck
from .combine import ClaimEvidence, Combination, claim_evidence, load_combination
from .view import SampleView


def score_faithfulness(view: SampleView) -> MetricResult:
    """Split the answer into claims and check each against its best evidence window."""
    metric: MetricName = "faithfulness"
    roles = {s.role for s in view.segments}
    if (early := precheck(view.sample, metric, refused=not view.claims)) is not None:
        if early.reason_code == "refusal":  # no claims: a refusal, a deflection, courtesies
            abstains = "abstention" in roles
            early.evidence.abstained = abstains or None
            early.evidence.notes = ["the answer abstains"] if abstains else _role_notes(roles)
        elif early.reason_code == "no_contexts":
            early.evidence.claims = no_context_verdicts(view.claims)
            early.evidence.notes = [*_role_notes(roles), *early.evidence.notes]
        return early
    notes = _role_notes(roles)
    verdicts: list[ClaimVerdict] = []
    credits: list[float] = []
    combination = load_combination()
    for item in claim_evidence(view):
        verdict, credit = _verdict(item, combination)
        verdicts.append(verdict)
        credits.append(credit)
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


def _role_notes(roles: AbstractSet[str]) -> list[str]:
    notes = []
    if "abstention" in roles:
        notes.append("part of the answer abstains")
    if "hedge" in roles:
        notes.append("the answer deflects (hedges or points elsewhere)")
    return notes
