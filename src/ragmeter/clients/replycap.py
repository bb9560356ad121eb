"""A bound on the size of judge replies, enforced while they are read.

The HTTP client of :class:`~ragmeter.clients.client.ChatClient` gets :func:`cap_reply_size` as a
response hook: a body announced or found to be larger than :data:`MAX_REPLY_BYTES` stops being
read at that point and the call fails with :class:`~ragmeter.clients.errors.InvalidReply` (the
metric is unscored with the reason, nothing is cached). Compressed bodies are decompressed
here, under the same bound, so a small gzip bomb cannot expand behind it.
"""

from __future__ import annotations

import functools
import importlib
import zlib
from collections.abc import AsyncIterator
from typing import Any

from .errors import InvalidReply

MAX_REPLY_BYTES = 4_000_000
"""Largest judge reply body accepted, in bytes (after decompression). A verdict is a few KB of
JSON; what makes a real reply large is token log-probabilities, about 350 bytes a token with 5
alternatives, so this holds some 10,000 tokens of them, more than any verdict needs. A reply
past it is a runaway generation or a hostile endpoint, and reading it would only cost memory."""

ACCEPT_ENCODING = "gzip, deflate"
"""Asked for explicitly: the encodings :func:`cap_reply_size` can decompress under the bound."""

_ZLIB_OR_GZIP = zlib.MAX_WBITS | 32  # zlib.decompressobj detects either header


def too_large(limit: int = MAX_REPLY_BYTES) -> InvalidReply:
    return InvalidReply(
        f"judge reply larger than {limit:,} bytes: refused, not cached (a runaway reply or a "
        "misbehaving endpoint)"
    )


async def cap_reply_size(response: Any, limit: int = MAX_REPLY_BYTES) -> None:
    """httpx response hook: bound the body of ``response`` to `limit` bytes (a batch's output
    file, of many replies, gets a larger bound)."""
    length = response.headers.get("content-length", "")
    if length.strip().isdigit() and int(length) > limit:
        raise too_large(limit)
    encoding = response.headers.get("content-encoding", "").strip().lower()
    if encoding not in ("", "identity", "gzip", "x-gzip", "deflate"):
        raise InvalidReply(
            f"judge reply in content-encoding '{encoding[:40]}', which was not asked for "
            f"(Accept-Encoding: {ACCEPT_ENCODING})"
        )
    decoder = zlib.decompressobj(_ZLIB_OR_GZIP) if encoding not in ("", "identity") else None
    if decoder is not None:
        del response.headers["content-encoding"]  # decoded here, not again by httpx
    base = _byte_stream_class(type(response).__module__.partition(".")[0])
    response.stream = _capped_stream_class(base)(response.stream, limit, decoder)


@functools.cache
def _byte_stream_class(library: str) -> type:
    """`AsyncByteStream` of the HTTP library the response comes from (httpx or httpx2, as the
    installed openai uses): httpx reads only streams of that class."""
    stream_class: type = importlib.import_module(library).AsyncByteStream
    return stream_class


@functools.cache
def _capped_stream_class(base: type) -> type:
    class CappedStream(base):
        """The body of a response, cut off with :class:`InvalidReply` past ``limit`` bytes."""

        def __init__(self, inner: Any, limit: int, decoder: Any | None) -> None:
            self._inner = inner
            self._limit = limit
            self._decoder = decoder

        @property
        def elapsed(self) -> Any:  # httpx2 reads the response's elapsed time from its stream
            return getattr(self._inner, "elapsed", None)

        async def __aiter__(self) -> AsyncIterator[bytes]:
            total = 0
            async for chunk in self._inner:
                if self._decoder is not None:
                    try:  # at most one byte past the bound is ever decompressed
                        chunk = self._decoder.decompress(chunk, self._limit - total + 1)
                    except zlib.error as exc:
                        raise InvalidReply(f"judge reply is not valid gzip/deflate: {exc}") from exc
                total += len(chunk)
                if total > self._limit:
                    raise too_large(self._limit)
                if chunk:
                    yield chunk
            if self._decoder is not None:
                rest = self._decoder.flush()
                if total + len(rest) > self._limit:
                    raise too_large(self._limit)
                if rest:
                    yield rest

        async def aclose(self) -> None:
            await self._inner.aclose()

    return CappedStream
