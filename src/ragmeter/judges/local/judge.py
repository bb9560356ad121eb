"""The offline local judge: lexical, numeric and (English) embedding evidence."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..base import METRICS, JudgeFingerprint, MetricName, MetricResult, Sample
from .faithfulness import score_faithfulness
from .precision import score_context_precision
from .recall import score_context_recall
from .relevancy import score_answer_relevancy
from .settings import LocalSettings
from .vectors import EmbeddingStore, load_embedder
from .view import SampleView, build_view

PROMPT_VERSION = "local-3"  # 2: antonym swaps contradict; 3: free-wording refusals, follow-ups
EMBEDDING_MODEL = "all-MiniLM-L6-v2"

_SCORERS: dict[MetricName, Callable[[SampleView], MetricResult]] = {
    "faithfulness": score_faithfulness,
    "answer_relevancy": score_answer_relevancy,
    "context_precision": score_context_precision,
    "context_recall": score_context_recall,
}

_UNSET: Any = object()


class LocalJudge:
    """Judges all four metrics offline, with no API key.

    English cases blend lexical evidence with MiniLM sentence similarity when the `embeddings`
    extra is installed; Chinese cases (and English ones without it) use lexical evidence only.
    Pass `embedder=None` to force lexical-only judging.
    """

    name = "local"
    decision_thresholds: dict[MetricName, float] = {"faithfulness": 0.5}  # noqa: RUF012
    """Score at or above which an answer counts as faithful (calibration uses it)."""

    def __init__(self, settings: LocalSettings | None = None, *, embedder: Any = _UNSET) -> None:
        self.settings = settings or LocalSettings()
        self._embedder = embedder
        self._store: EmbeddingStore | None = None

    @property
    def store(self) -> EmbeddingStore:
        """The embedding store, loading the embedder on first use."""
        if self._store is None:
            embedder = load_embedder() if self._embedder is _UNSET else self._embedder
            self._store = EmbeddingStore(embedder)
        return self._store

    def fingerprint(self) -> JudgeFingerprint:
        model = f"lexical+{EMBEDDING_MODEL}" if self.store.available else "lexical"
        return JudgeFingerprint(
            kind="local",
            model=model,
            prompt_version=PROMPT_VERSION,
            params={**self.settings.model_dump(), "faithfulness_weights": _weights_version()},
        )

    def judge_sync(
        self, sample: Sample, metrics: tuple[MetricName, ...] = METRICS
    ) -> dict[MetricName, MetricResult]:
        """Score `sample` on `metrics`; never raises for a case-level failure."""
        try:
            view = build_view(sample, metrics, self.settings, self.store)
        except Exception as exc:
            return {m: _error(m, exc) for m in metrics}
        results: dict[MetricName, MetricResult] = {}
        for metric in metrics:
            try:
                results[metric] = _SCORERS[metric](view)
            except Exception as exc:
                results[metric] = _error(metric, exc)
        return results

    async def judge(
        self, sample: Sample, metrics: tuple[MetricName, ...] = METRICS
    ) -> dict[MetricName, MetricResult]:
        """Score `sample` on `metrics` (CPU-bound; runs inline)."""
        return self.judge_sync(sample, metrics)


def _weights_version() -> str:
    from .combine import load_combination

    combination = load_combination()
    return "rules" if combination is None else combination.version


def _error(metric: MetricName, exc: Exception) -> MetricResult:
    return MetricResult.unscored(metric, f"judge error: {type(exc).__name__}: {exc}")
