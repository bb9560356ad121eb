"""Files a run writes: atomically (:func:`write_atomic`), and never over a run or a baseline
unless asked (:func:`refuse_overwriting_run`)."""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterable
from pathlib import Path

from .._exceptions import ConfigError, OutputError


def write_atomic(path: Path, text: str | Iterable[str]) -> None:
    """Write `text` (or its pieces, written one after another so the whole never has to be
    in memory) to `path` so a crash leaves either the old file or the new, never half.

    Raises OutputError (an OSError) naming the file and why when it cannot be written: a
    directory at `path`, a file where a parent directory belongs, no permission, a full disk.
    """
    path = Path(path)
    if path.is_dir():
        raise OutputError(f"{path}: is a directory; give a file name (e.g. {path / 'report'})")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {os_reason(exc, path.parent)}") from None
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)  # mkstemp creates 0600; give the file normal permissions
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            if isinstance(text, str):
                handle.write(text)
            else:
                handle.writelines(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            kept = "the previous file is unchanged" if path.exists() else "nothing written"
            raise OutputError(f"cannot write {path}: {os_reason(exc, path)}; {kept}") from None
        raise


def os_reason(exc: OSError, path: Path) -> str:
    """Why an OS call failed, in a few words: its strerror, and the path it names if another.

    A parent that is a file gives ENOTDIR or EEXIST (mkdir): said as such."""
    if isinstance(exc, (NotADirectoryError, FileExistsError)):
        blocker = next((p for p in (path, *path.parents) if p.is_file()), None)
        if blocker is not None:
            return f"{blocker} is a file, not a directory"
    reason = exc.strerror or str(exc) or type(exc).__name__
    named = Path(exc.filename) if isinstance(exc.filename, str) else None
    ours = named is None or path in (named, named.parent) or named == path.parent
    return reason if ours else f"{reason} ({named})"


_RUN_HEAD = re.compile(r'\s*\{\s*"schema_version"\s*:\s*\d+\s*,\s*"judge"\s*:\s*\{')


_RUN_KEYS = frozenset({"schema_version", "judge", "summary", "cases"})


_PARSED_WHOLE = 64 << 20


def holds_run(path: str | Path) -> bool:
    """Whether `path` is a file holding a ragmeter run (a results.json, or a baseline, which
    is one), told by its content, whatever its name: a JSON object with `schema_version`,
    `judge`, `summary` and `cases`. A file over 64 MB is told by how ragmeter writes one
    (`schema_version` then `judge` first), without reading it whole."""
    path = Path(path)
    try:
        if not path.is_file():
            return False
        with path.open("rb") as handle:
            if path.stat().st_size > _PARSED_WHOLE:
                head = handle.read(4096).decode("utf-8", "replace")
                return _RUN_HEAD.match(head) is not None
            data = json.loads(handle.read())
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.keys() >= _RUN_KEYS


def refuse_overwriting_run(path: str | Path, option: str, *, overwrite: bool = False) -> None:
    """Raise ConfigError when `path` holds a ragmeter run (or a baseline) and `overwrite` is
    not given: no command replaces one unless told."""
    if not overwrite and holds_run(path):
        raise ConfigError(
            f"{option} {path} holds a ragmeter run (a results.json or a baseline); pass "
            "--overwrite to replace it, or choose another file"
        )


__all__ = ["holds_run", "os_reason", "refuse_overwriting_run", "write_atomic"]
