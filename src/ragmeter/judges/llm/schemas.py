"""What the LLM judge is asked to return, one pydantic model per call.

Class names are the JSON-schema names sent to the endpoint (and what the fake server keys on).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from ..base import ClaimLabel


class FaithfulnessClaims(BaseModel):
    """Claims split from the answer."""

    claims: list[str]


class ClaimCheck(BaseModel):
    """The verdict on one numbered claim."""

    claim_index: int
    verdict: ClaimLabel
    chunk_index: int | None = None
    quote: str = ""
    reason: str = ""


class FaithfulnessVerdicts(BaseModel):
    """One verdict per claim, in claim order."""

    verdicts: list[ClaimCheck]


class AnswerRelevancy(BaseModel):
    """Questions written back from the answer, and whether it is evasive."""

    resolved_question: str = ""
    noncommittal: bool
    questions: list[str] = Field(default_factory=list)


class ChunkRating(BaseModel):
    """Whether one ranked chunk is useful."""

    index: int
    useful: bool
    reason: str = ""


class ContextPrecisionVerdicts(BaseModel):
    """One rating per retrieved chunk, in rank order."""

    chunks: list[ChunkRating]


class RecallPoint(BaseModel):
    """One point of the reference answer and the chunks that contain it."""

    point: str
    supported: bool
    chunk_indices: list[int] = Field(default_factory=list)
    reason: str = ""


class ContextRecallPoints(BaseModel):
    """The reference answer split into points, each attributed."""

    points: list[RecallPoint]


SCHEMA_NAMES: tuple[str, ...] = (
    "FaithfulnessClaims",
    "FaithfulnessVerdicts",
    "AnswerRelevancy",
    "ContextPrecisionVerdicts",
    "ContextRecallPoints",
)
Verdict = Literal["supported", "contradicted", "not_verifiable"]
