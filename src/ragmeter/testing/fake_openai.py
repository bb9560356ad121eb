"""A real OpenAI-compatible HTTP server for tests and benchmarks, with fault injection.

    with FakeOpenAI(responder=Smart()) as server:
        judge = build_llm_judge(LLMJudgeConfig(model="fake", base_url=server.base_url, ...))

It serves ``POST /v1/chat/completions`` and ``POST /v1/embeddings`` from a background thread
on 127.0.0.1 (a free port), answers with a pluggable responder, and logs every request. It
also runs batch jobs (``/v1/files``, ``/v1/batches``; see :mod:`.fake_batches`). For
benchmarks it simulates latency (fixed or drawn from a model), a rate limit (HTTP 429 past N
requests per second) and reports the load it saw (:meth:`FakeOpenAI.summary`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import random
import re
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

from ..clients.cost import count_tokens
from .fake_batches import BatchDesk, BatchFault, parse_multipart
from .latency import LatencyFn, load_summary
from .responders import FakeRequest, Responder, Smart, content_tokens

FaultKind = Literal[
    "rate_limit",
    "server_error",
    "unauthorized",
    "model_not_found",
    "slow",
    "malformed",
    "truncated",
    "wrong_count",
    "slow_drip",
    "oversized",
    "bad_usage",
    "reset",
    "quota",
    "bad_logprobs",
    "echo_key",
]
EmbedFn = Callable[[str], list[float]]
ConfidenceFn = Callable[[FakeRequest, int], float]
"""P of the chosen label at the n-th verdict token (0-based) of a reply."""
LogprobsMode = Literal["yes", "ignore", "reject"]

VERDICT_TOKENS: tuple[frozenset[str], ...] = (
    frozenset({"supported", "contradicted", "not_verifiable"}),
    frozenset({"true", "false"}),
)
VERIFIER_TOKENS = frozenset({"Yes", "No"})
"""A one-token verifier reply (the whole reply is Yes or No)."""
_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")


def fake_logprobs(text: str, request: FakeRequest, confidence: ConfidenceFn) -> list[dict]:
    """OpenAI-style ``logprobs.content`` for `text`: words, spaces and punctuation as tokens,
    each certain except verdict values (labels, true/false after a key, a reply that is just Yes
    or No), whose siblings share what `confidence` leaves."""
    content = []
    n = 0
    written = ""
    for token in _TOKEN.findall(text):
        before, written = written, written + token
        is_value = before.rstrip(' "').endswith(":")  # a JSON value, not a key or prose
        family = next((f for f in VERDICT_TOKENS if token in f), None) if is_value else None
        if token == text and token in VERIFIER_TOKENS:
            family = VERIFIER_TOKENS
        if family is None:
            content.append(
                {"token": token, "logprob": 0.0, "top_logprobs": [{"token": token, "logprob": 0.0}]}
            )
            continue
        p = min(max(confidence(request, n), 1e-6), 1 - 1e-6)
        n += 1
        others = sorted(family - {token})
        top = [{"token": token, "logprob": math.log(p)}] + [
            {"token": o, "logprob": math.log((1 - p) / len(others))} for o in others
        ]
        content.append({"token": token, "logprob": math.log(p), "top_logprobs": top})
    return content


@dataclass
class Fault:
    """A fault injected into matching chat requests.

    ``schema`` restricts it to one judge call (a schema name such as ``FaithfulnessVerdicts``),
    ``match`` to requests a predicate accepts; ``rate`` is the probability per matching request
    (seeded) and ``times`` caps how often it fires. ``retry_after`` is sent with
    ``rate_limit`` (a number of seconds or an HTTP date string); ``delay`` is how long a
    ``slow`` response takes.

    Hostile endpoints: ``slow_drip`` sends the headers at once, then the body one byte every
    ``drip_interval`` seconds (a per-read timeout never trips); ``oversized`` pads the reply's
    content with spaces to ``size`` characters (still valid JSON); ``bad_usage`` reports
    ``usage`` as its token counts (default: negative ones); ``reset`` closes the connection
    with a TCP reset after ``reset_after`` bytes of the reply (0: before any).

    Billing and numbers: ``quota`` answers HTTP 429 with OpenAI's ``insufficient_quota`` error
    (``code`` another error code, ``status`` another status such as 402); ``bad_logprobs``
    gives every token's log-probability, and its alternatives', as ``logprob`` (NaN, +5.0);
    ``echo_key`` appends the request's API key to the first string of a JSON reply (its
    end for other text).
    """

    kind: FaultKind
    schema: str | None = None
    rate: float = 1.0
    times: int | None = None
    retry_after: float | str | None = 1.0
    delay: float = 5.0
    match: Callable[[FakeRequest], bool] | None = None
    fired: int = 0
    drip_interval: float = 1.0
    size: int = 10_000_000
    usage: dict[str, Any] | None = None
    code: str = "insufficient_quota"
    status: int = 429
    logprob: float = float("nan")
    reset_after: int = 0


@dataclass
class LoggedRequest:
    """One request the server received, and what it did."""

    index: int
    path: str
    started: float
    """``time.monotonic()`` when the request arrived."""
    finished: float = 0.0
    status: int = 200
    schema_name: str | None = None
    response_format: str | None = None
    """``json_schema``, ``json_object`` or None."""
    fault: str | None = None
    repair: bool = False
    in_flight: int = 1
    """Requests being served when this one arrived (itself included)."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    body: dict[str, Any] = field(default_factory=dict, repr=False)
    drip: float = 0.0
    """Seconds between the bytes of the reply (a ``slow_drip`` fault); 0: sent at once."""
    batch: str | None = None
    """The batch this chat request was a line of; None for a request sent on its own."""
    reset: int | None = None
    """Bytes of the reply sent before the connection was reset (a ``reset`` fault)."""


def hashing_embedding(text: str, dim: int = 256) -> list[float]:
    """A deterministic bag-of-words vector (words and Chinese bigrams hashed), unit length."""
    vector = [0.0] * dim
    for token in content_tokens(text) or {text.strip().lower()}:
        digest = hashlib.md5(token.encode()).digest()
        vector[int.from_bytes(digest[:4], "little") % dim] += 1.0 if digest[4] % 2 else -1.0
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    return [x / norm for x in vector]


class FakeOpenAI:
    """The fake server; a context manager exposing ``base_url`` and the request ``log``.

    ``latency`` is seconds per request or a model of it (see :mod:`.latency`); ``rate_limit``
    answers HTTP 429 (``Retry-After: 1``) to requests past that many in the last second;
    ``count_schema_tokens`` adds the tokens of a ``response_format`` JSON schema (and of
    ``tools``) to the prompt tokens, as hosted APIs bill them; ``keep_bodies=False`` drops
    request bodies from the log (long benchmark runs). A request with ``logprobs`` gets token
    log-probabilities (``logprobs="yes"``), none (``"ignore"``) or HTTP 400 (``"reject"``);
    ``confidence(request, n)`` is the probability of the n-th verdict value of a reply.
    A batch stays in progress ``batch_delay`` seconds before its lines are answered;
    ``batch_faults`` make batches fail or expire (:class:`~.fake_batches.BatchFault`);
    ``batch_api=False`` serves no files or batches (HTTP 404, as many servers).
    """

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        faults: list[Fault] | None = None,
        json_schema: bool = True,
        json_object: bool = True,
        latency: float | LatencyFn = 0.0,
        rate_limit: float | None = None,
        count_schema_tokens: bool = False,
        keep_bodies: bool = True,
        embed: EmbedFn = hashing_embedding,
        seed: int = 0,
        logprobs: LogprobsMode = "yes",
        confidence: ConfidenceFn = lambda _request, _n: 0.9,
        batch_delay: float = 0.2,
        batch_faults: list[BatchFault] | None = None,
        batch_api: bool = True,
    ) -> None:
        self.responder = responder or Smart()
        self.faults = list(faults or [])
        self.json_schema = json_schema
        self.json_object = json_object
        self.latency = latency
        self.rate_limit = rate_limit
        self.count_schema_tokens = count_schema_tokens
        self.keep_bodies = keep_bodies
        self.embed = embed
        self.logprobs = logprobs
        self.confidence = confidence
        self.log: list[LoggedRequest] = []
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._in_flight = 0
        self._recent: deque[float] = deque()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self.batches = BatchDesk(self._batch_line, delay=batch_delay, faults=batch_faults or [])
        self.batch_api = batch_api
        """The files and batches this server holds (``batches.batches``, ``batches.uploads``)."""

    # ---- lifecycle -------------------------------------------------------------------------

    def start(self) -> FakeOpenAI:
        handler = type("Handler", (_Handler,), {"fake": self})
        self._server = _Server(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        assert self._server is not None, "start the server first"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    # ---- log views -------------------------------------------------------------------------

    def chat_log(self) -> list[LoggedRequest]:
        """Chat requests, sent on their own or as lines of a batch (``batch`` says which)."""
        return [r for r in self.log if r.path.endswith("/chat/completions")]

    def online_log(self) -> list[LoggedRequest]:
        """Chat requests sent on their own, not in a batch."""
        return [r for r in self.chat_log() if r.batch is None]

    def batch_log(self) -> list[LoggedRequest]:
        """Chat requests answered as lines of a batch."""
        return [r for r in self.chat_log() if r.batch is not None]

    @property
    def max_in_flight(self) -> int:
        return max((r.in_flight for r in self.log), default=0)

    def counts(self) -> dict[str, int]:
        """Requests by outcome: ``ok``, ``rejected_format`` or the fault kind."""
        out: dict[str, int] = {}
        for r in self.log:
            key = r.fault or ("ok" if r.status == 200 else f"http_{r.status}")
            out[key] = out.get(key, 0) + 1
        return out

    def reset_log(self) -> None:
        with self._lock:
            self.log.clear()
            self._recent.clear()

    def summary(self, step: float = 0.1) -> dict[str, Any]:
        """Calls, tokens and the concurrency over time (every ``step`` seconds) so far."""
        with self._lock:
            log = list(self.log)
        return load_summary(log, step)

    def _delay(self) -> float:
        if callable(self.latency):
            with self._lock:
                return max(0.0, self.latency(self._rng))
        return self.latency

    def _over_rate(self, now: float) -> bool:
        """Whether a request arriving ``now`` exceeds the rate limit (counts it if not)."""
        if self.rate_limit is None:
            return False
        while self._recent and self._recent[0] <= now - 1.0:
            self._recent.popleft()
        if len(self._recent) >= self.rate_limit:
            return True
        self._recent.append(now)
        return False

    # ---- request handling ------------------------------------------------------------------

    def _pick_fault(self, request: FakeRequest) -> Fault | None:
        with self._lock:
            for fault in self.faults:
                if fault.schema is not None and fault.schema != request.schema_name:
                    continue
                if fault.match is not None and not fault.match(request):
                    continue
                if fault.times is not None and fault.fired >= fault.times:
                    continue
                if fault.rate < 1.0 and self._rng.random() >= fault.rate:
                    continue
                fault.fired += 1
                return fault
        return None

    def _chat(
        self, body: dict[str, Any], entry: LoggedRequest, api_key: str = ""
    ) -> tuple[int, dict, dict]:
        request = FakeRequest.parse(body)
        rf_type = (request.response_format or {}).get("type")
        entry.schema_name, entry.response_format = request.schema_name, rf_type
        entry.repair = request.is_repair
        if rf_type == "json_schema" and not self.json_schema:
            entry.fault = "rejected_format"
            message = "Unsupported response_format type json_schema: use json_object with a schema"
            return 500, {}, {"error": {"code": 500, "message": message, "type": "server_error"}}
        if rf_type == "json_object" and not self.json_object:
            entry.fault = "rejected_format"
            message = "response_format json_object is not supported by this model"
            return 400, {}, {"error": {"message": message, "type": "invalid_request_error"}}
        if body.get("logprobs") and self.logprobs == "reject":
            entry.fault = "rejected_logprobs"
            message = "logprobs are not supported by this model"
            return 400, {}, {"error": {"message": message, "type": "invalid_request_error"}}
        fault = self._pick_fault(request)
        if fault is not None:
            entry.fault = fault.kind
            if fault.kind == "rate_limit":
                headers = {}
                if fault.retry_after is not None:
                    headers["Retry-After"] = str(fault.retry_after)
                error = {"message": "Rate limit reached, retry later", "type": "rate_limit"}
                return 429, headers, {"error": error}
            if fault.kind == "quota":
                error = {
                    "message": "You exceeded your current quota, please check your plan and "
                    "billing details.",
                    "type": fault.code,
                    "code": fault.code,
                }
                return fault.status, {}, {"error": error}
            if fault.kind == "reset":
                entry.reset = fault.reset_after
            if fault.kind == "server_error":
                return 500, {}, {"error": {"message": "internal error", "type": "server_error"}}
            if fault.kind == "unauthorized":
                error = {
                    # Some servers echo the key they were given; the client must not keep it.
                    "message": f"Incorrect API key provided: {api_key}",
                    "type": "invalid_request_error",
                    "code": "invalid_api_key",
                }
                return 401, {}, {"error": error}
            if fault.kind == "model_not_found":
                error = {
                    "message": f"The model `{request.model}` does not exist",
                    "type": "invalid_request_error",
                    "code": "model_not_found",
                }
                return 404, {}, {"error": error}
            if fault.kind == "slow":
                time.sleep(fault.delay)
            if fault.kind == "slow_drip":
                entry.drip = fault.drip_interval
        text = self.responder(request)
        if fault is not None:
            text = _corrupt(text, fault.kind)
            if fault.kind == "oversized":
                text += " " * max(0, fault.size - len(text))
            if fault.kind == "echo_key":
                text = _echo(text, f" (key: {api_key})")
        prompt = sum(count_tokens(str(m.get("content") or "")) + 4 for m in request.messages)
        if self.count_schema_tokens:
            if rf_type == "json_schema":
                prompt += count_tokens(json.dumps(request.response_format, ensure_ascii=False))
            if body.get("tools"):
                prompt += count_tokens(json.dumps(body["tools"], ensure_ascii=False))
        completion = count_tokens(text)
        finish = "stop"
        limit = body.get("max_tokens")
        if isinstance(limit, int) and completion > limit:  # cut off, as a real server does
            while text and count_tokens(text) > limit:
                text = text[: max(0, len(text) - max(1, (count_tokens(text) - limit) * 2))]
            completion, finish = count_tokens(text), "length"
        entry.prompt_tokens, entry.completion_tokens = prompt, completion
        usage: dict[str, Any] = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
        if fault is not None and fault.kind == "bad_usage":
            usage = (
                dict(fault.usage)
                if fault.usage is not None
                else {
                    "prompt_tokens": -1_000_000,
                    "completion_tokens": -1_000_000,
                    "total_tokens": -2_000_000,
                }
            )
        return (
            200,
            {},
            {
                "id": f"chatcmpl-fake-{entry.index}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": request.model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": text},
                        "finish_reason": finish,
                        "logprobs": {"content": self._logprobs(text, request, fault)}
                        if body.get("logprobs") and self.logprobs == "yes"
                        else None,
                    }
                ],
                "usage": usage,
            },
        )

    def _logprobs(self, text: str, request: FakeRequest, fault: Fault | None) -> list[dict]:
        content = fake_logprobs(text, request, self.confidence)
        if fault is not None and fault.kind == "bad_logprobs":
            for item in content:
                item["logprob"] = fault.logprob
                for alternative in item["top_logprobs"]:
                    alternative["logprob"] = fault.logprob
        return content

    def _embeddings(self, body: dict[str, Any], entry: LoggedRequest) -> tuple[int, dict, dict]:
        inputs = body.get("input")
        texts = [inputs] if isinstance(inputs, str) else list(inputs or [])
        tokens = sum(count_tokens(str(t)) for t in texts)
        entry.prompt_tokens = tokens
        data = [
            {"object": "embedding", "index": i, "embedding": self.embed(str(t))}
            for i, t in enumerate(texts)
        ]
        return (
            200,
            {},
            {
                "object": "list",
                "data": data,
                "model": body.get("model", ""),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )

    def handle(self, path: str, body: dict[str, Any], api_key: str = "") -> tuple[int, dict, dict]:
        """Answer one chat or embeddings request; `api_key` is the bearer token it came with."""
        status, headers, payload, _entry = self._handle(path, body, api_key)
        assert isinstance(payload, dict)
        return status, headers, payload

    def _batch_line(self, body: dict[str, Any], batch_id: str, api_key: str) -> tuple[int, dict]:
        """Answer one line of a batch through the chat path, logged as a chat request."""
        with self._lock:
            self._in_flight += 1
            entry = LoggedRequest(
                index=len(self.log),
                path="/v1/chat/completions",
                started=time.monotonic(),
                in_flight=self._in_flight,
                body=body if self.keep_bodies else {},
                batch=batch_id,
            )
            self.log.append(entry)
        try:
            status, _headers, payload = self._chat(body, entry, api_key)
            entry.status = status
            return status, payload
        finally:
            with self._lock:
                self._in_flight -= 1
                entry.finished = time.monotonic()

    def _handle(
        self,
        path: str,
        body: dict[str, Any],
        api_key: str,
        *,
        method: str = "POST",
        upload: dict[str, Any] | None = None,
    ) -> tuple[int, dict, dict | bytes, LoggedRequest]:
        with self._lock:
            now = time.monotonic()
            self._in_flight += 1
            entry = LoggedRequest(
                index=len(self.log),
                path=path,
                started=now,
                in_flight=self._in_flight,
                body=body if self.keep_bodies else {},
            )
            self.log.append(entry)
            limited = self._over_rate(now)
        try:
            if limited:
                entry.status, entry.fault = 429, "rate_limit"
                error = {"message": "Rate limit reached, retry later", "type": "rate_limit"}
                return 429, {"Retry-After": "1"}, {"error": error}, entry
            batch_reply = (
                self.batches.route(method, path, body, api_key, upload) if self.batch_api else None
            )
            if batch_reply is not None:  # files and batches: no simulated latency
                entry.status = batch_reply[0]
                return (*batch_reply, entry)
            delay = self._delay()
            if delay:
                time.sleep(delay)
            headers: dict[str, str]
            if method != "POST":
                status, headers, payload = 404, {}, {"error": {"message": f"no route {path}"}}
            elif path.endswith("/chat/completions"):
                status, headers, payload = self._chat(body, entry, api_key)
            elif path.endswith("/embeddings"):
                status, headers, payload = self._embeddings(body, entry)
            else:
                status, headers, payload = 404, {}, {"error": {"message": f"no route {path}"}}
            entry.status = status
            return status, headers, payload, entry
        finally:
            with self._lock:
                self._in_flight -= 1
                entry.finished = time.monotonic()


def _echo(text: str, extra: str) -> str:
    """`text` with `extra` at the end of the first non-empty string of a JSON reply other than
    a verdict (so it stays valid against its schema), else at the end of the text."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return text + extra

    def add(node: Any) -> bool:
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in items:
            if isinstance(value, str) and value and key not in ("verdict",):
                node[key] = value + extra
                return True
            if isinstance(value, (dict, list)) and add(value):
                return True
        return False

    if isinstance(data, (dict, list)) and add(data):
        return json.dumps(data, ensure_ascii=False)
    return text + extra


def _corrupt(text: str, kind: str) -> str:
    if kind == "malformed":
        return "Sure! Here is my evaluation: {" + text[1:].replace('"', "'")
    if kind == "truncated":
        return text[: max(1, len(text) // 2)]
    if kind == "wrong_count":
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            return text
        for key, value in data.items():  # the first list of indexed verdicts
            if (
                value
                and isinstance(value, list)
                and isinstance(value[0], dict)
                and any(k.endswith("index") for k in value[0])
            ):
                data[key] = value[:-1] if len(value) > 1 else value * 2
                break
        return json.dumps(data, ensure_ascii=False)
    return text


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 512  # the default backlog (5) stalls bursts of new connections for 1 s


class _Handler(BaseHTTPRequestHandler):
    fake: FakeOpenAI
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes: with Nagle on, the body waits for the client's
    # delayed ACK (up to 40 ms a call), which would swamp any latency being simulated.
    disable_nagle_algorithm = True

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        content_type = self.headers.get("Content-Type") or ""
        upload = None
        if content_type.startswith("multipart/form-data"):
            upload, body = parse_multipart(content_type, raw), {}
        else:
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                self._send(400, {}, {"error": {"message": "body is not JSON"}})
                return
        status, headers, payload, entry = self.fake._handle(
            self.path, body, self._api_key(), upload=upload
        )
        if entry.reset is not None:
            self._reset(status, headers, payload, entry.reset)
            return
        self._send(status, headers, payload, drip=entry.drip)

    def do_GET(self) -> None:
        status, headers, payload, _entry = self.fake._handle(
            self.path, {}, self._api_key(), method="GET"
        )
        self._send(status, headers, payload)

    def _reset(
        self, status: int, headers: dict[str, str], payload: dict[str, Any] | bytes, after: int
    ) -> None:
        """Send the first `after` bytes of the reply, then reset the connection (RST)."""
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode("utf-8")
        head = f"HTTP/1.1 {status} OK\r\nContent-Type: application/json\r\n"
        head += "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        whole = f"{head}Content-Length: {len(data)}\r\n\r\n".encode() + data
        with contextlib.suppress(OSError):
            if after:
                self.wfile.write(whole[:after])
                self.wfile.flush()
            # A zero linger time makes close() send RST instead of FIN.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
        self.close_connection = True

    def _api_key(self) -> str:
        auth = self.headers.get("Authorization") or ""
        return auth.removeprefix("Bearer ").strip()

    def _send(
        self,
        status: int,
        headers: dict[str, str],
        payload: dict[str, Any] | bytes,
        drip: float = 0.0,
    ) -> None:
        if isinstance(payload, bytes):
            data = payload
        else:
            data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        headers = {"Content-Type": "application/json", **headers}
        try:
            self.send_response(status)
            self.send_header("Content-Length", str(len(data)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            if not drip:
                self.wfile.write(data)
                return
            for i in range(len(data)):  # until the client gives up or the server stops
                if self.fake._server is None:
                    return
                self.wfile.write(data[i : i + 1])
                time.sleep(drip)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
            pass

    def log_message(self, format: str, *args: Any) -> None:
        pass
