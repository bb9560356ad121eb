"""Errors of the LLM layer; all are :class:`~ragmeter.JudgeError` so a metric becomes unscored."""

from __future__ import annotations

from .._exceptions import JudgeError


class LLMCallError(JudgeError):
    """An endpoint call failed for good (after retries, or with a non-retryable status)."""

    def __init__(self, message: str, *, status: int | None = None, body: str = "") -> None:
        self.status = status
        self.body = body
        super().__init__(message)


class ResponseFormatRejected(LLMCallError):
    """The endpoint refused the requested ``response_format`` (e.g. no json_schema support)."""


BUDGET_REASON = "judge budget reached"
"""How every result left unjudged by ``max_cost`` starts its unscored reason."""


class CostLimitReached(JudgeError):
    """The budget cannot pay for another call; no further judge calls are made."""

    def __init__(self, max_cost: float) -> None:
        self.max_cost = max_cost
        super().__init__(f"{BUDGET_REASON}: --max-cost {max_cost:g} would be exceeded")


class InvalidReply(LLMCallError):
    """The endpoint answered with something unusable as a reply (too large, undecodable);
    not retried and not cached."""
