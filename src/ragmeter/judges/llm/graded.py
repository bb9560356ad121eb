"""Graded verdicts: P(verdict) of each binary judgement, read from the reply that made it.

The probability comes from the token log-probabilities of the very call that wrote the verdict
(no extra calls or tokens); see :mod:`ragmeter.clients.logprobs`. A metric scored from graded
verdicts averages the probabilities instead of the 0/1 verdicts; when any verdict of a reply
has no readable probability the metric keeps its 0/1 score, so the two are never mixed.
"""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel

from ...clients.logprobs import field_probabilities
from ...clients.structured import StructuredResult
from ...vocabulary.precision import soft_average_precision

CLAIM_LABELS = {
    "supported": "supported",
    "contradicted": "contradicted",
    "not_verifiable": "not_verifiable",
}
BOOLEAN_LABELS = {"true": "true", "false": "false"}

M = TypeVar("M", bound=BaseModel)


def verdict_probabilities(
    result: StructuredResult[M], field: str, labels: dict[str, str], positive: str, n: int
) -> list[float] | None:
    """P(`positive`) for each of the `n` verdicts of `result` (reply order), or None when the
    reply's token probabilities do not give all of them."""
    found = field_probabilities(result.text, result.logprobs, field, labels)
    if len(found) != n or any(p is None for p in found):
        return None
    return [round(p[positive], 4) for p in found if p is not None]


__all__ = [
    "BOOLEAN_LABELS",
    "CLAIM_LABELS",
    "soft_average_precision",
    "verdict_probabilities",
]
