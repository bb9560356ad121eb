"""A cheaper "has the server closed this idle connection?" probe for the HTTP pool.

Every time a request starts or a response is closed, the HTTP client's connection pool
(httpcore) checks each idle connection for expiry, and for an idle connection that means
asking its stream ``get_extra_info("is_readable")``. On the anyio backend that builds the
socket's whole attribute table (``getpeername`` included) to find the raw socket, then polls
it: with a fast endpoint and 128 calls in flight, about a hundred idle connections are probed
per event, and the table was a tenth of the client's time per call (bench/scale.py).

:func:`install` wraps the pool's network backend so each new stream remembers its socket once
and answers the probe with the same poll. Nothing else changes: reads, writes, TLS and every
other attribute go to the stream as before. When the client is not built as expected (another
HTTP library version, a proxy from the environment), it is left as it is.
"""

from __future__ import annotations

import select
import sys
from typing import Any


def install(http_client: Any) -> bool:
    """Wrap the network backend of ``http_client``'s connection pool (an httpx or httpx2
    ``AsyncClient``); True when done, False when the client does not have the expected shape
    (then it is unchanged and works as before, only slower)."""
    pool: Any = getattr(getattr(http_client, "_transport", None), "_pool", None)
    backend = getattr(pool, "_network_backend", None)
    if pool is None or backend is None or isinstance(backend, _ProbingBackend):
        return False
    base = _backend_base(type(pool).__module__.partition(".")[0])
    if base is None:
        return False
    pool._network_backend = _probing_backend_class(base)(backend)
    return True


class _ProbingBackend:
    """Marker base of the wrappers built by :func:`_probing_backend_class`."""


def _backend_base(library: str) -> tuple[type, type] | None:
    """``(AsyncNetworkBackend, AsyncNetworkStream)`` of the httpcore the pool comes from."""
    module = sys.modules.get(library)
    backend = getattr(module, "AsyncNetworkBackend", None)
    stream = getattr(module, "AsyncNetworkStream", None)
    if not (isinstance(backend, type) and isinstance(stream, type)):
        return None
    return backend, stream


_CLASSES: dict[tuple[type, type], type] = {}


def _probing_backend_class(bases: tuple[type, type]) -> type:
    if bases in _CLASSES:
        return _CLASSES[bases]
    backend_base, stream_base = bases

    class ProbingStream(stream_base):  # type: ignore[misc,valid-type]
        """A network stream that finds its raw socket once for the readability probe."""

        def __init__(self, inner: Any) -> None:
            self._inner = inner
            self._socket = inner.get_extra_info("socket")

        async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
            data: bytes = await self._inner.read(max_bytes, timeout=timeout)
            return data

        async def write(self, buffer: bytes, timeout: float | None = None) -> None:
            await self._inner.write(buffer, timeout=timeout)

        async def aclose(self) -> None:
            await self._inner.aclose()

        async def start_tls(
            self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
        ) -> Any:
            inner = await self._inner.start_tls(
                ssl_context, server_hostname=server_hostname, timeout=timeout
            )
            return ProbingStream(inner)

        def get_extra_info(self, info: str) -> Any:
            if info == "is_readable" and self._socket is not None:
                return _readable(self._socket)
            return self._inner.get_extra_info(info)

    class ProbingBackend(backend_base, _ProbingBackend):  # type: ignore[misc,valid-type]
        """The pool's network backend, its streams wrapped in :class:`ProbingStream`."""

        def __init__(self, inner: Any) -> None:
            self._inner = inner

        async def connect_tcp(self, *args: Any, **kwargs: Any) -> Any:
            return ProbingStream(await self._inner.connect_tcp(*args, **kwargs))

        async def connect_unix_socket(self, *args: Any, **kwargs: Any) -> Any:
            return ProbingStream(await self._inner.connect_unix_socket(*args, **kwargs))

        async def sleep(self, seconds: float) -> None:
            await self._inner.sleep(seconds)

    _CLASSES[bases] = ProbingBackend
    return ProbingBackend


def _readable(sock: Any) -> bool:
    """Whether ``sock`` has data (or an end of stream) to read, without reading: httpcore's own
    test (a socket without a descriptor counts as readable, so the connection is dropped)."""
    fd = sock.fileno()
    if fd < 0:
        return True
    if sys.platform == "win32" or getattr(select, "poll", None) is None:
        ready, _, _ = select.select([fd], [], [], 0)
        return bool(ready)
    poll = select.poll()
    poll.register(fd, select.POLLIN)
    return bool(poll.poll(0))
