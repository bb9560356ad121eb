"""The fitted combination of claim evidence: a logistic regression shipped as a JSON file.

Each claim gets a row of features: support and lexical coverage of its best window, coverage
of its key words anywhere in the contexts, words missing there and from the best window, a
minimal-edit flag (one or two words of an otherwise covered window differ), MiniLM similarity
with the closest window (English), numbers found only elsewhere, names found nowhere. The
weights in ``weights/faithfulness.json`` turn the row into a support probability; the file
records how they were fitted (data sets, cross-validation, metrics). Inference is pure Python.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from .alignment import Alignment, ContextIndex, align
from .features import coverage, statement_keys
from .view import SampleView

FEATURES: tuple[str, ...] = (
    "support",
    "lexical",
    "coverage_all",
    "missing_words",
    "window_missing",
    "near_miss",
    "similarity",
    "has_similarity",
    "misplaced_number",
    "missing_name",
    "key_words",
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
    return index.all_keys


def claim_features(claim: str, found: Alignment, index: ContextIndex) -> tuple[float, ...]:
    """The feature row of one claim (see :data:`FEATURES`)."""
    keys = statement_keys(claim, index.lang)
    everywhere = _all_keys(index)
    missing = len(keys - everywhere)
    in_window = len(keys - found.window.keys) if found.window else len(keys)
    window_cov = coverage(keys, found.window.keys) if found.window else 0.0
    sim = found.best_similarity
    return (
        found.support,
        found.lexical,
        coverage(keys, everywhere),
        min(missing, 5) / 5.0,
        min(in_window, 5) / 5.0,
        # a minimal edit: nearly every word of the best window, but one or two differ
        1.0 if 1 <= in_window <= 2 and window_cov >= 0.7 else 0.0,
        0.0 if sim is None else max(0.0, sim),
        0.0 if sim is None else 1.0,
        min(found.misplaced_numbers, 2) / 2.0,
        min(found.missing_names, 2) / 2.0,
        min(len(keys), 30) / 30.0,
        1.0 if index.lang == "zh" else 0.0,
    )


def claim_evidence(view: SampleView) -> list[ClaimEvidence]:
    """Align every claim of the answer and compute its features (needs contexts)."""
    index = view.index
    out = []
    for claim in view.claims:
        found = align(claim, index, view.settings)
        features = claim_features(claim, found, index)
        decided = None
        if found.hard:
            decided = 0.0
        elif (
            found.label == "supported"
            and found.lexical >= view.settings.lexical_sufficient
            and features[FEATURES.index("window_missing")] == 0.0
        ):
            decided = 1.0
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
