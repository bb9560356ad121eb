"""A read-only sequence whose items live in a file and are read back one at a time."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterator, Sequence
from typing import TypeVar, overload

T = TypeVar("T")


class OnDiskSequence(Sequence[T]):
    """Items by position, each read from disk when asked for (`_read`): the eval set of
    :class:`~ragmeter.cases.CaseFile` and the judged cases of
    :class:`~ragmeter.results.spool.CaseSpool`. Slices give lists; iteration reads in order."""

    @abstractmethod
    def __len__(self) -> int: ...

    @abstractmethod
    def _read(self, index: int) -> T:
        """The item at `index` (0 <= index < len), read from disk."""

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            return [self._read(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(f"case {index} of {len(self)}: out of range")
        return self._read(index)

    def __iter__(self) -> Iterator[T]:
        for index in range(len(self)):
            yield self._read(index)
