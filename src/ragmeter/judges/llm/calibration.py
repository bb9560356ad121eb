"""Platt scaling of a verifier's P(supported): P' = sigmoid(a·logit(P) + b).

Two numbers per model, fitted by bench/verdict_calibration.py on held-back pairs of the
training data only (never an evaluation set) and shipped in ``calibration.json``, keyed by the
model file's sha256 and valid for the statement prompt they were fitted with. A monotone map:
it changes what a probability claims, not which claim ranks above which.
"""

from __future__ import annotations

import json
import math
from functools import cache
from importlib import resources

from .verifier import statement_prompt_version

CALIBRATION_FILE = "calibration.json"


def calibrate(p: float, ab: tuple[float, float]) -> float:
    """`p` mapped through sigmoid(a·logit(p) + b), rounded like the verdicts it replaces."""
    a, b = ab
    q = min(max(p, 1e-4), 1 - 1e-4)
    return round(1 / (1 + math.exp(-(a * math.log(q / (1 - q)) + b))), 4)


@cache
def shipped_calibration(model_sha256: str) -> tuple[float, float] | None:
    """The (a, b) shipped for the model file with this digest, when fitted with the current
    statement prompt; None otherwise."""
    path = resources.files(__package__).joinpath(CALIBRATION_FILE)
    if not path.is_file():
        return None
    entry = json.loads(path.read_text(encoding="utf-8")).get(model_sha256)
    if not entry or entry.get("prompts") != statement_prompt_version():
        return None
    return float(entry["a"]), float(entry["b"])


__all__ = ["CALIBRATION_FILE", "calibrate", "shipped_calibration"]
