"""Text similarity for answer relevancy: a remote /embeddings endpoint, local models (MiniLM for
English, USE multilingual v3 for Chinese), or character bigrams when no model is installed."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import math
import re
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

from .._exceptions import JudgeUnavailable
from .._util.native_calls import native_call
from .._util.redact import redact, redact_url
from ..clients.cache import LLMCache, cache_key
from ..clients.client import new_sdk_client, resolve_api_key
from ..clients.cost import Usage
from ..clients.errors import InvalidReply, LLMCallError, scrubbed
from ..clients.retry import (
    AdaptiveLimiter,
    RetryPolicy,
    RetryStats,
    check_one_loop,
    run_with_retries,
)

_SPACE_PUNCT = re.compile(r"[\s\W_]+", re.UNICODE)


class Similarity(Protocol):
    """Scores how close texts are to an anchor text, in [-1, 1]."""

    @property
    def name(self) -> str:
        """What the scores come from, for the judge's fingerprint (read-only)."""
        ...

    async def similarity(self, anchor: str, texts: list[str], lang: str) -> list[float]: ...

    def prefetch(self, lang: str = "en") -> None:
        """Start loading whatever scoring `lang` needs, in the background (no-op when there is
        nothing to load)."""
        ...


def cosine(a: list[float], b: list[float]) -> float:
    """Cosine of two dense vectors; 0 when either is all zeros."""
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


def _comparable(vector: list[float]) -> bool:
    """Whether `vector` has a direction: finite, not all zero, its length not overflowing
    (NaN or infinite values turned every cosine into 0, a relevancy of 0 that no answer
    earned)."""
    squares = math.fsum(x * x for x in vector)
    return 0.0 < squares < math.inf  # NaN compares false


def bigram_cosine(a: str, b: str) -> float:
    """Cosine of character-bigram counts (case and punctuation ignored)."""
    ca, cb = _bigrams(a), _bigrams(b)
    dot = sum(v * cb[k] for k, v in ca.items())
    na = math.sqrt(sum(v * v for v in ca.values()))
    nb = math.sqrt(sum(v * v for v in cb.values()))
    return dot / (na * nb) if na and nb else 0.0


def _bigrams(text: str) -> Counter[str]:
    clean = _SPACE_PUNCT.sub(" ", text.lower()).strip()
    return Counter(clean[i : i + 2] for i in range(len(clean) - 1))


class BigramSimilarity:
    """Character-bigram cosine: no model, works for any language."""

    name = "char-bigram"

    async def similarity(self, anchor: str, texts: list[str], lang: str) -> list[float]:
        return [bigram_cosine(anchor, t) for t in texts]

    def prefetch(self, lang: str = "en") -> None:
        """Nothing to load."""


class LocalSimilarity:
    """Local embeddings: MiniLM for English, USE multilingual v3 for Chinese.

    English falls back to USE when MiniLM is not installed; either language falls back to
    character bigrams when its model is not installed (``name`` says which were used, and goes
    into the judge's fingerprint). Models load in a worker thread (MiniLM about a second, USE
    about two), never on the event loop, so judge calls keep flowing meanwhile;
    :meth:`prefetch` starts loading before they are needed. With a `cache`, similarities are
    kept in it under the models' names and the texts, as LLM replies are.
    """

    def __init__(self, cache: LLMCache | None = None) -> None:
        self._embedder: Any = None
        self._loaded = False
        self._load_lock = threading.Lock()
        self._use_prefetched = False
        self._bigram = BigramSimilarity()
        self._cache = cache
        self._models: str | None = None  # `name`, once known: part of every cache key
        self._missed = False  # whether a similarity was missing from the cache
        self._named_minilm = False  # whether `name` said MiniLM before it was loaded

    def _load(self) -> Any:
        with self._load_lock, native_call():  # may run in a daemon thread: see _native_calls
            if not self._loaded:
                try:
                    from . import load_local_embedder

                    self._embedder = load_local_embedder()
                    if self._embedder is not None:
                        self._embedder.embed(["warm up"])  # the first inference is slow
                except Exception:  # not installed or model files missing: fall back
                    self._embedder = None
                self._loaded = True
        return self._embedder

    def load(self) -> bool:
        """Load the model now (blocking); whether MiniLM is available."""
        return self._load() is not None

    def prefetch(self, lang: str = "en") -> None:
        """Start loading the model ``lang`` needs in the background (no-op once started).

        With a cache, nothing is loaded before a similarity is missing from it: a cached
        re-run embeds nothing, and loading USE would cost it seconds of CPU and 120 MB (and
        MiniLM about a second and as much: `name` does not load it)."""
        if self._cache is not None and not self._missed:
            return
        if lang == "zh":
            if not self._use_prefetched and _use_available():
                self._use_prefetched = True
                threading.Thread(target=_load_use_quietly, name="ragmeter-use", daemon=True).start()
        elif not self._loaded and not self._load_lock.locked():
            threading.Thread(target=self._load, name="ragmeter-minilm", daemon=True).start()

    @property
    def name(self) -> str:
        """The models the scores come from. MiniLM is named when it loaded, or is installed and
        has not failed, without loading it: a cached re-run, or a run without answer
        relevancy, never loads it (see :meth:`_english`)."""
        if self._loaded:
            embedder = self._embedder
            model = getattr(embedder, "name", "minilm") if embedder is not None else None
        elif _minilm_expected():
            from .minilm import MODEL_NAME

            model = MODEL_NAME
            self._named_minilm = True
        else:
            model = None
        if _use_available():
            from .use import MODEL_NAME as use

            return f"{model}+{use}(zh)" if model else use
        return f"{model}+char-bigram(zh)" if model else "char-bigram"

    async def similarity(self, anchor: str, texts: list[str], lang: str) -> list[float]:
        """Cosine of `anchor` with each of `texts`; from the cache when it was computed before
        by the same models (a cached re-run then embeds nothing)."""
        if self._cache is None:
            return await self._similarity(anchor, texts, lang)
        if self._models is None:
            self._models = self.name
        key = cache_key(
            {"similarity": self._models, "lang": lang, "anchor": anchor, "texts": texts}
        )
        stored = self._cache.get_similarities(key)
        if stored is not None and len(stored) == len(texts):
            return stored
        self._missed = True
        scores = await self._similarity(anchor, texts, lang)
        self._cache.put_similarities(key, scores)
        return scores

    async def _english(self) -> Any:
        """MiniLM, loaded in a worker thread the first time; None when it is not installed.

        Raises RuntimeError when it did not load although :attr:`name` already said it would
        be used: scores from another model must not go out under its name."""
        embedder = self._embedder if self._loaded else await asyncio.to_thread(self._load)
        if embedder is None and self._named_minilm:
            from . import local_embedder_status

            raise RuntimeError(
                f"the English similarity model did not load ({local_embedder_status()})"
            )
        return embedder

    async def _similarity(self, anchor: str, texts: list[str], lang: str) -> list[float]:
        embedder = await self._english() if lang != "zh" else None
        if embedder is None and _use_available():
            from . import load_use_embedder

            embedder = await asyncio.to_thread(load_use_embedder)
        if embedder is None:
            return await self._bigram.similarity(anchor, texts, lang)
        loop = asyncio.get_running_loop()
        vectors = await loop.run_in_executor(_model_worker(), embedder.embed, [anchor, *texts])
        return [float(vectors[0] @ vectors[i]) for i in range(1, len(texts) + 1)]


@functools.cache
def _model_worker() -> ThreadPoolExecutor:
    """The one thread that runs the local models for every judge in the process.

    The models are shared by the whole process and already spread one embedding over two
    onnxruntime threads. Run from the event loop's default pool instead, up to six embeddings
    ran at once on two cores: each worker grew its own malloc arena and onnxruntime scratch
    space (about 37 MB more peak memory in bench/scale.py) without embedding any faster.
    Texts are embedded as before, one case's together, so the vectors are the same."""
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragmeter-embed")


def _minilm_expected() -> bool:
    from .minilm import local_embedder_expected

    return local_embedder_expected()


def _use_available() -> bool:
    from .use import use_available

    return use_available()


def _load_use_quietly() -> None:
    """Prefetch USE; a failure is raised again, with its fix, where the model is used."""
    from . import load_use_embedder

    with contextlib.suppress(Exception), native_call():  # a daemon thread: see _native_calls
        load_use_embedder()


@dataclass
class EmbeddingClient:
    """An OpenAI-compatible ``/embeddings`` endpoint, cached like chat calls."""

    model: str
    base_url: str | None = None
    api_key_env: str | None = "OPENAI_API_KEY"
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    concurrency: int = 8
    cache: LLMCache = field(default_factory=LLMCache)
    use_cache: bool = True
    usage: Usage = field(default_factory=Usage)
    cached_usage: Usage = field(default_factory=Usage)

    def __post_init__(self) -> None:
        self._api_key = resolve_api_key(self.api_key_env, self.base_url)
        self.limiter = AdaptiveLimiter(self.concurrency)
        self.retry_stats = RetryStats()
        self._sdk: Any = None
        self._run_loop: asyncio.AbstractEventLoop | None = None

    @property
    def name(self) -> str:
        return f"{self.model}@{redact(self.base_url or 'openai')}"  # in fingerprints: no password

    def prefetch(self, lang: str = "en") -> None:
        """Nothing to load: the endpoint embeds."""

    def _key(self, text: str) -> str:
        where = redact_url(self.base_url or "")  # no password in the cache, not even hashed
        return cache_key({"base_url": where, "model": self.model, "input": text})

    async def embed(self, texts: list[str]) -> list[list[float]]:
        """One vector per text; only texts missing from the cache are sent, in one call."""
        vectors: dict[str, list[float]] = {}
        missing: list[str] = []
        for text in dict.fromkeys(texts):
            hit = self.cache.get_embedding(self._key(text)) if self.use_cache else None
            if hit is None:
                missing.append(text)
            else:
                vectors[text] = hit[0]
                self.cached_usage.add(Usage(0, hit[1], 0))
        if missing:
            sdk = self._client()
            try:
                response = await run_with_retries(
                    lambda: sdk.embeddings.create(
                        model=self.model, input=missing, timeout=self.policy.timeout
                    ),
                    policy=self.policy,
                    limiter=self.limiter,
                    stats=self.retry_stats,
                    what=f"embedding call to {self.model}",
                )
            except (LLMCallError, JudgeUnavailable) as exc:
                clean = scrubbed(exc, [self._api_key])
                if clean is exc:
                    raise
                raise clean from None  # the endpoint echoed the key: keep it out of results
            rows = sorted(response.data, key=lambda d: d.index)
            tokens = int(getattr(response.usage, "prompt_tokens", 0) or 0)
            self.usage.add(Usage(1, tokens, 0))
            share = tokens // max(1, len(missing))
            got = [[float(x) for x in row.embedding] for row in rows]
            if not all(map(_comparable, got)):
                raise InvalidReply(
                    f"embedding call to {self.model} returned a vector no similarity can be "
                    "taken of (NaN, infinite or all zero): refused, not cached"
                )
            for text, vector in zip(missing, got, strict=True):
                vectors[text] = vector
                self.cache.put_embedding(self._key(text), vector, share)
        return [vectors[t] for t in texts]

    async def similarity(self, anchor: str, texts: list[str], lang: str) -> list[float]:
        vectors = await self.embed([anchor, *texts])
        return [cosine(vectors[0], v) for v in vectors[1:]]

    def _client(self) -> Any:
        if self._sdk is None:
            self._sdk = new_sdk_client(self._api_key, self.base_url, self.policy.timeout)
        self._run_loop = check_one_loop(self._run_loop, self.name)
        return self._sdk

    async def aclose(self) -> None:
        """Close the HTTP client and forget queued waiters; the next call starts afresh."""
        if self._sdk is not None:
            with contextlib.suppress(RuntimeError):  # closed from another loop than its own
                await self._sdk.close()
            self._sdk = None
        self._run_loop = None
        self.limiter.reset()
