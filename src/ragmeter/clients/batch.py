"""Judge calls through an OpenAI-compatible batch API (``ragmeter run --batch``).

The judge runs as it does online, but a call the cache cannot answer is not sent: it waits in
a :class:`BatchCollector`. Once no new call has come for ``quiet_seconds`` (every case being
judged is waiting on the collector: a *round*), the waiting calls go out as one batch input
file, one request per line (``{"custom_id": <cache key>, "method": "POST", "url":
"/v1/chat/completions", "body": ...}``, the format OpenAI's Batch API and vLLM's batch runner
read), uploaded with ``POST /v1/files`` and started with ``POST /v1/batches``. The batch is
polled every ``poll_seconds`` until it ends; its replies are cached exactly as online replies
are, then handed to the calls waiting on them. Calls that depend on a reply (faithfulness
verifies the claims it split) make the next round, so a run takes as many batch files as its
deepest chain of calls (two for the default judge).

Resume: every batch submitted is recorded, with the keys of its requests, in the tables
``batches`` and ``batch_requests`` of the call cache's SQLite file. A run started again with
``--batch`` (after a kill, Ctrl-C, or a poll that failed) attaches a call whose key is in a
batch not yet finished to that batch and polls it, instead of submitting the call again; the
replies of finished batches are in the cache already. Without a cache file (``--no-cache``)
the record lives in memory and nothing can be resumed.

A line with an error, one missing from the output (the batch expired or was cancelled), or a
batch that failed is that call's failure, as an online failure after retries is: the metric is
unscored with the reason.
"""

from __future__ import annotations

import asyncio
import functools
import json
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from .._exceptions import JudgeUnavailable
from .errors import LLMCallError, OutOfPatience, QuotaSpent, ResponseFormatRejected
from .replycap import ACCEPT_ENCODING, MAX_REPLY_BYTES, cap_reply_size, too_large
from .retry import (
    _FORMAT_WORDS,
    AdaptiveLimiter,
    RetryPolicy,
    RetryStats,
    check_one_loop,
    run_with_retries,
)

T = TypeVar("T")
Reply = TypeVar("Reply")
"""What a reply is read into (the chat client's `ChatResponse`); the collector only passes it on."""

ENDPOINT = "/v1/chat/completions"
COMPLETION_WINDOW = "24h"
MAX_LINES = 50_000
"""Requests per batch file (OpenAI's limit); a larger round is split."""
MAX_BYTES = 180 * 1024 * 1024
"""Bytes per batch file (OpenAI's limit is 200 MB)."""
ENDED = frozenset({"completed", "failed", "expired", "cancelled"})
"""Batch statuses after which nothing changes."""
DEFAULT_POLL_SECONDS = 10.0
DEFAULT_QUIET_SECONDS = 0.5

SCHEMA = """
CREATE TABLE IF NOT EXISTS batches (
    batch_id TEXT PRIMARY KEY,
    endpoint TEXT NOT NULL,
    input_file_id TEXT NOT NULL,
    status TEXT NOT NULL,
    created REAL NOT NULL,
    finished REAL
);
CREATE TABLE IF NOT EXISTS batch_requests (
    batch_id TEXT NOT NULL,
    key TEXT NOT NULL,
    request TEXT NOT NULL,
    PRIMARY KEY (batch_id, key)
);
"""


@dataclass(frozen=True)
class BatchRequest:
    """One chat call to make through a batch."""

    key: str
    """The call's cache key, its ``custom_id`` in the batch file."""
    body: dict[str, Any]
    """The chat-completions body, as it would be sent online."""
    request: dict[str, Any]
    """What the cache stores as the request (messages, response_format, salt)."""
    asked_cap: bool = False
    """The caller set ``max_tokens`` itself: a reply it cut off is the answer (cached)."""

    def line(self) -> str:
        record = {"custom_id": self.key, "method": "POST", "url": ENDPOINT, "body": self.body}
        return json.dumps(record, ensure_ascii=False, separators=(",", ":"))

    def as_json(self) -> str:
        record = {"body": self.body, "request": self.request, "asked_cap": self.asked_cap}
        return json.dumps(record, ensure_ascii=False)

    @classmethod
    def from_json(cls, key: str, text: str) -> BatchRequest:
        record = json.loads(text)
        return cls(key, record["body"], record["request"], bool(record.get("asked_cap")))


class BatchStore:
    """The batches submitted and the requests each carries, in the cache's SQLite file
    (`path`), or in memory when it is None."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(
            str(path) if path is not None else ":memory:",
            check_same_thread=False,
            isolation_level=None,
            timeout=30,
        )
        self._db.executescript(SCHEMA)

    def add(
        self, batch_id: str, endpoint: str, input_file_id: str, requests: list[BatchRequest]
    ) -> None:
        """Record a submitted batch and its requests (one transaction)."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                self._db.execute(
                    "INSERT OR REPLACE INTO batches VALUES (?, ?, ?, 'submitted', ?, NULL)",
                    (batch_id, endpoint, input_file_id, time.time()),
                )
                self._db.executemany(
                    "INSERT OR REPLACE INTO batch_requests VALUES (?, ?, ?)",
                    [(batch_id, r.key, r.as_json()) for r in requests],
                )
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def finish(self, batch_id: str, status: str) -> None:
        """Mark a batch ended (its replies are cached): it is never polled again."""
        with self._lock:
            self._db.execute(
                "UPDATE batches SET status = ?, finished = ? WHERE batch_id = ?",
                (status, time.time(), batch_id),
            )

    def unfinished(self, endpoint: str) -> dict[str, str]:
        """Key → batch id of every request in a batch of `endpoint` not yet finished."""
        with self._lock:
            rows = self._db.execute(
                "SELECT r.key, r.batch_id FROM batch_requests r JOIN batches b "
                "ON b.batch_id = r.batch_id WHERE b.endpoint = ? AND b.finished IS NULL "
                "ORDER BY b.created",
                (endpoint,),
            ).fetchall()
        return {key: batch_id for key, batch_id in rows}

    def requests(self, batch_id: str) -> list[BatchRequest]:
        with self._lock:
            rows = self._db.execute(
                "SELECT key, request FROM batch_requests WHERE batch_id = ?", (batch_id,)
            ).fetchall()
        return [BatchRequest.from_json(key, text) for key, text in rows]

    def batches(self, endpoint: str | None = None) -> list[tuple[str, str]]:
        """(batch id, status) of the batches recorded, oldest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT batch_id, status, endpoint FROM batches ORDER BY created"
            ).fetchall()
        return [(b, s) for b, s, e in rows if endpoint is None or e == endpoint]

    def close(self) -> None:
        with self._lock:
            self._db.close()


@dataclass
class _Slot(Generic[Reply]):
    """A request waiting for its reply, and the calls waiting on it."""

    request: BatchRequest
    waiters: list[asyncio.Future[tuple[Reply, bool]]] = field(default_factory=list)


@dataclass
class BatchStats:
    """What the collector has done so far."""

    files: int = 0
    """Batch input files uploaded (one batch each)."""
    lines: int = 0
    """Requests in them."""
    resumed: int = 0
    """Batches of an earlier run attached to instead of submitting their calls again."""
    polls: int = 0
    failed_lines: int = 0
    """Requests that came back with an error, or not at all."""


Accept = Callable[[BatchRequest, Any], Reply]
"""Reads a reply (the decoded chat completion) into a response and caches it."""


class BatchCollector(Generic[Reply]):
    """Collects a judge's uncached calls into rounds of batch jobs (see the module doc).

    `sdk` returns the ``openai.AsyncOpenAI`` client to use; `accept` reads and caches a reply
    as the online path does. Its waiters belong to the loop of the run that made them, until
    :meth:`aclose` (another live loop is refused: `retry.check_one_loop`).
    """

    def __init__(
        self,
        *,
        sdk: Callable[[], Any],
        accept: Accept[Reply],
        store: BatchStore,
        endpoint: str,
        where: str,
        policy: RetryPolicy,
        poll_seconds: float = DEFAULT_POLL_SECONDS,
        quiet_seconds: float = DEFAULT_QUIET_SECONDS,
        unreachable_is_fatal: Callable[[], bool] = lambda: True,
    ) -> None:
        self._sdk = sdk
        self._accept = accept
        self.store = store
        self.endpoint = endpoint
        self.where = where
        self.policy = policy
        self.poll_seconds = poll_seconds
        self.quiet_seconds = quiet_seconds
        self._unreachable_is_fatal = unreachable_is_fatal
        self.stats = BatchStats()
        self._limiter = AdaptiveLimiter(4)
        self.retry_stats = RetryStats()
        """Retries of the batch API's own requests (uploads, submissions, polls)."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._reset()

    def _reset(self) -> None:
        self._pending: dict[str, _Slot[Reply]] = {}
        self._slots: dict[str, _Slot[Reply]] = {}
        """Every key pending or in a batch being polled."""
        self._resumable: dict[str, str] = self.store.unfinished(self.endpoint)
        self._attached: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._flusher: asyncio.Task[None] | None = None
        self._last = 0.0

    # ---- calls -----------------------------------------------------------------------------

    async def complete(self, request: BatchRequest) -> tuple[Reply, bool]:
        """The reply to `request` once its batch has ended, and whether this call is the
        first to get it (the others asked for the same key: a cache hit for them). Raises
        :class:`LLMCallError` (or a subclass) for a line with an error or no line, and
        :class:`JudgeUnavailable` when the batch API refused the key or is missing."""
        self._loop = check_one_loop(self._loop, f"the batch collector of {self.where}")
        loop = self._loop
        waiter: asyncio.Future[tuple[Reply, bool]] = loop.create_future()
        slot = self._slots.get(request.key)
        if slot is None and request.key in self._resumable:
            self._attach(self._resumable[request.key])
            slot = self._slots.get(request.key)
        if slot is None:
            slot = self._slots[request.key] = self._pending[request.key] = _Slot(request)
            self._last = loop.time()
            if self._flusher is None or self._flusher.done():
                self._flusher = self._spawn(self._flush_when_quiet())
        slot.waiters.append(waiter)
        return await waiter

    def _spawn(self, coroutine: Awaitable[None]) -> asyncio.Task[None]:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _attach(self, batch_id: str) -> None:
        """Poll a batch an earlier run submitted; its requests wait on it, not resubmitted."""
        if batch_id in self._attached:
            return
        self._attached.add(batch_id)
        self.stats.resumed += 1
        slots: dict[str, _Slot[Reply]] = {}
        for request in self.store.requests(batch_id):
            self._resumable.pop(request.key, None)
            if request.key not in self._slots:
                slots[request.key] = self._slots[request.key] = _Slot(request)
        self._spawn(self._settle(slots, self._poll_and_collect(batch_id, slots)))

    async def _flush_when_quiet(self) -> None:
        loop = asyncio.get_running_loop()
        while self._pending:
            wait = self._last + self.quiet_seconds - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
                continue
            pending, self._pending = self._pending, {}
            for chunk in _chunks(pending):
                self._spawn(self._settle(chunk, self._submit_and_collect(chunk)))

    # ---- one batch -------------------------------------------------------------------------

    async def _settle(self, slots: dict[str, _Slot[Reply]], work: Awaitable[None]) -> None:
        """Run `work` (which resolves the slots' waiters); if it fails, so do they."""
        try:
            await work
        except asyncio.CancelledError:
            for key, slot in slots.items():
                self._slots.pop(key, None)
                for waiter in slot.waiters:
                    waiter.cancel()
            raise
        except (LLMCallError, JudgeUnavailable) as exc:
            self._fail(slots, exc)
        except Exception as exc:  # a bug must fail these calls, not hang them
            self._fail(slots, LLMCallError(f"batch of {self.where}: {type(exc).__name__}: {exc}"))

    def _fail(self, slots: dict[str, _Slot[Reply]], exc: Exception) -> None:
        for key, slot in slots.items():
            if self._slots.get(key) is slot:
                del self._slots[key]
            for waiter in slot.waiters:
                if not waiter.done():
                    waiter.set_exception(exc)

    async def _submit_and_collect(self, slots: dict[str, _Slot[Reply]]) -> None:
        requests = [slot.request for slot in slots.values()]
        data = "".join(r.line() + "\n" for r in requests).encode("utf-8")
        sdk = self._sdk()
        try:
            upload = await self._api(
                lambda: sdk.files.create(
                    file=("ragmeter-batch.jsonl", data, "application/jsonl"), purpose="batch"
                ),
                fatal=self._unreachable_is_fatal(),
            )
            batch = await self._api(
                lambda: sdk.batches.create(
                    input_file_id=upload.id,
                    endpoint=ENDPOINT,
                    completion_window=COMPLETION_WINDOW,
                    metadata={"source": "ragmeter"},
                )
            )
        except (QuotaSpent, OutOfPatience):
            raise  # not a missing batch API
        except JudgeUnavailable as exc:
            raise JudgeUnavailable(
                f"{exc}; --batch needs the endpoint's batch API (/v1/files and /v1/batches): "
                "run without --batch if it has none"
            ) from None
        self.store.add(batch.id, self.endpoint, upload.id, requests)
        self.stats.files += 1
        self.stats.lines += len(requests)
        await asyncio.sleep(self.poll_seconds)
        await self._poll_and_collect(batch.id, slots)

    async def _poll_and_collect(self, batch_id: str, slots: dict[str, _Slot[Reply]]) -> None:
        sdk = self._sdk()
        while True:
            try:
                batch = await self._api(lambda: sdk.batches.retrieve(batch_id))
            except LLMCallError as exc:
                raise LLMCallError(
                    f"{exc}; batch {batch_id} is still recorded: run again with --batch to "
                    "collect it",
                    status=exc.status,
                ) from None
            self.stats.polls += 1
            if batch.status in ENDED:
                break
            await asyncio.sleep(self.poll_seconds)
        lines: dict[str, dict[str, Any]] = {}
        for file_id in (batch.output_file_id, batch.error_file_id):
            if file_id:
                data = await self._download(sdk, file_id, len(slots))
                lines.update(_read_output(data))
        why = _batch_problem(batch)
        outcomes = {
            key: self._outcome(batch_id, slot, lines.get(key), why) for key, slot in slots.items()
        }
        self.store.finish(batch_id, batch.status)  # the replies are cached: never polled again
        for key, slot in slots.items():
            if self._slots.get(key) is slot:
                del self._slots[key]
            outcome = outcomes[key]
            first = True  # the first call still waiting pays; the others count as cached
            for waiter in slot.waiters:
                if waiter.done():  # cancelled meanwhile
                    continue
                if isinstance(outcome, BaseException):
                    waiter.set_exception(outcome)
                else:
                    waiter.set_result((outcome, first))
                    first = False

    def _outcome(
        self, batch_id: str, slot: _Slot[Reply], line: dict[str, Any] | None, why: str
    ) -> Reply | Exception:
        """The reply of one request (read and cached), or why there is none."""
        request = slot.request
        what = f"judge batch {batch_id} at {self.where}"
        if line is None:
            self.stats.failed_lines += 1
            return LLMCallError(f"{what}: no reply for this request ({why})")
        response = line.get("response")
        if not isinstance(response, dict):
            self.stats.failed_lines += 1
            error = line.get("error")
            if not isinstance(error, dict):
                error = {}
            code = error.get("code") or "error"
            return LLMCallError(f"{what}: {code}: {str(error.get('message') or why)[:300]}")
        status = response.get("status_code")
        body = response.get("body")
        if status != 200:
            self.stats.failed_lines += 1
            return _status_error(what, status, body, request)
        try:
            return self._accept(request, body)
        except LLMCallError as exc:
            self.stats.failed_lines += 1
            return exc

    async def _download(self, sdk: Any, file_id: str, requests: int) -> bytes:
        """A batch's output or error file, read under one reply's bound per request in it (the
        judge client's own bound is one reply's); each line is then held to one reply's bound,
        so a runaway reply fails its call, not the batch."""
        import openai

        limit = max(1, requests) * MAX_REPLY_BYTES
        http_client = openai.DefaultAsyncHttpxClient(
            timeout=self.policy.timeout,
            headers={"Accept-Encoding": ACCEPT_ENCODING},
            event_hooks={"response": [functools.partial(cap_reply_size, limit=limit)]},
        )
        try:
            files = sdk.with_options(http_client=http_client).files
            content = await self._api(lambda: files.content(file_id))
            return bytes(content.content)
        finally:
            await http_client.aclose()

    async def _api(self, call: Callable[[], Awaitable[T]], *, fatal: bool = False) -> T:
        """One batch-API request, with the retries online calls get."""
        return await run_with_retries(
            call,
            policy=self.policy,
            limiter=self._limiter,
            stats=self.retry_stats,
            what=f"batch API of {self.where}",
            unreachable_is_fatal=fatal,
        )

    async def aclose(self) -> None:
        """Stop polling; what was submitted stays recorded, for a later run to collect. The
        next call, on any loop, starts afresh."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        self._loop = None
        self._reset()


def _chunks(slots: dict[str, _Slot[Any]]) -> Iterator[dict[str, _Slot[Any]]]:
    """`slots` in groups that fit one batch file."""
    chunk: dict[str, _Slot[Any]] = {}
    size = 0
    for key, slot in slots.items():
        line = len(slot.request.line().encode("utf-8")) + 1
        if chunk and (len(chunk) >= MAX_LINES or size + line > MAX_BYTES):
            yield chunk
            chunk, size = {}, 0
        chunk[key] = slot
        size += line
    if chunk:
        yield chunk


def _read_output(data: bytes) -> dict[str, dict[str, Any]]:
    """custom_id → record of a batch output or error file (unreadable lines skipped: their
    requests count as missing)."""
    out: dict[str, dict[str, Any]] = {}
    for raw in data.decode("utf-8", "replace").splitlines():
        try:
            record = json.loads(raw)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict) and isinstance(record.get("custom_id"), str):
            if len(raw) > MAX_REPLY_BYTES:  # as online: refused, not cached
                error = {"code": "reply_too_large", "message": str(too_large())}
                record = {"custom_id": record["custom_id"], "response": None, "error": error}
            out[record["custom_id"]] = record
    return out


def _batch_problem(batch: Any) -> str:
    """Why a batch's requests may have no reply: its status and first error."""
    why = f"the batch {batch.status}"
    errors = getattr(getattr(batch, "errors", None), "data", None) or []
    if errors:
        first = errors[0]
        line = f" (line {first.line})" if getattr(first, "line", None) else ""
        why += f": {first.code}: {first.message}{line}"
    return why


def _status_error(what: str, status: object, body: object, request: BatchRequest) -> Exception:
    """A line's error reply as the error an online call with that status raises."""
    message = body
    if isinstance(body, dict):
        inner = body.get("error", body)
        message = inner.get("message", inner) if isinstance(inner, dict) else inner
    text = str(message)
    code = status if isinstance(status, int) else None
    format_sensitive = request.body.get("response_format") is not None
    if format_sensitive and code in (400, 422, 500, 501) and _FORMAT_WORDS.search(text):
        return ResponseFormatRejected(
            f"endpoint rejected the response format (HTTP {code}): {text[:200]}",
            status=code,
            body=text,
        )
    if code in (401, 403, 404):
        return JudgeUnavailable(f"{what} failed (HTTP {code}: {text[:200]})")
    return LLMCallError(f"{what} failed (HTTP {status}): {text[:300]}", status=code, body=text)
