"""Fewer garbage collections while a run is judging.

A judge reply with its token log-probabilities decodes into several hundred small dicts and
lists. Under CPython's default first threshold (700 allocations) nearly every reply set off a
collection, and the replies still in flight (up to the judge's concurrency) were promoted into
the older generations, which later collections walked again: in `bench/call_floor.py` a
quarter of the chat client's CPU per call (1.69 against 1.26 ms). With a first threshold of
10,000 most replies are freed by reference counting before any collection looks at them.
Cycles are still collected, later; the interpreter's own settings come back when the run ends.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

RUN_THRESHOLD = 10_000
"""Allocations between two young-generation collections while a run is judging."""

_lock = threading.Lock()
_depth = 0
_saved: tuple[int, int, int] | None = None


@contextlib.contextmanager
def fewer_collections(threshold: int = RUN_THRESHOLD) -> Iterator[None]:
    """Raise the collector's first threshold to at least `threshold` for the block; nested or
    concurrent blocks share one setting, restored when the last one ends. Does nothing when
    the collector is off."""
    global _depth, _saved
    with _lock:
        if _depth == 0:
            current = gc.get_threshold()
            if gc.isenabled() and current[0] and current[0] < threshold:
                _saved = current
                gc.set_threshold(threshold, *current[1:])
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _saved is not None:
                gc.set_threshold(*_saved)
                _saved = None
