"""Context precision as every judge scores it: RAGAS's rank-weighted average precision of the
chunks' usefulness, and its soft form over P(useful). The definition lives with the vocabulary
so judges score it and the variant check re-ranks it the same way."""

from __future__ import annotations

from collections.abc import Sequence


def average_precision(useful: Sequence[bool]) -> float:
    """Mean of precision@k over the ranks k (1-based) of useful chunks; 0 when none is."""
    hits = 0
    total = 0.0
    for k, is_useful in enumerate(useful, start=1):
        if is_useful:
            hits += 1
            total += hits / k
    return total / hits if hits else 0.0


def soft_average_precision(probabilities: Sequence[float]) -> float:
    """Average precision with each chunk useful with its probability: the expected hits above
    rank k over k, weighted by P(useful at k). Equals average precision for 0/1 inputs."""
    hits = 0.0
    total = 0.0
    for k, p in enumerate(probabilities, start=1):
        hits += p
        total += p * hits / k
    mass = sum(probabilities)
    return total / mass if mass > 0 else 0.0


__all__ = ["average_precision", "soft_average_precision"]
