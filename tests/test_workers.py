"""The worker pool that keeps CPU-bound judging off the event loop."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from ragmeter._util.workers import WorkerPool


async def test_calls_run_in_at_most_size_daemon_threads_and_keep_their_results() -> None:
    pool = WorkerPool(2, "test-pool")
    running = 0
    most = 0
    lock = threading.Lock()
    names: set[str] = set()

    def work(i: int) -> int:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        names.add(threading.current_thread().name)
        assert threading.current_thread().daemon
        time.sleep(0.02)
        with lock:
            running -= 1
        return i * i

    results = await asyncio.gather(*(pool.run(work, i) for i in range(8)))
    assert results == [i * i for i in range(8)]
    assert most == 2 and names <= {"test-pool-1", "test-pool-2"}


async def test_an_exception_reaches_the_awaiting_task() -> None:
    def fail() -> None:
        raise KeyError("nope")

    with pytest.raises(KeyError, match="nope"):
        await WorkerPool(1, "test-fail").run(fail)


async def test_a_cancelled_call_that_has_not_started_never_runs() -> None:
    pool = WorkerPool(1, "test-cancel")
    ran: list[str] = []
    gate = threading.Event()

    def blocker() -> None:
        gate.wait(5)
        ran.append("blocker")

    def queued() -> None:
        ran.append("queued")

    first = asyncio.ensure_future(pool.run(blocker))
    second = asyncio.ensure_future(pool.run(queued))
    await asyncio.sleep(0.05)
    second.cancel()
    gate.set()
    await first
    with pytest.raises(asyncio.CancelledError):
        await second
    await pool.run(lambda: None)  # runs after the dropped call's turn
    assert ran == ["blocker"]


def test_a_pool_needs_a_thread() -> None:
    with pytest.raises(ValueError):
        WorkerPool(0, "none")
