"""Errors of the LLM layer: :class:`~ragmeter.JudgeError` (a metric becomes unscored), or
:class:`~ragmeter.JudgeUnavailable` for an endpoint that can answer nothing (the run stops)."""

from __future__ import annotations

from collections.abc import Sequence

from .._exceptions import JudgeError, JudgeUnavailable
from .._util.redact import redact
from ..vocabulary.reasons import BUDGET_REASON


class LLMCallError(JudgeError):
    """An endpoint call failed for good (after retries, or with a non-retryable status)."""

    def __init__(self, message: str, *, status: int | None = None, body: str = "") -> None:
        self.status = status
        self.body = body
        super().__init__(message)


class ResponseFormatRejected(LLMCallError):
    """The endpoint refused the requested ``response_format`` (e.g. no json_schema support)."""


class CostLimitReached(JudgeError):
    """The budget cannot pay for another call; no further judge calls are made."""

    def __init__(self, max_cost: float) -> None:
        self.max_cost = max_cost
        super().__init__(f"{BUDGET_REASON}: --max-cost {max_cost:g} would be exceeded")


class InvalidReply(LLMCallError):
    """The endpoint answered with something unusable as a reply (too large, undecodable);
    not retried and not cached."""


class QuotaSpent(JudgeUnavailable):
    """The endpoint refused a call for quota or billing (429 ``insufficient_quota``, 402):
    no wait or retry lifts it, so the run stops."""


class OutOfPatience(JudgeUnavailable):
    """The endpoint rate limits for longer than the run's patience (`RetryPolicy.patience`)."""


def scrubbed(exc: LLMCallError | JudgeUnavailable, secrets: Sequence[str]) -> Exception:
    """`exc` itself when its message holds no secret (see :func:`~.redact.redact`), else a
    copy of it with them masked: an endpoint may echo the key in an error body, and a base URL
    named in a message may carry a password. Raise the copy ``from None``."""
    message = redact(str(exc), secrets)
    if isinstance(exc, LLMCallError):
        body = redact(exc.body, secrets)
        if message == str(exc) and body == exc.body:
            return exc
        return type(exc)(message, status=exc.status, body=body)
    return exc if message == str(exc) else JudgeUnavailable(message)
