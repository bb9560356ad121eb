"""Judges: the shared interface and the built-in judges."""

from .base import (
    GENERATION_METRICS,
    METRICS,
    RETRIEVAL_METRICS,
    ChunkVerdict,
    ClaimVerdict,
    Evidence,
    Judge,
    JudgeBase,
    JudgeFingerprint,
    MetricName,
    MetricResult,
    PointVerdict,
    ReasonCode,
    Sample,
    Span,
    Turn,
)

__all__ = [
    "GENERATION_METRICS",
    "METRICS",
    "RETRIEVAL_METRICS",
    "ChunkVerdict",
    "ClaimVerdict",
    "Evidence",
    "Judge",
    "JudgeBase",
    "JudgeFingerprint",
    "MetricName",
    "MetricResult",
    "PointVerdict",
    "ReasonCode",
    "Sample",
    "Span",
    "Turn",
]
