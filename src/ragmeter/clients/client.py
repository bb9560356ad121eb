"""Chat completions through any OpenAI-compatible endpoint, with retries, cache and accounting."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeGuard
from urllib.parse import urlparse

from .._exceptions import ConfigError, JudgeUnavailable
from .._util.redact import MASK, looks_like_a_key, redact, redact_url
from . import logprobs
from .batch import DEFAULT_POLL_SECONDS, BatchCollector, BatchRequest, BatchStore
from .cache import LLMCache, cache_key, canonical_json
from .cost import BudgetBusy, CostTracker, PriceTable, Reservation, Usage, count_tokens
from .errors import LLMCallError, scrubbed
from .jsonblock import decode_json
from .logprobs import TokenLogprob
from .retry import AdaptiveLimiter, RetryPolicy, RetryStats, check_one_loop, run_with_retries

Message = dict[str, str]
LOCAL_HOSTS = {"localhost", "127.0.0.1", "0.0.0.0", "::1", "[::1]", "host.docker.internal"}


def resolve_api_key(api_key_env: str | None, base_url: str | None) -> str:
    """The API key from ``$api_key_env``; ``"EMPTY"`` for local servers or when no variable
    is named. Raises :class:`ConfigError` naming the variable to set otherwise."""
    if not api_key_env:
        return "EMPTY"
    if looks_like_a_key(api_key_env):
        raise ConfigError(
            "--api-key-env (api_key_env) takes the NAME of an environment variable that holds "
            "the key, not the key itself: export OPENAI_API_KEY=... and pass its name"
        )
    key = os.environ.get(api_key_env)
    if key:
        return key
    host = urlparse(base_url or "").hostname or ""
    if base_url and host in LOCAL_HOSTS:
        return "EMPTY"
    raise ConfigError(
        f"No API key found: set the environment variable {api_key_env} "
        f'(or name another one with api_key_env; set it to "" for servers that need no key).'
    )


@dataclass
class ChatResponse:
    """One completion: its text, token usage and where it came from."""

    text: str
    key: str
    """Cache key, used as the raw-output id."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False
    logprobs: Sequence[TokenLogprob] | None = None
    """Per output token, when asked for and the endpoint returned them."""

    @property
    def usage(self) -> Usage:
        return Usage(1, self.prompt_tokens, self.completion_tokens)


@dataclass
class ChatClient:
    """Async chat client over ``openai.AsyncOpenAI`` (SDK retries off: ours are adaptive)."""

    model: str
    base_url: str | None = None
    api_key_env: str | None = "OPENAI_API_KEY"
    temperature: float = 0.0
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    concurrency: int = 8
    cache: LLMCache = field(default_factory=LLMCache)
    use_cache: bool = True
    tracker: CostTracker | None = None
    extra_params: dict[str, Any] = field(default_factory=dict)
    cache_scope: str | None = None
    top_logprobs: int = 0
    """Ask for token log-probabilities with this many alternatives (0: do not ask)."""
    batch: bool = False
    """Send the calls the cache cannot answer through the endpoint's batch API, in rounds
    (see :mod:`ragmeter.clients.batch`), billed at batch prices."""
    batch_poll_seconds: float = DEFAULT_POLL_SECONDS
    """Seconds between two looks at a batch in progress."""
    """The endpoint's identity in the cache and the output-mode memory (default: base_url): a
    server on a random port names what it serves instead, so a re-run hits the cache."""

    def __post_init__(self) -> None:
        self._api_key = resolve_api_key(self.api_key_env, self.base_url)
        self.limiter = AdaptiveLimiter(self.concurrency)
        self.retry_stats = RetryStats()
        if self.tracker is None:
            self.tracker = CostTracker(self.model, PriceTable())
        self._sdk: Any = None
        self._run_loop: asyncio.AbstractEventLoop | None = None
        self.detect_lock = asyncio.Lock()
        """Held while the endpoint's output mode is found out (`StructuredCaller`), so calls
        that start meanwhile wait for the answer instead of each probing."""
        self._answered = False
        self._unavailable: JudgeUnavailable | None = None
        self.logprobs_note: str | None = None
        """Why verdicts carry no probabilities although they were asked for, once known."""
        self.usage_note: str | None = None
        """That the endpoint reported impossible token counts (estimated instead), once seen."""
        self.invalid_logprobs_note: str | None = None
        """That the endpoint sent impossible token log-probabilities (dropped), once seen."""
        self._rendered_formats: dict[int, tuple[dict[str, Any], str]] = {}

    @property
    def endpoint(self) -> str:
        """``base_url|model``, the identity under which capabilities are remembered."""
        where = self.cache_scope or self.base_url or "https://api.openai.com/v1"
        return f"{redact_url(where)}|{self.model}"  # stored in the cache: no password in it

    @property
    def where(self) -> str:
        """The endpoint as messages and warnings name it: no password, no key."""
        return redact(self.base_url or "api.openai.com", [self._api_key])

    def prepare(self) -> None:
        """Build the HTTP client now (tens of milliseconds) rather than on the first call.

        The client belongs to the event loop that first uses it (for synchronous callers,
        ragmeter's one loop: see `ragmeter._util.sync`) until :meth:`aclose`."""
        if self._sdk is None:
            self._sdk = self._new_sdk()

    def _new_sdk(self) -> Any:
        return new_sdk_client(self._api_key, self.base_url, self.policy.timeout)

    def _client(self) -> Any:
        if self._sdk is None:
            self._sdk = self._new_sdk()
        self._run_loop = check_one_loop(self._run_loop, self.where)
        return self._sdk

    @functools.cached_property
    def batcher(self) -> BatchCollector[ChatResponse]:
        """The collector of this client's batch calls (used when ``batch`` is on)."""
        return BatchCollector(
            sdk=self._client,
            accept=self._accept_batch_reply,
            store=BatchStore(self.cache.path),
            endpoint=self.endpoint,
            where=self.where,
            policy=self.policy,
            poll_seconds=self.batch_poll_seconds,
            unreachable_is_fatal=lambda: not self._answered,
        )

    def request_key(
        self,
        messages: list[Message],
        response_format: dict[str, Any] | None,
        salt: int = 0,
        max_tokens: int | None = None,
    ) -> str:
        params: dict[str, Any] = {"temperature": self.temperature, **self.extra_params}
        if max_tokens is not None:
            params["max_tokens"] = max_tokens
        if self.top_logprobs:
            params["top_logprobs"] = self.top_logprobs
        if salt:
            params["_attempt"] = salt  # a fresh retry must not be answered by the cache
        # The password of a `user:pass@` URL stays out of the key too: the request sits next to
        # it in the cache, so the key's hash would let anyone holding the file guess it.
        payload: dict[str, object] = {
            "base_url": redact_url(self.cache_scope or self.base_url or ""),
            "model": self.model,
            "messages": messages,
            "params": params,
            "response_format": response_format,
        }
        if response_format is None:
            return cache_key(payload)
        return cache_key(payload, {"response_format": self._rendered(response_format)})

    def _rendered(self, response_format: dict[str, Any]) -> str:
        """`response_format` as canonical JSON, rendered once per object (the structured
        caller sends one object per output mode and class: a schema was 40% of a key)."""
        known = self._rendered_formats.get(id(response_format))
        if known is not None and known[0] is response_format:
            return known[1]
        text = canonical_json(response_format)
        if len(self._rendered_formats) < 256:  # the object is kept, so its id stays its own
            self._rendered_formats[id(response_format)] = (response_format, text)
        return text

    async def complete(
        self,
        messages: list[Message],
        *,
        response_format: dict[str, Any] | None = None,
        metric: str | None = None,
        case_id: str | None = None,
        salt: int = 0,
        max_tokens: int | None = None,
    ) -> ChatResponse:
        """One chat completion, from the cache when possible; ``max_tokens`` caps the reply
        (a one-token verdict), and a reply it cut off is cached like any other.

        Raises :class:`LLMCallError` (or a subclass) when the endpoint fails for good,
        :class:`CostLimitReached` when the budget is spent, and :class:`JudgeUnavailable` when
        the endpoint refused the key or model (then, for every later call, without sending).
        """
        assert self.tracker is not None
        key = self.request_key(messages, response_format, salt, max_tokens)
        if self.use_cache:
            hit = self.cache.get(key)
            if hit is not None:
                response = ChatResponse(
                    hit.response,
                    key,
                    hit.prompt_tokens,
                    hit.completion_tokens,
                    cached=True,
                    logprobs=logprobs.loads(hit.logprobs),
                )
                self.tracker.record(response.usage, cached=True, metric=metric, case_id=case_id)
                return response
        if self._unavailable is not None:
            raise JudgeUnavailable(str(self._unavailable))
        try:
            return await self._complete_uncached(
                messages, response_format, key, metric, case_id, salt, max_tokens
            )
        except (LLMCallError, JudgeUnavailable) as exc:
            clean = scrubbed(exc, [self._api_key])
            if clean is exc:
                raise
            # An endpoint echoed a secret: it must not reach results, reports or logs.
            raise clean from None

    async def _complete_uncached(
        self,
        messages: list[Message],
        response_format: dict[str, Any] | None,
        key: str,
        metric: str | None,
        case_id: str | None,
        salt: int,
        max_tokens: int | None,
    ) -> ChatResponse:
        """Send one call under the budget, once more without logprobs if they are refused."""
        assert self.tracker is not None
        reservation = await self._reserve(estimate_prompt_tokens(messages, response_format))
        # A batch call holds its reservation until its batch ends: the whole round is
        # reserved at once, at batch prices.
        asked_logprobs = bool(self.top_logprobs)
        cap = reservation.max_tokens
        if max_tokens is not None:
            cap = max_tokens if cap is None else min(cap, max_tokens)
        own_cap = max_tokens is not None and cap == max_tokens  # a cut-off reply is the answer
        try:
            try:
                return await self._send(
                    messages, response_format, key, cap, metric, case_id, salt, own_cap
                )
            except LLMCallError as exc:
                if not (asked_logprobs and exc.status == 400 and "logprob" in exc.body.lower()):
                    raise
                if self.top_logprobs:  # never again for this endpoint; resent without
                    self.top_logprobs = 0
                    self.logprobs_note = (
                        f"{self.model} at {self.where} refused token "
                        f"log-probabilities ({exc.body[:120]}): verdicts are 0/1, not graded"
                    )
                key = self.request_key(messages, response_format, salt, max_tokens)
                return await self._send(
                    messages, response_format, key, cap, metric, case_id, salt, own_cap
                )
        finally:
            self.tracker.release(reservation)

    async def _reserve(self, prompt_tokens: int) -> Reservation:
        """Budget for one call, waiting while only calls in flight keep it out."""
        assert self.tracker is not None
        while True:
            try:
                return self.tracker.reserve(prompt_tokens, batch=self.batch)
            except BudgetBusy:
                await asyncio.sleep(0.05)

    async def _send(
        self,
        messages: list[Message],
        response_format: dict[str, Any] | None,
        key: str,
        max_tokens: int | None,
        metric: str | None,
        case_id: str | None,
        salt: int,
        asked_cap: bool = False,
    ) -> ChatResponse:
        assert self.tracker is not None
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            **self.extra_params,
        }
        if response_format is not None:
            body["response_format"] = response_format
        if max_tokens is not None:  # under a budget; not part of the cache key
            body["max_tokens"] = max_tokens
        if self.top_logprobs:
            body["logprobs"] = True
            body["top_logprobs"] = self.top_logprobs
        if self.batch:
            request = {"messages": messages, "response_format": response_format, "salt": salt}
            return await self._send_batched(
                BatchRequest(key, body, request, asked_cap), metric, case_id
            )
        sdk = self._client()

        # The SDK's documented raw `post` sends the body as is; `chat.completions.create` walks
        # every message and schema through a type-directed transform first (about a third of
        # the client's time per call, which delays the next call when replies come in bursts).
        # `cast_to=bytes` returns the body as is, decoded here by orjson (the token
        # log-probabilities make a reply tens of KB of JSON: the standard library's decoder was
        # a sixth of the client's time per call); building a `ChatCompletion` from it validated
        # every token (pydantic), a fifth. The few fields used are read from the dict as
        # leniently as the SDK's `construct` read them (a missing field is None, a value is
        # kept as sent).
        async def post() -> object:
            if self._unavailable is not None:  # another call found out while this one queued
                raise JudgeUnavailable(str(self._unavailable))
            if not self.top_logprobs:  # refused by the endpoint while this call queued
                body.pop("logprobs", None)
                body.pop("top_logprobs", None)
            reply = await sdk.post(
                "/chat/completions",
                cast_to=bytes,
                body=body,
                # The request's own key as its idempotency key: the SDK would otherwise make a
                # uuid4 per call (an os.urandom syscall, a few % of the client's time per call
                # in bench/profile_calls.py), and a retry of the same request may share it.
                options={"timeout": self.policy.timeout, "idempotency_key": key},
            )
            return _decoded(reply)

        try:
            completion: Any = await run_with_retries(
                post,
                policy=self.policy,
                limiter=self.limiter,
                stats=self.retry_stats,
                format_sensitive=response_format is not None,
                what=f"judge {self.model} at {self.where}",
                unreachable_is_fatal=not self._answered,
            )
        except JudgeUnavailable as exc:
            self._unavailable = self._unavailable or JudgeUnavailable(
                redact(str(exc), [self._api_key])
            )
            raise
        self._answered = True
        response = self._accept(completion, messages, response_format, key, salt, asked_cap)
        self.tracker.record(response.usage, cached=False, metric=metric, case_id=case_id)
        return response

    async def _send_batched(
        self, request: BatchRequest, metric: str | None, case_id: str | None
    ) -> ChatResponse:
        """One call through the batch collector: the first call to get a reply pays for it
        (at batch prices), later calls for the same key count as cached."""
        assert self.tracker is not None
        try:
            response, first = await self.batcher.complete(request)
        except JudgeUnavailable as exc:
            self._unavailable = self._unavailable or JudgeUnavailable(
                redact(str(exc), [self._api_key])
            )
            raise
        if not first:
            response = dataclasses.replace(response, cached=True)
        self.tracker.record(
            response.usage, cached=not first, metric=metric, case_id=case_id, batch=first
        )
        return response

    def _accept_batch_reply(self, request: BatchRequest, completion: Any) -> ChatResponse:
        """Read and cache a batch line's reply, as :meth:`_accept` does an online one."""
        self._answered = True
        asked = request.request
        return self._accept(
            completion,
            asked["messages"],
            asked["response_format"],
            request.key,
            asked["salt"],
            request.asked_cap,
        )

    def _accept(
        self,
        completion: Any,
        messages: list[Message],
        response_format: dict[str, Any] | None,
        key: str,
        salt: int,
        asked_cap: bool,
    ) -> ChatResponse:
        """A decoded chat completion as a response, cached unless a budget cut it off."""
        if isinstance(completion, str):  # JSON under another content type: the SDK read it too
            with contextlib.suppress(ValueError):
                completion = json.loads(completion)
        try:
            choice = completion["choices"][0]
            text = choice["message"].get("content") or ""
        except (AttributeError, IndexError, KeyError, TypeError) as exc:
            raise LLMCallError(f"endpoint returned no choices: {completion!r:.200}") from exc
        secret = self._api_key if len(self._api_key) >= 8 else None
        if secret is not None and secret in text:  # never cache or report the key
            text = text.replace(secret, MASK)
        tokens, keep = (
            self._read_logprobs(choice, secret, bool(text)) if self.top_logprobs else (None, True)
        )
        usage = completion.get("usage")
        reported: tuple[object, object] | None = (
            (_field(usage, "prompt_tokens"), _field(usage, "completion_tokens"))
            if usage is not None
            else None
        )
        if (
            reported is not None
            and _plausible_tokens(reported[0])
            and _plausible_tokens(reported[1])
        ):
            prompt_tokens, completion_tokens = reported[0], reported[1]
        else:
            # Some servers report no usage: count it ourselves so budgets still hold. Counts
            # that cannot be (negative, absurd, not integers) are replaced the same way, with a
            # warning: taken as is, a negative count drives the cost down so the budget never
            # trips, and 0 would do no better; refusing the reply would throw away a verdict
            # over a billing field we can estimate ourselves.
            if reported is not None and self.usage_note is None:
                self.usage_note = (
                    f"{self.model} at {self.where} reported impossible "
                    f"token usage ({reported[0]!r:.40} prompt, {reported[1]!r:.40} completion): "
                    "tokens and cost are estimated for such replies"
                )
            prompt_tokens = estimate_prompt_tokens(messages, response_format)
            completion_tokens = count_tokens(text)
        stored = logprobs.dumps(tokens)
        if secret is not None and tokens is not None and logprobs.mentions(tokens, secret, stored):
            # An endpoint echoed the key: the text has it masked, so these tokens no longer
            # spell the text (they give no probability) and would give the key back.
            tokens = stored = None
        response = ChatResponse(text, key, prompt_tokens, completion_tokens, logprobs=tokens)
        # Cut off by a budget, or with log-probabilities no probability has (a re-run must
        # see them and warn again): not cached.
        if not keep or (_field(choice, "finish_reason") == "length" and not asked_cap):
            return response
        self.cache.put(
            key,
            base_url=redact_url(self.base_url or ""),
            model=self.model,
            request={"messages": messages, "response_format": response_format, "salt": salt},
            response=text,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            logprobs=stored,
        )
        return response

    def _read_logprobs(
        self, choice: Any, secret: str | None, answered: bool
    ) -> tuple[Sequence[TokenLogprob] | None, bool]:
        """The reply's token log-probabilities, and whether the reply may be cached.

        Values no probability has (NaN, above 0) or entries that cannot be read are dropped
        with a warning (`invalid_logprobs_note`) and the reply is not cached: taken as they
        are, NaN turned every verdict into P 0 and +5.0 every one of three labels into 1/3.
        The verdicts of such a reply are read from its text (0/1), as from an endpoint that
        sends none: the text is the model's answer whatever the numbers beside it say. Tokens
        that spell the API key are dropped in :meth:`_accept`."""
        try:
            tokens = logprobs.from_choice(choice)
        except (AttributeError, KeyError, TypeError, ValueError):
            tokens, bad = None, "entries that cannot be read"
        else:
            if tokens is None:
                if answered and self.logprobs_note is None:
                    self.logprobs_note = (
                        f"{self.model} at {self.where} returned no token "
                        "log-probabilities: verdicts are 0/1, not graded"
                    )
                return None, True
            value = logprobs.impossible_value(tokens)
            if value is None:
                return tokens, True
            bad = f"{value!r}"
        if self.invalid_logprobs_note is None:
            self.invalid_logprobs_note = (
                f"{self.model} at {self.where} returned impossible token log-probabilities "
                f"({bad}; a log-probability is a finite number of at most 0): they were "
                "dropped, and the verdicts of those replies are read from their text (0/1), "
                "not graded"
            )
        return None, False

    async def aclose(self) -> None:
        """Close the HTTP client and forget what was bound to this run's event loop (queued
        waiters); the next call, on any loop, starts afresh."""
        if self._sdk is not None:
            with contextlib.suppress(RuntimeError):  # closed from another loop than its own
                await self._sdk.close()
            self._sdk = None
        self._run_loop = None
        self.detect_lock = asyncio.Lock()  # the old one may be bound to the ended run's loop
        self.limiter.reset()


def _decoded(reply: bytes) -> object:
    """A reply body as JSON, or as text when it is not JSON (:meth:`ChatClient._accept` then
    says the endpoint returned no choices, quoting it)."""
    try:
        return decode_json(reply)
    except ValueError:
        return reply.decode("utf-8", "replace")


def new_sdk_client(api_key: str, base_url: str | None, timeout: float) -> Any:
    """An ``openai.AsyncOpenAI`` for ragmeter's chat and embedding calls: no retries of its own
    (ragmeter retries, see `retry`), the SDK's pool defaults and redirects to the same host
    only (`redirects`), replies bounded in size (`replycap`), over aiohttp where it can be
    (`_http_client`)."""
    import openai

    from .redirects import refuse_cross_host_redirect
    from .replycap import ACCEPT_ENCODING, cap_reply_size

    options: dict[str, Any] = {
        "timeout": timeout,
        "headers": {"Accept-Encoding": ACCEPT_ENCODING},
        "event_hooks": {"response": [refuse_cross_host_redirect, cap_reply_size]},
    }
    return openai.AsyncOpenAI(
        api_key=api_key,
        base_url=base_url,
        max_retries=0,
        timeout=timeout,
        http_client=_http_client(options, base_url),
    )


def _http_client(options: dict[str, Any], base_url: str | None) -> Any:
    """The SDK's aiohttp-backed client (``openai[aiohttp]``, which the SDK recommends for many
    concurrent calls): with 128 calls in flight, httpx's own connection pool scans every
    connection at each request's start and end, and the aiohttp transport took a quarter off
    the client's CPU per call in bench/scale.py. Without the extra (an older SDK, a trimmed
    install), or for a URL with a user and password in it (aiohttp refuses those beside the
    API key's Authorization header), the httpx client, with its idle-connection probe made
    cheap."""
    import openai

    from . import netprobe

    aiohttp_client = getattr(openai, "DefaultAioHttpClient", None)
    parts = urlparse(base_url or "")
    if aiohttp_client is not None and not (parts.username or parts.password):
        with contextlib.suppress(RuntimeError):  # the SDK says aiohttp is not installed
            return aiohttp_client(**options)
    http_client = openai.DefaultAsyncHttpxClient(**options)
    netprobe.install(http_client)
    return http_client


def _field(value: object, name: str) -> object:
    """``value[name]`` of a decoded JSON object, None when absent or not an object (as the
    SDK's lenient ``construct`` left a missing optional field)."""
    return value.get(name) if isinstance(value, dict) else None


MAX_CALL_TOKENS = 10_000_000
"""More tokens than any model reads or writes in one call (the largest context windows hold a
few million): a usage count above it is not believed."""


def _plausible_tokens(count: object) -> TypeGuard[int]:
    """Whether `count` can be a token count of one call: an int in [0, MAX_CALL_TOKENS]."""
    return isinstance(count, int) and not isinstance(count, bool) and 0 <= count <= MAX_CALL_TOKENS


def estimate_prompt_tokens(
    messages: list[Message],
    response_format: dict[str, Any] | None = None,
    model: str | None = None,
) -> int:
    """Prompt tokens a call will be billed for, estimated before sending it: the messages
    with a few tokens of chat framing each, and the response schema when one is sent (hosted
    APIs bill it as prompt)."""
    import json

    tokens = sum(count_tokens(m.get("content", ""), model) + 4 for m in messages)
    if response_format is not None and response_format.get("type") == "json_schema":
        tokens += count_tokens(json.dumps(response_format, ensure_ascii=False), model)
    return tokens
