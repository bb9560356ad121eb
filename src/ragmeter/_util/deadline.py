"""A total deadline for one awaited call (a pipeline case, a judge call)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

T = TypeVar("T")


class DeadlinePassed(TimeoutError):
    """The call had not finished when its deadline passed (it was cancelled)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        super().__init__(f"no result within {seconds:g} s")


async def within(seconds: float | None, awaitable: Awaitable[T]) -> T:
    """The result of `awaitable`, or :class:`DeadlinePassed` once `seconds` have passed in
    total (None: no deadline); the call is then cancelled, not awaited further.

    Unlike `asyncio.wait_for` (or `asyncio.timeout`), a call that has finished by the time the
    deadline is looked at keeps its result: when the event loop was busy elsewhere past the
    deadline, a reply that came in meanwhile is not thrown away. A `TimeoutError` the call
    raises itself passes through as it is.
    """
    if seconds is None:
        return await awaitable
    task = asyncio.ensure_future(awaitable)
    try:
        await asyncio.wait({task}, timeout=seconds)
    except BaseException:  # cancelled from outside (Ctrl-C): the call goes too
        task.cancel()
        raise
    if task.done():
        return task.result()
    task.cancel()
    task.add_done_callback(_forget)
    raise DeadlinePassed(seconds)


def _forget(task: asyncio.Future[Any]) -> None:
    """Retrieve what a cancelled call ended with, so asyncio does not log it as unretrieved."""
    if not task.cancelled():
        task.exception()
