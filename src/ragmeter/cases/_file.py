"""A .jsonl eval set read from its file case by case, so memory does not grow with its size.

:func:`ragmeter.cases.open_cases` gives a :class:`CaseFile` for a .jsonl file. Loading it
reads the file once, line by line, and validates every record exactly as
:func:`~ragmeter.cases.load_cases` does (the same checks, in the same order, so the same
:class:`~ragmeter._exceptions.CaseFileError` for a bad file), but keeps only where each record
is: its offset, length, line and checksum, four integers a case. A case is read and validated
again from the file each time it is used.
"""

from __future__ import annotations

import codecs
import io
import threading
import weakref
import zlib
from array import array
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

from .._exceptions import CaseFileError
from .._util.on_disk import OnDiskSequence
from ._case import (
    Case,
    Problems,
    _case_from_record,
    _duplicate_id,
    _mark_assigned,
    _no_cases,
    warn_kept_columns,
)
from ._records import jsonl_blank, jsonl_value, located_record, not_utf8, unreadable

# What load_cases checks, in the order it checks it: the whole file's encoding, then every
# line's JSON, then every record's values, then every record as a case. The first problem of
# the earliest kind is the one it reports (every problem, for records as cases), so a pass
# over the file that meets a problem keeps looking, for earlier kinds only, until the end.
_ENCODING, _SYNTAX, _VALUES, _CASE, _NONE = range(5)


class CaseFile(OnDiskSequence[Case]):
    """The cases of a .jsonl eval set, read from the file when used (see the module doc).

    Indexing and iterating give cases equal to :func:`~ragmeter.cases.load_cases`'s, a new
    :class:`Case` on each access (records without an id numbered and known to
    :func:`~ragmeter.cases.assigned_ids` as there). The file stays open until :meth:`close`,
    the end of a ``with`` block, or the CaseFile being collected; reading is thread-safe. A
    record whose bytes changed since loading is a CaseFileError naming its line, never
    another case read silently.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()
        """The eval-set file."""
        try:
            # Open for the CaseFile's lifetime, not a block: closed by close() or with it.
            # Unbuffered: a read is one system call and never a stale buffer.
            file = self.path.open("rb", buffering=0)
        except OSError as exc:
            raise unreadable(self.path, exc) from None
        self._file: io.RawIOBase = file
        self._finalizer = weakref.finalize(self, file.close)
        self._lock = threading.Lock()
        # 20 bytes a case (a line is shorter than 4 GiB, and there are fewer lines than that)
        self._offsets = array("q")
        self._lengths = array("I")
        self._lines = array("I")
        self._checksums = array("I")
        try:
            self._scan()
        except BaseException:
            self.close()
            raise

    def _scan(self) -> None:
        """Validate every record, as load_cases would, keeping where each one is."""
        path = self.path
        ids = _HashSet()  # of the ids so far: a repeat is looked up in the file
        problem: CaseFileError | None = None  # the first of the kinds before _CASE
        kind = _NONE  # of `problem`
        problems = Problems()  # of records as cases, all reported together
        kept: set[str] = set()
        number = 0  # records so far (non-blank lines)
        offset = 0
        lines = io.BufferedReader(self._file, buffer_size=1 << 16)
        try:
            for line, raw in enumerate(lines, start=1):
                start, offset = offset, offset + len(raw)
                if line == 1 and raw.startswith(codecs.BOM_UTF8):
                    start += len(codecs.BOM_UTF8)
                    raw = raw[len(codecs.BOM_UTF8) :]
                raw = raw.removesuffix(b"\n")
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise not_utf8(path, raw[exc.start], line) from None
                if kind <= _SYNTAX or jsonl_blank(text):
                    continue
                number += 1
                step = _SYNTAX
                try:
                    value = jsonl_value(path, line, text)
                    if kind <= _VALUES:
                        continue
                    step = _VALUES
                    record = located_record(path, number, line, value)
                    if kind <= _CASE:
                        continue
                    step = _CASE
                    case, assigned = _case_from_record(path, record, kept)
                    if not ids.add(hash(case.id)) and (first := self._first_use(case.id)):
                        raise _duplicate_id(path, case.id, assigned, line, *first)
                except CaseFileError as exc:
                    if step == _CASE:
                        problems.add(exc)
                    else:
                        problem, kind = exc, step
                    continue
                self._offsets.append(start)
                self._lengths.append(len(raw))
                self._lines.append(line)
                self._checksums.append(zlib.crc32(raw))
        except OSError as exc:
            raise unreadable(path, exc) from None
        finally:
            lines.detach()  # the file stays open for reading
        if problem is not None:
            raise problem
        problems.raise_any()
        if not self._offsets:
            raise _no_cases(path)
        warn_kept_columns(path, kept)

    def __len__(self) -> int:
        return len(self._offsets)

    def _read(self, index: int) -> Case:
        with self._lock:
            if self._file.closed:
                raise ValueError(f"{self!r} is closed")
            raw = _read_at(self._file, self._offsets[index], self._lengths[index])
        case, assigned = self._parse(index, raw)
        if assigned:
            _mark_assigned(case)
        return case

    def _parse(self, index: int, raw: bytes) -> tuple[Case, bool]:
        """Case `index` from its bytes `raw`, and whether its id was assigned."""
        line = self._lines[index]
        if len(raw) != self._lengths[index] or zlib.crc32(raw) != self._checksums[index]:
            raise CaseFileError(
                self.path,
                "the file changed after it was loaded; load it again (and leave an eval set "
                "untouched while a run reads it)",
                line=line,
            )
        value = jsonl_value(self.path, line, raw.decode("utf-8"))
        record = located_record(self.path, index + 1, line, value)
        return _case_from_record(self.path, record)

    def _first_use(self, case_id: str) -> tuple[int, bool] | None:
        """While scanning: the line of the first case with the id `case_id` and whether that
        id was assigned, or None (only the hash of the id was seen before)."""
        position = self._file.tell()  # where the scan's buffered reader left the file
        try:
            for index in range(len(self)):
                raw = _read_at(self._file, self._offsets[index], self._lengths[index])
                case, assigned = self._parse(index, raw)
                if case.id == case_id:
                    return self._lines[index], assigned
            return None
        finally:
            self._file.seek(position)

    def close(self) -> None:
        """Close the file now rather than when the CaseFile is collected."""
        with self._lock:
            self._finalizer()

    def __enter__(self) -> CaseFile:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str | bytes):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to a list of the same cases

    def __repr__(self) -> str:
        return f"CaseFile('{self.path}', {len(self)} cases)"


def _read_at(file: io.RawIOBase, offset: int, size: int) -> bytes:
    """Up to `size` bytes of `file` from `offset` (fewer at its end)."""
    file.seek(offset)
    parts = []
    while size > 0 and (part := file.read(size)):
        parts.append(part)
        size -= len(part)
    return b"".join(parts)


class _HashSet:
    """A set of hashes (64-bit integers) in one array, open addressing with 0 for an empty
    slot: 16 to 32 bytes an entry, where a set of the ids themselves takes about 140. Equal
    hashes do not prove equal ids: a repeat is checked against the file."""

    def __init__(self) -> None:
        self._slots = array("q", bytes(8 * 1024))
        self._count = 0

    def add(self, value: int) -> bool:
        """Add `value`; False if it was there already."""
        value = value or 1  # 0 marks an empty slot (1 standing for 0 only costs a lookup)
        slots = self._slots
        mask = len(slots) - 1
        slot = value & mask
        while (held := slots[slot]) != 0:
            if held == value:
                return False
            slot = (slot + 1) & mask
        slots[slot] = value
        self._count += 1
        if 2 * self._count > len(slots):
            old, self._slots, self._count = slots, array("q", bytes(16 * len(slots))), 0
            for held in old:
                if held:
                    self.add(held)
        return True
