"""A content-addressed SQLite cache of LLM and embedding calls.

Keys are sha256 hashes of everything that determines an answer (endpoint, model, messages,
parameters, response format); API keys are never part of a key or a row. Every completed call
is committed at once (WAL mode), so a run killed with SIGKILL and started again only repeats
the calls it had not finished. One connection is used from the event loop's thread; writes
are short and serialized by a lock.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .._exceptions import ConfigError
from .._util.paths import cache_root
from .jsonblock import decode_json

SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
    key TEXT PRIMARY KEY,
    base_url TEXT NOT NULL,
    model TEXT NOT NULL,
    request TEXT NOT NULL,
    response TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    created REAL NOT NULL,
    logprobs TEXT
);
CREATE TABLE IF NOT EXISTS embeddings (
    key TEXT PRIMARY KEY,
    vector TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS similarities (
    key TEXT PRIMARY KEY,
    scores TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS capabilities (
    endpoint TEXT PRIMARY KEY,
    mode TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS results (
    key TEXT PRIMARY KEY,
    result TEXT NOT NULL,
    calls INTEGER NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL
);
"""


def default_cache_path() -> Path:
    """``$RAGMETER_CACHE_DIR/llm.sqlite``, else ``~/.cache/ragmeter/llm.sqlite``."""
    return cache_root() / "llm.sqlite"


# One encoder for every key: json.dumps with these options builds a new JSONEncoder per call,
# which cost as much as the encoding itself (a key renders each member of its payload apart).
_CANONICAL = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def canonical_json(value: object) -> str:
    """The JSON text cache keys are made of: keys sorted, no spaces, non-ASCII kept."""
    return _CANONICAL.encode(value)


def cache_key(payload: dict[str, object], rendered: Mapping[str, str] | None = None) -> str:
    """The sha256 hex digest of a canonical JSON rendering of ``payload``.

    `rendered` gives some values already as :func:`canonical_json` text (a JSON schema that
    every call of a kind sends): the key is the same, without rendering them again."""
    if not rendered:
        blob = canonical_json(payload)
    else:  # what canonical_json(payload) writes for a dict, member by member
        members = (
            f"{canonical_json(k)}:{rendered[k] if k in rendered else canonical_json(v)}"
            for k, v in sorted(payload.items())
        )
        blob = "{" + ",".join(members) + "}"
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CachedCall:
    """A stored chat completion."""

    key: str
    response: str
    prompt_tokens: int
    completion_tokens: int
    logprobs: str | None = None
    """Token log-probabilities as :func:`ragmeter.clients.logprobs.dumps` text, when asked for."""


class LLMCache:
    """SQLite store of calls, embeddings and per-endpoint capabilities.

    With ``path=None`` nothing is written to disk: rows live in an in-memory database for the
    lifetime of the object (raw outputs stay inspectable, re-runs are not cached).
    """

    def __init__(self, path: str | Path | None = None) -> None:
        """Open (or create) the cache at `path`. A file that is not a readable and writable
        cache raises ConfigError at once, before any call, saying to delete it or pass
        ``--no-cache``."""
        self.path = Path(path).expanduser() if path is not None else None
        self._lock = threading.Lock()
        try:
            self._db = self._open()
        except (OSError, sqlite3.Error) as exc:
            raise ConfigError(self._unusable(exc)) from None

    def _open(self) -> sqlite3.Connection:
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            target = str(self.path)
        else:
            target = ":memory:"
        db = sqlite3.connect(target, check_same_thread=False, isolation_level=None)
        try:
            if self.path is not None:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
            db.executescript(SCHEMA)
            columns = {row[1] for row in db.execute("PRAGMA table_info(calls)")}
            if "logprobs" not in columns:  # a cache written before logprobs were kept
                db.execute("ALTER TABLE calls ADD COLUMN logprobs TEXT")
            for table in ("calls", "embeddings", "capabilities"):  # reads a page of each
                db.execute(f"SELECT * FROM {table} LIMIT 1").fetchall()
        except BaseException:
            db.close()
            raise
        return db

    def _unusable(self, exc: OSError | sqlite3.Error) -> str:
        """One line: which cache file cannot be used, why, and the two ways out."""
        if isinstance(exc, OSError):  # its directory: permissions, a file in the way
            reason = exc.strerror or str(exc)
            if isinstance(exc, (NotADirectoryError, FileExistsError)):
                reason = "a parent of it is a file, not a directory"
            return (
                f"LLM call cache {self.path}: cannot be used ({reason}); choose another "
                "--cache-dir or pass --no-cache"
            )
        return (
            f"LLM call cache {self.path}: cannot be used ({exc}); delete it (it is rebuilt "
            "on the next run, repeating its calls) or pass --no-cache"
        )

    @property
    def persistent(self) -> bool:
        return self.path is not None

    def get(self, key: str) -> CachedCall | None:
        with self._lock:
            row = self._db.execute(
                "SELECT response, prompt_tokens, completion_tokens, logprobs FROM calls "
                "WHERE key = ?",
                (key,),
            ).fetchone()
        return CachedCall(key, row[0], row[1], row[2], row[3]) if row else None

    def put(
        self,
        key: str,
        *,
        base_url: str,
        model: str,
        request: dict[str, object],
        response: str,
        prompt_tokens: int,
        completion_tokens: int,
        logprobs: str | None = None,
    ) -> None:
        blob = json.dumps(request, ensure_ascii=False, sort_keys=True)
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO calls (key, base_url, model, request, response, "
                "prompt_tokens, completion_tokens, created, logprobs) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    base_url,
                    model,
                    blob,
                    response,
                    prompt_tokens,
                    completion_tokens,
                    time.time(),
                    logprobs,
                ),
            )

    def raw_output(self, key: str) -> str | None:
        """The raw response text stored under ``key`` (an id from ``Evidence.raw_output_ids``)."""
        hit = self.get(key)
        return hit.response if hit else None

    def request(self, key: str) -> dict[str, object] | None:
        """The request stored under ``key``."""
        with self._lock:
            row = self._db.execute("SELECT request FROM calls WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def get_embedding(self, key: str) -> tuple[list[float], int] | None:
        with self._lock:
            row = self._db.execute(
                "SELECT vector, prompt_tokens FROM embeddings WHERE key = ?", (key,)
            ).fetchone()
        return (decode_json(row[0]), row[1]) if row else None

    def put_embedding(self, key: str, vector: list[float], prompt_tokens: int) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?)",
                (key, json.dumps(vector), prompt_tokens),
            )

    def get_similarities(self, key: str) -> list[float] | None:
        """Similarities a local embedding model gave (:class:`LocalSimilarity`), if stored."""
        with self._lock:
            row = self._db.execute(
                "SELECT scores FROM similarities WHERE key = ?", (key,)
            ).fetchone()
        return [float(x) for x in json.loads(row[0])] if row else None

    def put_similarities(self, key: str, scores: list[float]) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO similarities VALUES (?, ?)", (key, json.dumps(scores))
            )

    def get_mode(self, endpoint: str) -> str | None:
        with self._lock:
            row = self._db.execute(
                "SELECT mode FROM capabilities WHERE endpoint = ?", (endpoint,)
            ).fetchone()
        return row[0] if row else None

    def put_mode(self, endpoint: str, mode: str) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO capabilities VALUES (?, ?)", (endpoint, mode))

    def get_results(self, keys: Sequence[str]) -> list[tuple[str, str, int, int, int]]:
        """The judged results stored under any of `keys` (see
        :mod:`ragmeter.judges.llm.reuse`): key, result JSON, calls, prompt and completion
        tokens."""
        if not keys:
            return []
        marks = ",".join("?" * len(keys))
        with self._lock:
            return self._db.execute(
                "SELECT key, result, calls, prompt_tokens, completion_tokens FROM results "
                f"WHERE key IN ({marks})",
                tuple(keys),
            ).fetchall()

    def put_results(self, rows: Sequence[tuple[str, str, int, int, int]]) -> None:
        """Store judged results (rows as :meth:`get_results` returns them) in one transaction:
        unlike a call, a result lost to a kill costs nothing to rebuild from its calls."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                self._db.executemany("INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?, ?)", rows)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM calls").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
