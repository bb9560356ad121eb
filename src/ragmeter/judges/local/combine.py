"""The fitted combination of claim evidence: a logistic regression shipped as a JSON file.

Each claim gets a row of features (lexical support of its best window, coverage of its key
words anywhere in the contexts, words found nowhere, similarity, rule flags). The weights in
``weights/faithfulness.json`` turn the row into a support probability; the file records how
they were fitted (data sets, cross-validation, metrics). Inference is numpy only.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from .alignment import Alignment, ContextIndex, align
from .features import coverage, passage_keys, statement_keys
from .view import SampleView

FEATURES: tuple[str, ...] = (
    "support",
    "lexical",
    "coverage_all",
    "missing_words",
    "similarity",
    "has_similarity",
    "rule",
    "contradicted",
    "key_words",
    "answer_coverage",
    "zh",
)
"""Names of the claim features, in the order of the weight vector."""

WEIGHTS_FILE = "faithfulness.json"


@dataclass(frozen=True)
class ClaimEvidence:
    """A claim, its best alignment and its feature row."""

    claim: str
    alignment: Alignment
    features: tuple[float, ...]
    decided: float | None = None
    """Credit fixed by the rules: 0 for a conflict or an unknown number or name, 1 for a
    claim whose key words one window holds almost all of; None leaves it to the weights."""


def _all_keys(index: ContextIndex) -> frozenset[str]:
    return passage_keys("\n".join(index.contexts), index.lang)


def claim_features(
    claim: str, found: Alignment, index: ContextIndex, answer_coverage: float
) -> tuple[float, ...]:
    """The feature row of one claim (see :data:`FEATURES`)."""
    keys = statement_keys(claim, index.lang)
    everywhere = _all_keys(index)
    missing = len(keys - everywhere)
    sim = found.similarity
    return (
        found.support,
        found.lexical,
        coverage(keys, everywhere),
        min(missing, 5) / 5.0,
        0.0 if sim is None else max(0.0, sim),
        0.0 if sim is None else 1.0,
        1.0 if found.hard else 0.0,
        1.0 if found.label == "contradicted" else 0.0,
        min(len(keys), 30) / 30.0,
        answer_coverage,
        1.0 if index.lang == "zh" else 0.0,
    )


def claim_evidence(view: SampleView) -> list[ClaimEvidence]:
    """Align every claim of the answer and compute its features (needs contexts)."""
    index = view.index
    answer_keys = statement_keys(view.sample.answer, index.lang)
    answer_cov = coverage(answer_keys, _all_keys(index))
    out = []
    for claim in view.claims:
        found = align(claim, index, view.settings)
        decided = None
        if found.hard:
            decided = 0.0
        elif found.label == "supported" and found.lexical >= view.settings.lexical_sufficient:
            decided = 1.0
        features = claim_features(claim, found, index, answer_cov)
        out.append(ClaimEvidence(claim, found, features, decided))
    return out


class Combination:
    """Logistic regression over standardised claim features."""

    def __init__(self, spec: dict[str, Any]) -> None:
        if tuple(spec["features"]) != FEATURES:
            raise ValueError("weights were fitted on other features; refit them")
        self.spec = spec
        self.mean = [float(v) for v in spec["mean"]]
        self.scale = [float(v) or 1.0 for v in spec["scale"]]
        self.coef = [float(v) for v in spec["coef"]]
        self.intercept = float(spec["intercept"])
        self.low = float(spec.get("credit_low", 0.25))
        self.high = float(spec.get("credit_high", 0.75))
        self.threshold = float(spec.get("threshold", 0.5))

    @property
    def version(self) -> str:
        return str(self.spec.get("version", "unversioned"))

    def probability(self, features: tuple[float, ...]) -> float:
        """Support probability of a claim."""
        z = self.intercept + sum(
            c * (x - m) / s
            for c, x, m, s in zip(self.coef, features, self.mean, self.scale, strict=True)
        )
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def credit(self, probability: float) -> float:
        """How much a claim counts toward the score: 0 below `low`, 1 above `high`."""
        return min(1.0, max(0.0, (probability - self.low) / (self.high - self.low)))


@lru_cache(maxsize=1)
def load_combination() -> Combination | None:
    """The shipped weights, or None when the package has none (rules only)."""
    try:
        text = resources.files(__package__).joinpath("weights", WEIGHTS_FILE).read_text("utf-8")
    except (FileNotFoundError, ModuleNotFoundError, OSError):
        return None
    return Combination(json.loads(text))
