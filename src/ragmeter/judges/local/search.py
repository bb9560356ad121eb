"""Exact and fast search of a context index's windows for the one that best supports a statement.

Scoring every window for every statement in Python costs claims × windows: hours for a 1 MB
answer against a 2 MB context. Here postings give a statement's lexical support by all windows
at once (numpy), similarity is estimated for all embedded windows with one matrix product, and
only the windows that could still win on those estimates are scored exactly, one by one, with
the same arithmetic as before, so the chosen window and its figures are unchanged.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ...text import Lang
from ...text.numbers import NumberMention
from .features import numbers, statement_keys
from .settings import LocalSettings
from .vectors import Vectors
from .window import Window

_COSINE_ERROR = 1e-4
"""Bound on the difference between a batched float32 cosine and the one-pair cosine (384
terms of float32 rounding stay below 3e-5)."""
_TIE = 1e-9  # a window must beat the best one so far by more than this to replace it
_RECENT = 32  # lexical rows kept: a statement is looked up a few times in a row


@dataclass(frozen=True)
class Pick:
    """The best window for a statement and the figures it was chosen on."""

    index: int
    lexical: float
    similarity: float | None
    """Similarity that entered its support (None when lexical evidence sufficed)."""
    best_similarity: float | None
    """Highest similarity of the statement with any embedded window searched."""


class WindowTable:
    """Postings of the windows' key words and numbers, and their embeddings once known."""

    def __init__(self, windows: Sequence[Window], lang: Lang) -> None:
        self.windows = windows
        self.lang = lang
        self.single = np.fromiter((len(w.parts) == 1 for w in windows), bool, len(windows))
        self._keys = _postings(w.keys for w in windows)
        # a date is also found by what it implies (March 14, 2021 by "2021" and "the 14th")
        self._numbers = _postings(
            {v for m in w.numbers for v in (m.value, *m.implied)} for w in windows
        )
        self._chunks = _chunk_ranges(windows)
        self._recent: OrderedDict[str, tuple[np.ndarray, int]] = OrderedDict()
        self._embedded: _Embedded | None = None

    def chunk_range(self, chunk: int | None) -> tuple[int, int]:
        """Window indices `[start, end)` of one chunk (all windows for None)."""
        if chunk is None:
            return 0, len(self.windows)
        return self._chunks.get(chunk, (0, 0))

    def lexical(self, statement: str) -> np.ndarray:
        """Lexical support of `statement` by every window: the share of its key words and
        numbers the window contains."""
        hits, total = self._hits(statement)
        return hits / total

    def best_lexical(self, statement: str) -> float:
        """The highest lexical support of `statement` by any window (0 without windows)."""
        hits, total = self._hits(statement)
        return float(hits.max() / total) if len(hits) else 0.0

    def _hits(self, statement: str) -> tuple[np.ndarray, int]:
        """How many of the statement's key words and numbers each window holds, of how many."""
        cached = self._recent.get(statement)
        if cached is not None:
            self._recent.move_to_end(statement)
            return cached
        keys = statement_keys(statement, self.lang)
        nums = numbers(statement)
        found = [self._keys.get(k) for k in keys] + [self._number_rows(n) for n in nums]
        rows = [r for r in found if r is not None]
        hits = np.bincount(
            np.concatenate(rows) if rows else np.zeros(0, np.int64), minlength=len(self.windows)
        )
        cached = self._recent[statement] = (hits, max(1, len(keys) + len(nums)))
        if len(self._recent) > _RECENT:
            self._recent.popitem(last=False)
        return cached

    def _number_rows(self, number: NumberMention) -> np.ndarray | None:
        """The windows holding `number`; a span of years (the 1910s) is held by any year in it."""
        lookups = number.lookups
        if len(lookups) == 1:
            return self._numbers.get(lookups[0])
        rows = [r for v in lookups if (r := self._numbers.get(v)) is not None]
        return np.unique(np.concatenate(rows)) if rows else None

    def candidates(self, statement: str, k: int) -> list[int]:
        """The `k` single-sentence windows of highest lexical support (ties: first first)."""
        singles = np.flatnonzero(self.single)
        scores = self.lexical(statement)[singles]
        if k <= 0 or not len(singles):
            return []
        if k >= len(singles):
            return singles[np.argsort(-scores, kind="stable")].tolist()
        kth = -np.partition(-scores, k - 1)[k - 1]
        above = np.flatnonzero(scores > kth)
        above = above[np.argsort(-scores[above], kind="stable")]
        ties = np.flatnonzero(scores == kth)[: k - len(above)]
        return singles[np.concatenate([above, ties])].tolist()

    def best(
        self, statement: str, vectors: Vectors, settings: LocalSettings, chunk: int | None
    ) -> Pick | None:
        """The window of `chunk` (or of all chunks) that best supports `statement`: highest
        blended support, a single sentence favoured by `pair_margin`, the first of equals."""
        start, end = self.chunk_range(chunk)
        if start >= end:
            return None
        hits, total = self._hits(statement)
        vector = vectors.get(statement)
        embedded = self.embedded(vectors).within(start, end) if vector is not None else None
        rows = self._searched(hits, start, end, embedded)
        lexical = hits[rows] / total
        ranked = lexical + settings.pair_margin * self.single[rows]
        error = np.zeros(len(rows))
        if embedded is not None and vector is not None:
            at, cosines = embedded.estimate(vector)
            where = np.searchsorted(rows, at)
            usable = lexical[where] < settings.lexical_sufficient
            blended = settings.lexical_weight * lexical[where] + (1 - settings.lexical_weight) * (
                np.clip((cosines - settings.sim_floor) / _span(settings), 0.0, 1.0)
            )
            blended += settings.pair_margin * self.single[at]
            ranked[where[usable]] = blended[usable]
            error[where[usable]] = _COSINE_ERROR / _span(settings)
        contenders = _contenders(ranked, error)
        return self._pick(statement, vector, vectors, settings, rows[contenders], embedded)

    def _searched(
        self, hits: np.ndarray, start: int, end: int, embedded: _Range | None
    ) -> np.ndarray:
        """The windows of `[start, end)` worth scoring: those with lexical support or a vector,
        plus the first single and the first pair with neither (the rest tie with those and
        come later, so they cannot win)."""
        some = hits[start:end] > 0
        if embedded is not None:
            some[embedded.rows() - start] = True
        single = self.single[start:end]
        for kind in (single, ~single):
            first = int(np.argmax(kind & ~some))
            if kind[first] and not some[first]:
                some[first] = True
        return np.flatnonzero(some) + start

    def embedded(self, vectors: Vectors) -> _Embedded:
        """The windows whose sentences all have vectors in `vectors`, with their mean vectors."""
        if self._embedded is None or self._embedded.vectors is not vectors:
            self._embedded = _Embedded(self.windows, vectors)
        return self._embedded

    def _pick(
        self,
        statement: str,
        vector: np.ndarray | None,
        vectors: Vectors,
        settings: LocalSettings,
        contenders: np.ndarray,
        embedded: _Range | None,
    ) -> Pick:
        """Score the contenders exactly, in order, as a scan of every window would."""
        hits, total = self._hits(statement)
        table = self.embedded(vectors) if vector is not None else None
        best: tuple[float, int, float, float | None] | None = None
        for i in contenders.tolist():
            sim = table.cosine(vector, i) if table is not None and vector is not None else None
            value = int(hits[i]) / total
            if value >= settings.lexical_sufficient:
                sim = None  # enough lexical evidence on its own
            score = settings.blend(value, sim)
            score += settings.pair_margin if self.single[i] else 0.0
            if best is None or score > best[0] + _TIE:
                best = (score, i, value, sim)
        assert best is not None
        top = embedded.best_cosine(vector) if embedded is not None and vector is not None else None
        return Pick(best[1], best[2], best[3], top)


class _Embedded:
    """Mean vectors of the windows whose sentences were all embedded, as one matrix."""

    def __init__(self, windows: Sequence[Window], vectors: Vectors) -> None:
        self.vectors = vectors
        means = {}
        for i, w in enumerate(windows):
            if all(p in vectors.table for p in w.parts):
                mean = vectors.mean(w.parts)
                if mean is not None:
                    means[i] = mean
        self.means = means
        self.indices = np.fromiter(means, dtype=np.int64, count=len(means))
        dim = next(iter(means.values())).shape[0] if means else 0
        self.matrix = np.stack(list(means.values())) if means else np.zeros((0, dim))

    def within(self, start: int, end: int) -> _Range | None:
        lo, hi = np.searchsorted(self.indices, [start, end])
        return _Range(self, int(lo), int(hi)) if hi > lo else None

    def cosine(self, vector: np.ndarray, i: int) -> float | None:
        """The cosine of `vector` with window `i`, exactly as `Vectors.cosine` gives it."""
        return self.vectors.cosine(vector, self.means.get(i))


@dataclass
class _Range:
    """The embedded windows of one index range."""

    table: _Embedded
    lo: int
    hi: int

    def rows(self) -> np.ndarray:
        """Indices of the embedded windows."""
        return self.table.indices[self.lo : self.hi]

    def estimate(self, vector: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The embedded windows and their cosines with `vector`, within `_COSINE_ERROR`."""
        cosines = self.table.matrix[self.lo : self.hi] @ vector
        return self.rows(), cosines.astype(np.float64)

    def best_cosine(self, vector: np.ndarray) -> float | None:
        """The highest exact cosine: exact only for the windows near the estimated top."""
        _, cosines = self.estimate(vector)
        near = np.flatnonzero(cosines >= cosines.max() - 2 * _COSINE_ERROR) + self.lo
        exact = [self.table.cosine(vector, int(i)) for i in self.table.indices[near]]
        return max(c for c in exact if c is not None)


def _contenders(ranked: np.ndarray, error: np.ndarray) -> np.ndarray:
    """Positions that may become the best in a left-to-right scan that replaces the best only
    by a higher score: those whose upper bound beats every earlier lower bound."""
    lower = np.maximum.accumulate(ranked - error)
    earlier = np.concatenate([[-np.inf], lower[:-1]])
    return np.flatnonzero(ranked + error > earlier)


def _span(settings: LocalSettings) -> float:
    return settings.sim_ceiling - settings.sim_floor


def _postings(groups: Iterable[Iterable[str]]) -> dict[str, np.ndarray]:
    lists: dict[str, list[int]] = {}
    for i, group in enumerate(groups):
        for item in group:
            lists.setdefault(item, []).append(i)
    return {item: np.array(rows, dtype=np.int64) for item, rows in lists.items()}


def _chunk_ranges(windows: Sequence[Window]) -> dict[int, tuple[int, int]]:
    """Windows are stored chunk by chunk, so each chunk's are one range."""
    ranges: dict[int, tuple[int, int]] = {}
    for i, w in enumerate(windows):
        start, _ = ranges.get(w.chunk, (i, i))
        ranges[w.chunk] = (start, i + 1)
    return ranges
