"""Sentence embeddings for the English side of the local judge, cached across samples."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .recent import RecentVectors

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)


def load_embedder() -> Any | None:
    """The bundled MiniLM embedder, or None when it (or its module) is unavailable."""
    try:
        from ...embeddings import load_local_embedder
    except ImportError:
        return None
    try:
        return load_local_embedder()
    except Exception as exc:  # an optional extra: any failure means "no embeddings"
        log.warning("local embeddings unavailable: %s", exc)
        return None


class EmbeddingStore:
    """Embeds the texts of each sample and remembers recent vectors; safe to share between
    judging threads."""

    def __init__(self, embedder: Any | None, capacity: int = 50_000) -> None:
        self.embedder = embedder
        self._recent: RecentVectors[str] = RecentVectors(capacity)

    @property
    def available(self) -> bool:
        return self.embedder is not None

    def vectors(self, texts: Iterable[str]) -> Vectors:
        """Vectors for `texts` (empty when no embedder), embedding only the unseen ones.

        One text per embedder call: a batch pads its texts to the longest one, which moves the
        last bits of every vector, so a vector embedded in a batch would depend on which other
        texts were unseen at that moment, and a case's scores on the order cases are judged in
        (and on how many threads judge them). Alone, a vector depends on its text only; on
        MiniLM this costs no more than sorted batches (bench/judge_threads.py)."""
        if self.embedder is None:
            return Vectors({})
        wanted = list(dict.fromkeys(t for t in texts if t.strip()))
        table: dict[str, np.ndarray] = {}
        for text in wanted:
            row = self._recent.get(text)
            if row is not None:
                table[text] = row
        missing = [t for t in wanted if t not in table]
        if missing:
            rows = [self.embedder.embed([text])[0] for text in missing]
            table.update(zip(missing, rows, strict=True))
            self._recent.put(zip(missing, rows, strict=True))
        return Vectors({text: table[text] for text in wanted})


class Vectors:
    """The vectors of one sample's texts; lookups of unknown texts give None."""

    def __init__(self, table: dict[str, np.ndarray]) -> None:
        self.table = table

    def __bool__(self) -> bool:
        return bool(self.table)

    def get(self, text: str) -> np.ndarray | None:
        return self.table.get(text)

    def mean(self, texts: Iterable[str]) -> np.ndarray | None:
        """Normalised mean of the vectors of `texts` (None if any is missing)."""
        import numpy as np

        found = [self.table.get(t) for t in texts]
        rows = [r for r in found if r is not None]
        if not rows or len(rows) < len(found):
            return None
        mean = np.mean(np.stack(rows), axis=0)
        norm = float(np.linalg.norm(mean))
        return mean / norm if norm > 0 else mean

    def cosine(self, a: np.ndarray | None, b: np.ndarray | None) -> float | None:
        if a is None or b is None:
            return None
        return float(a @ b)
