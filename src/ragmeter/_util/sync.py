"""The one way synchronous code runs ragmeter's async core.

Every synchronous entry point (the CLI, `ragmeter.evaluate`, `calibrate`, `generate`, the
pytest plugin) hands its coroutine to :func:`run_sync`, which runs it on one event loop kept
for the whole process in a daemon thread. So a judge or client used by two runs in a row
meets the same loop both times: nothing bound to a loop (HTTP connections, queued waiters,
locks) ever has to be rebuilt for another one, and a judge the caller keeps (a llama server
it started once) serves any number of runs.

Written here rather than taken from a library: anyio's blocking portal does the same but
would add a dependency for 60 lines, and `asyncio.Runner` keeps its loop in the calling
thread, so it cannot serve a caller that is itself inside a running loop (a notebook).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import threading
from collections.abc import Coroutine, Sequence
from contextlib import AsyncExitStack
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class Closable(Protocol):
    """Something holding connections, threads or a server: a pipeline, a judge, a client."""

    async def aclose(self) -> None: ...


class _LoopThread:
    """One event loop running forever in a daemon thread, started on first use (again in a
    forked child, whose copy of the thread does not run)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None or self._thread is None or not self._thread.is_alive():
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=_serve, args=(loop,), name="ragmeter-loop")
                thread.daemon = True  # an interrupted run must not hold up the exit
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop


def _serve(loop: asyncio.AbstractEventLoop) -> None:
    """Run `loop` for ever, even past a SystemExit or KeyboardInterrupt raised in it.

    asyncio lets those two out of `run_forever` from whatever task raised them (a user's
    own pipeline or judge calling sys.exit), which would end this thread and leave every
    caller waiting, Ctrl-C included, on a loop that no longer runs. The task has kept the
    error for whoever awaits it, so the loop just goes on.
    """
    while True:
        try:
            loop.run_forever()
        except (SystemExit, KeyboardInterrupt):
            continue
        return


_LOOP = _LoopThread()


def run_sync(main: Coroutine[Any, Any, T], *, closing: Sequence[Closable] = ()) -> T:
    """Run `main` on ragmeter's event loop and wait for it; then close each of `closing`
    (last first) whatever happened, and return what `main` returned or raise what it raised.

    Ctrl-C (KeyboardInterrupt) cancels `main`, waits for the closing, and is raised again. The
    caller's context variables are seen by `main`, as `asyncio.run` would show them.
    """

    async def closed_after() -> T:
        async with AsyncExitStack() as stack:
            for resource in closing:
                stack.push_async_callback(resource.aclose)
            return await main

    loop = _LOOP.loop()
    try:
        running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        main.close()
        raise RuntimeError(
            "a synchronous ragmeter call was made from inside a ragmeter run (e.g. a pipeline "
            "calling ragmeter.evaluate); await ragmeter.aevaluate there instead"
        )
    result: concurrent.futures.Future[T] = concurrent.futures.Future()
    finished = threading.Event()
    tasks: list[asyncio.Task[T]] = []

    def settle(task: asyncio.Task[T]) -> None:
        if task.cancelled():
            result.cancel()
        elif (error := task.exception()) is not None:
            result.set_exception(error)
        else:
            result.set_result(task.result())
        finished.set()

    def start(context: contextvars.Context) -> None:
        task = loop.create_task(closed_after(), context=context)
        task.add_done_callback(settle)
        tasks.append(task)

    loop.call_soon_threadsafe(start, contextvars.copy_context())
    try:
        return result.result()
    except KeyboardInterrupt:
        loop.call_soon_threadsafe(lambda: [task.cancel() for task in tasks])
        finished.wait()  # the closing runs; a second Ctrl-C stops waiting for it
        raise
    except concurrent.futures.CancelledError:
        raise asyncio.CancelledError() from None
