"""A small pool of daemon threads for CPU-bound work awaited from the event loop.

Not `asyncio.to_thread`: the loop's default executor has up to 32 threads (the runner admits
more cases to the judge than that), and `asyncio.run` and interpreter exit join its threads,
so a long call would hold up Ctrl-C. Here at most `size` calls run at once, the others queue
(a queued call whose awaiting task was cancelled never runs), and the threads are daemons
started on demand and gone after a while idle: an interrupted run exits once the calls already
running return (the interpreter's exit waits for them: see `_native_calls`).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from .native_calls import native_call

T = TypeVar("T")

IDLE_SECONDS = 10.0
"""A worker with nothing to do for this long ends (a new one starts with the next call)."""

_Job = tuple[
    asyncio.AbstractEventLoop,
    "asyncio.Future[Any]",
    contextvars.Context,
    Callable[..., Any],
    tuple[Any, ...],
]


class WorkerPool:
    """Runs calls in at most `size` daemon threads named `name-N`; see the module docstring."""

    def __init__(self, size: int, name: str) -> None:
        if size < 1:
            raise ValueError(f"a worker pool needs at least one thread, not {size}")
        self.size = size
        self.name = name
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads = 0
        self._started = 0

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(*args)` in a worker thread (in the caller's context, as `to_thread`), awaited
        without blocking the loop. Cancelling the awaiting task drops a call not yet started;
        one already running finishes in its thread and its result is dropped."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        with self._lock:  # a worker ends only under the lock, when no job is queued
            self._jobs.put((loop, future, contextvars.copy_context(), fn, args))
            start = self._threads < self.size
            if start:
                self._threads += 1
                self._started += 1
                name = f"{self.name}-{self._started}"
        if start:
            threading.Thread(target=self._work, name=name, daemon=True).start()
        return await future

    def _work(self) -> None:
        while True:
            try:
                loop, future, context, fn, args = self._jobs.get(timeout=IDLE_SECONDS)
            except queue.Empty:
                with self._lock:
                    if self._jobs.empty():
                        self._threads -= 1
                        return
                continue
            if future.cancelled():  # read across threads: at worst a dropped call runs
                continue
            result: Any = None
            error: BaseException | None = None
            try:
                with native_call():  # the interpreter's exit waits for it (see _native_calls)
                    result = context.run(fn, *args)
            except BaseException as exc:  # handed to the awaiting task, as to_thread does
                error = exc
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                loop.call_soon_threadsafe(_settle, future, result, error)
            del loop, future, context, fn, args, result, error  # no hold on them while idle


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():  # cancelled meanwhile
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)
