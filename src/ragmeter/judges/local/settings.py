"""Thresholds and weights of the local judge (they enter its fingerprint)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

Share = Annotated[float, Field(ge=0.0, le=1.0)]
"""A threshold, weight or share: between 0 and 1."""
Cosine = Annotated[float, Field(ge=-1.0, le=1.0)]


class LocalSettings(BaseModel):
    """Decision thresholds of the local judge."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    support_threshold: Share = 0.6
    """Minimum support (lexical coverage, blended with similarity) for a supported statement."""
    lexical_weight: Share = 0.55
    """Weight of lexical coverage against embedding similarity when both are available."""
    sim_floor: Cosine = 0.25
    """Cosine similarity mapped to 0 (unrelated English sentences sit below it)."""
    sim_ceiling: Cosine = 0.8
    """Cosine similarity mapped to 1 (paraphrases sit above it)."""
    lexical_sufficient: Share = 0.85
    """Lexical support at which a window counts as support without consulting similarity."""
    sim_candidates: Annotated[int, Field(ge=0)] = 2
    """English: sentences embedded per statement whose lexical support is inconclusive."""
    pair_margin: Share = 0.03
    """How much better a two-sentence window must be to win over a single sentence."""
    negation_overlap: Share = 0.6
    """Key-word overlap above which a negation mismatch counts as a contradiction."""
    conflict_overlap: Share = 0.5
    """Key-word overlap above which a different number of the same kind contradicts."""
    unsupported_credit: Share = 0.4
    """Faithfulness: what a claim the rules do not call supported counts at the support
    threshold (below the 0.5 bar a one-claim answer must reach to count as faithful); under
    it, its support scaled by `unsupported_credit / support_threshold`, so the order of
    supports is kept."""
    unfound_number_support: Share = 0.33
    """Faithfulness, English: the support a claim with a number found nowhere in the contexts
    counts as at most (fitted on shared/data/train: train/fit_claim_credit.py)."""
    unfound_number_support_zh: Share = 0.0
    """The same for Chinese claims (lexical support only, so fitted apart)."""
    unplaced_support: Share = 0.56
    """Faithfulness, English: the support a claim the rules leave unverified although its
    words are there (a number not in the matching passage, a name never mentioned) counts as
    at most (fitted as `unfound_number_support`)."""
    unplaced_support_zh: Share = 0.44
    """The same for Chinese claims (too rare in the training sample: the value of both
    languages pooled)."""
    useful_threshold: Share = 0.55
    """Context precision: usefulness above which a chunk counts as useful."""
    typo_similarity: Share = 0.8
    """Answer relevancy: word similarity (trigrams / edit distance) at which words match."""
    full_coverage: Share = 0.75
    """Answer relevancy: key-word coverage that counts as fully addressing the question."""
    evasive_penalty: Share = 0.5
    """Answer relevancy: share of the score removed for a fully evasive answer."""
    refusal_cap: Share = 0.2
    """Answer relevancy: highest score of a refusal on an answerable question."""
    history_weight: Share = 0.5
    """Answer relevancy: weight of key words from the previous user turn (multi-turn)."""

    @model_validator(mode="after")
    def _similarity_range(self) -> LocalSettings:
        if self.sim_ceiling <= self.sim_floor:
            raise ValueError(
                f"sim_ceiling ({self.sim_ceiling}) must be above sim_floor ({self.sim_floor})"
            )
        return self

    def rescale(self, cosine: float) -> float:
        """Map a cosine similarity onto [0, 1] between `sim_floor` and `sim_ceiling`."""
        span = self.sim_ceiling - self.sim_floor
        return min(1.0, max(0.0, (cosine - self.sim_floor) / span))

    def inconclusive(self, lexical: float) -> bool:
        """Whether similarity could change the verdict on this lexical support."""
        reachable = self.lexical_weight * lexical + (1 - self.lexical_weight)
        return reachable >= self.support_threshold and lexical < self.lexical_sufficient

    def blend(self, lexical: float, cosine: float | None) -> float:
        """Support from lexical coverage and, when available, similarity."""
        if cosine is None:
            return lexical
        return self.lexical_weight * lexical + (1 - self.lexical_weight) * self.rescale(cosine)
