"""How the P(supported) of an answer's claims combine into its faithfulness score.

A mean lets copied true claims hide a false one (three supported claims and one invented
score 0.75); the minimum lets one doubtful claim decide alone. The soft minimum sits between:
-t·log(mean(exp(-p/t))), near the minimum when one claim is far below the others and near the
mean when they agree. Which one the verifier mode uses was chosen by measuring, not fitted:
on the demo's hallucinating answers (bench/verdicts.py) the mean let one of 8 through, the soft
minimum none; on human-labelled answers (bench/verdict_combine.py) the three were within noise,
the mean slightly ahead (README).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Literal

Combiner = Literal["mean", "min", "soft_min"]
SOFT_MIN_TEMPERATURE = 0.1
"""t of the soft minimum: a claim 0.1 below the others weighs e times as much."""


def mean(ps: Sequence[float]) -> float:
    return sum(ps) / len(ps)


def soft_min(ps: Sequence[float], t: float = SOFT_MIN_TEMPERATURE) -> float:
    """-t·log(mean(exp(-p/t))): between min(ps) and mean(ps)."""
    low = min(ps)
    return low - t * math.log(sum(math.exp(-(p - low) / t) for p in ps) / len(ps))


COMBINERS: dict[Combiner, Callable[[Sequence[float]], float]] = {
    "mean": mean,
    "min": min,
    "soft_min": soft_min,
}
FAITHFULNESS_COMBINER: Combiner = "soft_min"
"""The verifier mode's choice for faithfulness (see the module docstring)."""


def combine(ps: Sequence[float], how: Combiner = FAITHFULNESS_COMBINER) -> float:
    """The claims' probabilities `ps` (not empty) combined into one score in 0..1."""
    return min(1.0, max(0.0, COMBINERS[how](ps)))


__all__ = ["COMBINERS", "FAITHFULNESS_COMBINER", "Combiner", "combine", "mean", "soft_min"]
