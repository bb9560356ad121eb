"""Judged cases kept on disk as they finish, so a run's memory does not grow with its cases.

A :class:`CaseSpool` is the `cases` of a run that `ragmeter run` makes: each case is written
to an unnamed temporary file as one JSON line the moment it is judged, and read back one at
a time, in eval-set order, by whatever walks the run afterwards (the summary, the report, the
writing of results.json). Only two integers per case stay in memory.

With a `journal` path, each case's line also goes to that named file, flushed at once, until
:meth:`CaseSpool.discard_journal`: a process that ends without unwinding (a pipeline calling
`os._exit`, SIGKILL, the out-of-memory killer) leaves the cases it had finished there.
"""

from __future__ import annotations

import contextlib
import tempfile
import threading
from array import array
from collections.abc import Sequence
from pathlib import Path

from .._exceptions import OutputError
from .._util.on_disk import OnDiskSequence
from ._case import CaseResult

_MISSING = -1


class CaseSpool(OnDiskSequence[CaseResult]):
    """`CaseResult`s by eval-set position, stored in a temporary file that disappears with
    the spool (it has no name on disk; only the `journal`, if any, outlives a killed run).

    Cases are :meth:`put` in any order (as they finish) and read as a sequence in eval-set
    order; reading a position not yet put raises IndexError naming it.
    """

    def __init__(
        self, size: int, directory: str | Path | None = None, *, journal: Path | None = None
    ) -> None:
        # Open for the spool's lifetime, not a block: closed by close() or with the spool.
        self._file = tempfile.TemporaryFile(  # noqa: SIM115
            mode="w+b", prefix=".ragmeter-cases-", dir=directory
        )
        self.journal = journal
        self._journal = None if journal is None else journal.open("wb")
        self._offsets = array("q", [_MISSING]) * size
        self._lengths = array("q", [0]) * size
        self._end = 0
        self._lock = threading.Lock()  # a report may read while nothing writes; cheap anyway

    def put(self, index: int, case: CaseResult) -> None:
        """Store the case judged at eval-set position `index` (0-based)."""
        data = case.model_dump_json().encode("utf-8") + b"\n"
        with self._lock:
            self._file.seek(self._end)
            self._file.write(data)
            self._offsets[index], self._lengths[index] = self._end, len(data)
            self._end += len(data)
            if self._journal is not None:
                try:
                    self._journal.write(data)
                    self._journal.flush()  # os._exit skips Python's buffers
                except OSError as exc:  # a full disk or a file-size limit, met here first
                    raise OutputError(
                        f"cannot write {self.journal}: {exc.strerror or exc}; nothing written"
                    ) from exc

    def __len__(self) -> int:
        return len(self._offsets)

    def _read(self, index: int) -> CaseResult:
        offset = self._offsets[index]
        if offset == _MISSING:
            raise IndexError(f"case {index} has not been judged yet")
        with self._lock:
            self._file.seek(offset)
            data = self._file.read(self._lengths[index])
        return CaseResult.model_validate_json(data)

    @property
    def complete(self) -> bool:
        """Whether every position has its case."""
        return _MISSING not in self._offsets

    def discard_journal(self) -> None:
        """Stop writing the journal and delete it: the run ended in a way Python saw (its
        results written, or nothing to write)."""
        if self._journal is not None:
            with contextlib.suppress(OSError):  # unflushed bytes of a file about to go
                self._journal.close()
            self._journal = None
            assert self.journal is not None
            self.journal.unlink(missing_ok=True)

    def close(self) -> None:
        """Delete the file (and the journal) now rather than when the spool is collected."""
        self.discard_journal()
        self._file.close()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str | bytes):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, as a list is

    def __repr__(self) -> str:
        return f"CaseSpool({len(self)} cases, {self._end:,} bytes)"
