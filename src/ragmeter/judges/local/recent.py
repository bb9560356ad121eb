"""Recently used vectors by key, shared by the local judge's embedding stores."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Iterable
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    import numpy as np

K = TypeVar("K", bound=Hashable)


class RecentVectors(Generic[K]):
    """The `capacity` most recently used vectors by key, the oldest dropped first; safe to
    share between judging threads (embed outside it: only lookups and stores hold its lock)."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._rows: OrderedDict[K, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> np.ndarray | None:
        """The vector of `key`, marked as just used, or None."""
        with self._lock:
            row = self._rows.get(key)
            if row is not None:
                self._rows.move_to_end(key)
            return row

    def put(self, items: Iterable[tuple[K, np.ndarray]]) -> None:
        """Remember each (key, vector), then drop the oldest past the capacity."""
        with self._lock:
            for key, row in items:
                self._rows[key] = row
                self._rows.move_to_end(key)
            while len(self._rows) > self.capacity:
                self._rows.popitem(last=False)
