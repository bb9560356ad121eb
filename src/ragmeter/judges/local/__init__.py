"""The offline local judge: four metrics from lexical, numeric and embedding evidence."""

from ..rules import average_precision
from .abstention import is_abstention, is_filler, is_hedge
from .claims import Segment, is_refusal, segment, split_claims
from .judge import LocalJudge
from .settings import LocalSettings

__all__ = [
    "LocalJudge",
    "LocalSettings",
    "Segment",
    "average_precision",
    "is_abstention",
    "is_filler",
    "is_hedge",
    "is_refusal",
    "segment",
    "split_claims",
]
