"""Faithfulness: the share of the answer's claims supported by the retrieved contexts.

Each claim is aligned with its best context window. Rules decide the clear cases: a number,
negation or opposite word that contradicts the window counts 0; a window holding nearly every
key word counts 1. Every other claim counts by its support (the share of its key words the
window holds, blended with sentence similarity in English), so the fine order of supports is
kept: fully when the rules call it supported (support at or above `support_threshold`),
scaled under `unsupported_credit` otherwise, so a claim short of support never reaches the
faithful bar alone. A rule that finds something short of a contradiction only lowers the
support a claim counts with: a number found nowhere in the contexts, a number not in the
matching passage or a name never mentioned cap it at the support that claims so judged are
as often supported with (fitted on shared/data/train, never on the evaluation sets; see
`LocalSettings`). Nothing here is fitted to the human labels bench/meta measures it against.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from ..base import ClaimVerdict, Evidence, Lang, MetricName, MetricResult
from ..rules import no_context_verdicts, precheck
from .alignment import Alignment, align
from .features import statement_keys
from .settings import LocalSettings
from .view import SampleView


@dataclass(frozen=True)
class ClaimEvidence:
    """A claim, its best alignment, and the credit the rules fixed (None: its support's)."""

    claim: str
    alignment: Alignment
    decided: float | None = None


def claim_evidence(view: SampleView) -> list[ClaimEvidence]:
    """Align every claim of the answer with the contexts (needs contexts)."""
    out = []
    for claim in view.claims:
        statement = view.checked(claim)
        found = align(statement, view.index, view.settings)
        guard = view.guard(claim)
        if guard is not None and found.label != "contradicted":
            read = align(guard, view.index, view.settings)
            if read.label == "contradicted":  # read with its question, the answer is wrong
                found = read
        decided = None
        if found.label == "contradicted":
            decided = 0.0
        elif (
            found.label == "supported"
            and found.lexical >= view.settings.lexical_sufficient
            and found.window is not None
            and not statement_keys(statement, view.lang) - found.window.keys
        ):
            decided = 1.0
        out.append(ClaimEvidence(claim, found, decided))
    return out


def claim_credit(item: ClaimEvidence, settings: LocalSettings, lang: Lang) -> float:
    """How much a claim counts toward the score (see the module docstring)."""
    if item.decided is not None:
        return item.decided
    found = item.alignment
    support = found.support
    if found.label == "supported":
        return support
    zh = lang == "zh"
    if found.hard:  # a number found nowhere in the contexts
        support = min(
            support, settings.unfound_number_support_zh if zh else settings.unfound_number_support
        )
    elif support >= settings.support_threshold:  # words there, but a number or name is not
        support = min(support, settings.unplaced_support_zh if zh else settings.unplaced_support)
    return min(support, settings.support_threshold) * (
        settings.unsupported_credit / settings.support_threshold
    )


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
    for item in claim_evidence(view):
        verdicts.append(_verdict(item))
        credits.append(claim_credit(item, view.settings, view.lang))
    evidence = Evidence(claims=verdicts, abstained=False, notes=notes)
    score = round(sum(credits) / len(credits), 6)
    return MetricResult(metric=metric, score=score, evidence=evidence)


def _verdict(item: ClaimEvidence) -> ClaimVerdict:
    """The claim's verdict, its evidence window and the support it rests on."""
    found = item.alignment
    return ClaimVerdict(
        claim=item.claim,
        verdict=found.label,
        chunk_index=found.chunk,
        span=found.span,
        evidence=found.evidence,
        reason=found.reason,
        confidence=0.0 if found.label == "contradicted" else round(found.support, 4),
    )


def _role_notes(roles: AbstractSet[str]) -> list[str]:
    notes = []
    if "abstention" in roles:
        notes.append("part of the answer abstains")
    if "hedge" in roles:
        notes.append("the answer deflects (hedges or points elsewhere)")
    return notes
