"""Graded verdicts: P(verdict) of each binary judgement, read from the reply that made it.

The probability comes from the token log-probabilities of the very call that wrote the verdict
(no extra calls or tokens); see :mod:`ragmeter.llm.logprobs`. A metric scored from graded
verdicts averages the probabilities instead of the 0/1 verdicts; when any verdict of a reply
has no readable probability the metric keeps its 0/1 score, so the two are never mixed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from pydantic import BaseModel

from ...llm.logprobs import field_probabilities
from ...llm.structured import StructuredResult
from ..base import JudgeFingerprint, MetricResult

CLAIM_LABELS = {
    "supported": "supported",
    "contradicted": "contradicted",
    "not_verifiable": "not_verifiable",
}
BOOLEAN_LABELS = {"true": "true", "false": "false"}
LLM_JUDGE_KINDS = frozenset({"openai", "llama"})
"""Fingerprint kinds of the LLM judge, whose claim and point `confidence` is P(supported) read
from the reply that gave the verdict."""

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


def graded_metrics(fingerprint: JudgeFingerprint) -> frozenset[str] | None:
    """The metrics an LLM judge with `fingerprint` scores from verdict probabilities where the
    endpoint gives them (its `graded` setting; the fingerprint names it only when not empty);
    None for other judges (the local judge's confidences are evidence strengths, and its
    faithfulness neither a share of verdicts nor a mean of them)."""
    if fingerprint.kind not in LLM_JUDGE_KINDS:
        return None
    graded = fingerprint.params.get("graded")
    return frozenset(str(m) for m in graded) if isinstance(graded, list) else frozenset()


def supported_verdicts(result: MetricResult) -> list[tuple[bool, float | None]] | None:
    """(supported, P(supported)) for each claim of a faithfulness result or reference point of
    a context-recall one, in order (P None where the verdict carries no probability); None for
    the other metrics, whose scores are not shares of such verdicts."""
    if result.metric == "faithfulness":
        return [(c.verdict == "supported", c.confidence) for c in result.evidence.claims]
    if result.metric == "context_recall":
        return [(p.supported, p.confidence) for p in result.evidence.points]
    return None


__all__ = [
    "BOOLEAN_LABELS",
    "CLAIM_LABELS",
    "LLM_JUDGE_KINDS",
    "graded_metrics",
    "soft_average_precision",
    "supported_verdicts",
    "verdict_probabilities",
]
