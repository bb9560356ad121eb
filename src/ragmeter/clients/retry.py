"""Retries with backoff, ``Retry-After`` and an adaptive (AIMD) concurrency limit.

One :class:`AdaptiveLimiter` is shared by every call to an endpoint: it halves the number of
calls in flight on HTTP 429 and pauses everyone for the ``Retry-After`` delay, then grows back
by one after a window of successes, never above the configured concurrency. Waiting is bounded
by ``RetryPolicy.patience``: past it with no call answered, the run stops (:class:`OutOfPatience`);
a spent quota stops it at once (:class:`QuotaSpent`).
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import re
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import asdict, dataclass, field, fields
from typing import TypeVar

from .._exceptions import JudgeUnavailable
from .._util.deadline import within
from .errors import LLMCallError, OutOfPatience, QuotaSpent, ResponseFormatRejected

T = TypeVar("T")

_FORMAT_WORDS = re.compile(r"response_format|json_schema|json schema|schema|grammar|format", re.I)
DEFAULT_PATIENCE = 300.0
"""Seconds a run waits on an endpoint that only answers HTTP 429 before it stops."""
QUOTA_CODES = frozenset(
    {
        "insufficient_quota",
        "billing_hard_limit_reached",
        "billing_not_active",
        "insufficient_balance",
        "insufficient_credits",
        "payment_required",
        "quota_exceeded",
    }
)
"""Error codes and types (lower case) of a spent quota or an unpaid bill, not a rate limit:
waiting does not lift them."""


@dataclass
class RetryPolicy:
    """How often and how long to retry a failed call."""

    max_retries: int = 4
    backoff_base: float = 0.5
    backoff_max: float = 20.0
    timeout: float = 60.0
    """Seconds one attempt may take in total, reply included (a timeout is retried)."""
    patience: float = DEFAULT_PATIENCE
    """Seconds the calls may wait on HTTP 429 with no call answered meanwhile: a
    ``Retry-After`` that asks for more (or a run of them adding up to more) stops the run."""

    def backoff(self, attempt: int) -> float:
        """Exponential backoff with full jitter for retry number ``attempt`` (0-based)."""
        ceiling = min(self.backoff_max, self.backoff_base * 2**attempt)
        return ceiling / 2 + random.uniform(0, ceiling / 2)


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or an HTTP date), as
    asked: whether to wait that long is the caller's choice (`RetryPolicy.patience`)."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when is None:
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    if seconds != seconds:  # NaN
        return None
    return max(seconds, 0.0)


def check_one_loop(bound: asyncio.AbstractEventLoop | None, what: str) -> asyncio.AbstractEventLoop:
    """The running loop, which must be `bound` when a run already bound `what` to one.

    An HTTP client's connections and a limiter's waiters belong to the loop they were made
    on; a run releases them with `aclose()`. Used on a second loop without that, they would
    fail obscurely (or hang), so this says what to do instead."""
    loop = asyncio.get_running_loop()
    if bound is not None and bound is not loop and not bound.is_closed():
        raise RuntimeError(
            f"{what} is in use on another event loop; await its aclose() there first "
            "(ragmeter.evaluate and the CLI do)"
        )
    if bound is not None and bound.is_closed():
        raise RuntimeError(
            f"{what} was used on an event loop that has ended without aclose(); close it "
            "at the end of each run (ragmeter.evaluate and the CLI do)"
        )
    return loop


@dataclass
class AdaptiveLimiter:
    """A concurrency limit that adapts to rate limiting (AIMD), shared across calls.

    Waiters are served first come, first served, and a release wakes only the waiter that
    gets the slot (thousands of queued calls cost nothing per release).
    """

    max_limit: int
    limit: int = 0
    in_flight: int = 0
    rate_limited: int = 0
    _successes: int = 0
    _pause_until: float = 0.0
    _limited_since: float | None = None
    """When the endpoint began answering only HTTP 429 (None: it answered since)."""
    _waiters: deque[asyncio.Future[None]] = field(default_factory=deque, repr=False)

    def __post_init__(self) -> None:
        self.max_limit = max(1, self.max_limit)
        self.limit = self.limit or self.max_limit

    def reset(self) -> None:
        """Forget the waiters and slots of a run that has ended (they belong to its loop)."""
        self._waiters.clear()
        self.in_flight = 0
        self._limited_since = None  # the next run's patience starts afresh

    async def acquire(self) -> None:
        while True:
            delay = self._pause_until - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
                continue
            if self.in_flight < self.limit and not self._waiters:
                self.in_flight += 1
                return
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            try:
                await waiter
            except asyncio.CancelledError:
                if waiter.done() and not waiter.cancelled():
                    self.in_flight -= 1  # granted as we were cancelled: pass the slot on
                    self._wake()
                raise
            finally:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)
            if time.monotonic() < self._pause_until:  # paused meanwhile: give the slot back
                self.in_flight -= 1
                self._wake()
                continue
            return

    def release(self) -> None:
        self.in_flight = max(0, self.in_flight - 1)
        self._wake()

    def _wake(self) -> None:
        """Hand free slots to the oldest waiters (the slot is taken on their behalf)."""
        while self._waiters and self.in_flight < self.limit:
            waiter = self._waiters.popleft()
            if not waiter.done():
                self.in_flight += 1
                waiter.set_result(None)

    def on_success(self) -> None:
        self._limited_since = None
        self._successes += 1
        if self._successes >= self.limit and self.limit < self.max_limit:
            self.limit += 1
            self._successes = 0
            self._wake()

    def waited(self) -> float:
        """Seconds since the endpoint began answering only HTTP 429 (0 when it answers)."""
        if self._limited_since is None:
            return 0.0
        return time.monotonic() - self._limited_since

    def on_rate_limited(self, retry_after: float | None) -> None:
        self.rate_limited += 1
        now = time.monotonic()
        if self._limited_since is None:
            self._limited_since = now
        if now >= self._pause_until:  # one cut per pause window, not one per 429 in the burst
            self.limit = max(1, self.limit // 2)
            self._successes = 0
        if retry_after:
            self._pause_until = max(self._pause_until, now + retry_after)


@dataclass
class RetryStats:
    """Counters of retried failures, reported in the run's `judge_stats`: how many calls
    were sent again, and the failures (each attempt's) by kind."""

    retries: int = 0
    timeouts: int = 0
    server_errors: int = 0
    """HTTP 5xx replies."""
    connection_errors: int = 0

    @classmethod
    def total(cls, stats: Iterable[RetryStats]) -> dict[str, int]:
        """The counters of `stats` summed, by name."""
        summed = {f.name: 0 for f in fields(cls)}
        for one in stats:
            for name, value in asdict(one).items():
                summed[name] += value
        return summed


async def run_with_retries(
    do_call: Callable[[], Awaitable[T]],
    *,
    policy: RetryPolicy,
    limiter: AdaptiveLimiter,
    stats: RetryStats,
    format_sensitive: bool = False,
    what: str = "call",
    unreachable_is_fatal: bool = False,
) -> T:
    """Run ``do_call`` under ``limiter``, retrying transient failures per ``policy``.

    openai exceptions are translated into :class:`LLMCallError` here; a rejection of the
    requested response format (when ``format_sensitive``) is raised at once as
    :class:`ResponseFormatRejected` so the caller can fall back. A rejected key (401/403) or
    an unknown model or path (404) raises :class:`JudgeUnavailable` at once, without retries;
    so do exhausted connection failures when ``unreachable_is_fatal`` (the endpoint has never
    answered).
    """
    import openai

    attempt = 0
    while True:
        wait: float | None = None
        unreachable = False  # this attempt could not connect at all (not slow: absent)
        await limiter.acquire()
        try:
            # The SDK's timeout bounds each read, not the call: a server sending a byte now and
            # then would hold it forever. This deadline bounds the whole call, reply included.
            result = await within(policy.timeout, do_call())
        except (openai.APIConnectionError, TimeoutError) as exc:
            if isinstance(exc, openai.APITimeoutError | TimeoutError) and not _refused(exc):
                stats.timeouts += 1
                error = LLMCallError(f"{what} timed out after {policy.timeout:g}s")
            else:
                stats.connection_errors += 1
                unreachable = isinstance(exc, openai.APIConnectionError)
                reason = "Connection error." if isinstance(exc, openai.APITimeoutError) else exc
                error = LLMCallError(f"{what} could not connect: {reason}")
            error.__cause__ = exc
        except openai.RateLimitError as exc:
            if _quota_error(exc):
                raise _quota_stop(what, exc) from exc
            wait = parse_retry_after(exc.response.headers.get("retry-after"))
            waited = limiter.waited()
            if waited + (wait or 0.0) > policy.patience:
                raise _patience_stop(what, wait, waited, policy.patience) from exc
            limiter.on_rate_limited(wait)
            error = LLMCallError(f"{what} rate limited (HTTP 429)", status=429)
            error.__cause__ = exc
        except openai.APIStatusError as exc:
            status = exc.status_code
            body = _body_text(exc)
            if format_sensitive and status in (400, 422, 500, 501) and _FORMAT_WORDS.search(body):
                raise ResponseFormatRejected(
                    f"endpoint rejected the response format (HTTP {status}): {body[:200]}",
                    status=status,
                    body=body,
                ) from exc
            message = f"{what} failed (HTTP {status}): {body[:300]}"
            if status == 402 or _quota_error(exc):
                raise _quota_stop(what, exc) from exc
            if status in (401, 403):
                raise JudgeUnavailable(
                    f"{what} was refused (HTTP {status}: {body[:200]}): check the API key in "
                    "the variable named by --api-key-env (api_key_env in ragmeter.toml)"
                ) from exc
            if status == 404:
                raise JudgeUnavailable(
                    f"{what} failed (HTTP 404: {body[:200]}): check --model and --base-url "
                    "(the base URL usually ends in /v1)"
                ) from exc
            if status < 500:
                raise LLMCallError(message, status=status, body=body) from exc
            stats.server_errors += 1
            error = LLMCallError(message, status=status, body=body)
            error.__cause__ = exc
        except openai.APIError as exc:
            raise LLMCallError(f"{what} failed: {exc}") from exc
        else:
            limiter.on_success()
            return result
        finally:
            limiter.release()
        if attempt >= policy.max_retries:
            if unreachable_is_fatal and unreachable:
                raise JudgeUnavailable(
                    f"{error} ({policy.max_retries} retries): is the judge endpoint running "
                    "and is --base-url right?"
                ) from error.__cause__
            raise LLMCallError(
                f"{error} ({policy.max_retries} retries exhausted)", status=error.status
            ) from error.__cause__
        stats.retries += 1
        await asyncio.sleep(wait if wait is not None else policy.backoff(attempt))
        attempt += 1


def _quota_error(exc: object) -> bool:
    """Whether an error reply says the quota is spent or the bill unpaid (its ``code`` or
    ``type`` in `QUOTA_CODES`), which no retry or wait lifts."""
    body = getattr(exc, "body", None)
    err = body.get("error", body) if isinstance(body, dict) else None
    names = [getattr(exc, "code", None), getattr(exc, "type", None)]
    if isinstance(err, dict):
        names += [err.get("code"), err.get("type")]
    return any(isinstance(n, str) and n.lower() in QUOTA_CODES for n in names)


def _quota_stop(what: str, exc: object) -> QuotaSpent:
    status = getattr(exc, "status_code", "?")
    return QuotaSpent(
        f"{what} refused the call for quota or billing, not a rate limit (HTTP {status}: "
        f"{_body_text(exc)[:200]}): waiting will not help; check the account's plan, credits "
        "and billing"
    )


def _patience_stop(what: str, wait: float | None, waited: float, patience: float) -> OutOfPatience:
    so_far = f"{waited:.1f}s of HTTP 429 with no call answered"
    if wait is None:
        why = f"has answered only HTTP 429 for {so_far}"
    else:
        why = f"asks to wait {wait:g}s more (Retry-After)"
        if waited > 0:
            why += f" after {so_far}"
    return OutOfPatience(
        f"{what} is rate limited (HTTP 429) and {why}: past the patience of {patience:g}s; run "
        "again later, or raise --patience (patience under [judge] in ragmeter.toml)"
    )


def _refused(exc: BaseException) -> bool:
    """Whether a timeout the SDK reports was a failure to connect: the aiohttp transport maps
    every connection error (a refused port, an unknown host) to a connect *timeout*; the cause
    it chains says what happened (an OSError that is not a timeout)."""
    cause = exc.__cause__ or exc.__context__
    for _ in range(8):  # a chain is a few links long; bounded all the same
        if cause is None:
            return False
        if isinstance(cause, OSError) and not isinstance(cause, TimeoutError):
            return True
        cause = cause.__cause__ or cause.__context__
    return False


def _body_text(exc: object) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and "message" in err:
            return str(err["message"])
        return str(body)
    if body is not None:
        return str(body)
    return str(getattr(exc, "message", "") or exc)
