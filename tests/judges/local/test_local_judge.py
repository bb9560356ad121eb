from __future__ import annotations

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
    assert fp.prompt_version == "local-3"
    assert fp.params["support_threshold"] == 0.6


def test_fingerprint_changes_with_settings() -> None:
    a = LocalJudge(embedder=None).fingerprint()
    b = LocalJudge(LocalSettings(support_threshold=0.7), embedder=None).fingerprint()
    assert a.key() != b.key()


def test_fingerprint_with_embeddings(minilm: object) -> None:
    if minilm is None:
        return
    assert LocalJudge(embedder=minilm).fingerprint().model == "lexical+all-MiniLM-L6-v2"


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


def test_chinese_sample_marked_english_is_judged_as_chinese(
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
