"""How much an answer is about its question, by meaning: multilingual-e5-small, both languages.

The question is embedded as an e5 query and the answer as a passage (the pairs e5 was trained
on). Raw e5 cosines sit in a narrow band that depends on the answer (short or pronoun-led
answers low, Chinese high), so what counts is the cosine *above* the answer's mean cosine with
questions in general (``background.BACKGROUND``, in the case's language). That margin is mapped
onto [0, 1] between two fixed points read once from the demo set's question/reference pairs (not
an evaluation set; ``bench/relevancy_margin.py``): 0.03, the median margin of a question with
another question's reference, and 0.10, the first quartile of a question with its own (English
0.107, Chinese 0.097).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..base import Lang
from .background import BACKGROUND
from .recent import RecentVectors

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

MARGIN_FLOOR = 0.03
"""Margin of an answer about another question (median, demo set): topicality 0."""
MARGIN_CEILING = 0.10
"""Margin of an answer to this question (first quartile, demo set): topicality 1."""


@dataclass(frozen=True)
class Topicality:
    cosine: float
    """e5 cosine of the question (query) and the answer (passage)."""
    baseline: float
    """Mean cosine of the answer with the background questions of its language."""

    @property
    def margin(self) -> float:
        return self.cosine - self.baseline

    @property
    def score(self) -> float:
        """The margin on [0, 1] between ``MARGIN_FLOOR`` and ``MARGIN_CEILING``."""
        span = MARGIN_CEILING - MARGIN_FLOOR
        return min(1.0, max(0.0, (self.margin - MARGIN_FLOOR) / span))


def load_e5() -> Any | None:
    """The e5 embedder, or None (with a warning) when it cannot be loaded."""
    try:
        from ...embeddings.e5 import load_e5_embedder

        return load_e5_embedder()
    except Exception as exc:  # optional model: any failure means "judge relevancy by words"
        log.warning("multilingual-e5-small unavailable: %s", exc)
        return None


_meters: dict[int, TopicalityMeter] = {}
_meters_lock = threading.Lock()


def meter_for(embedder: Any) -> TopicalityMeter:
    """The process's meter of `embedder`: judges share its background vectors and cache."""
    with _meters_lock:
        meter = _meters.get(id(embedder))
        if meter is None or meter.embedder is not embedder:
            meter = _meters[id(embedder)] = TopicalityMeter(embedder)
        return meter


class TopicalityMeter:
    """Measures topicality with an e5 embedder, remembering recent vectors; thread-safe."""

    def __init__(self, embedder: Any, capacity: int = 20_000) -> None:
        self.embedder = embedder
        self._recent: RecentVectors[tuple[str, str]] = RecentVectors(capacity)
        self._background: dict[Lang, np.ndarray] = {}
        self._lock = threading.Lock()

    def measure(self, question: str, answer: str, lang: Lang) -> Topicality:
        q = self._vector("query", question)
        a = self._vector("passage", answer)
        background = self._background_of(lang)
        return Topicality(cosine=float(q @ a), baseline=float((background @ a).mean()))

    def _background_of(self, lang: Lang) -> np.ndarray:
        with self._lock:
            found = self._background.get(lang)
        if found is None:
            found = self.embedder.embed_queries(list(BACKGROUND[lang]))
            with self._lock:
                self._background[lang] = found
        return found

    def _vector(self, kind: str, text: str) -> np.ndarray:
        key = (kind, text)
        row = self._recent.get(key)
        if row is None:
            embed = self.embedder.embed_queries if kind == "query" else self.embedder.embed_passages
            row = embed([text])[0]
            self._recent.put([(key, row)])
        return row
