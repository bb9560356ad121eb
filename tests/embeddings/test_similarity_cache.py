"""Local similarities kept in the call cache: a cached re-run embeds nothing."""

from __future__ import annotations

import asyncio

import pytest

from ragmeter.clients.cache import LLMCache
from ragmeter.embeddings.similarity import LocalSimilarity


class NoEmbedding:
    """Stands in for the model once the scores are cached: any embedding is a test failure."""

    name = "minilm"

    def embed(self, texts):
        raise AssertionError(f"embedded {texts!r} although the similarities were cached")


def test_a_cached_rerun_reads_the_similarities_and_embeds_nothing(tmp_path):
    path = tmp_path / "c.sqlite"
    texts = ["How long is the warranty?", "What does shipping cost?"]
    first = LocalSimilarity(LLMCache(path))
    scores = asyncio.run(first.similarity("How long does the warranty last?", texts, "en"))
    assert len(scores) == 2 and scores[0] > scores[1]

    again = LocalSimilarity(LLMCache(path))  # a new run on the same cache file
    again._models = first.name  # the models are known: nothing needs loading to make the key
    again._embedder, again._loaded = NoEmbedding(), True
    assert asyncio.run(again.similarity("How long does the warranty last?", texts, "en")) == scores
    with pytest.raises(AssertionError, match="although the similarities were cached"):
        asyncio.run(again.similarity("Something else entirely?", texts, "en"))


def test_without_a_cache_nothing_is_kept(tmp_path):
    similarity = LocalSimilarity()
    scores = asyncio.run(similarity.similarity("warranty length?", ["warranty?"], "en"))
    assert len(scores) == 1


def test_a_cached_rerun_loads_no_chinese_model_until_a_similarity_is_missing(tmp_path, monkeypatch):
    import ragmeter.embeddings.similarity as embeddings

    loads: list[str] = []

    def counted_load() -> None:
        loads.append("use")

    monkeypatch.setattr(embeddings, "_load_use_quietly", counted_load)
    monkeypatch.setattr(embeddings, "_use_available", lambda: True)
    path = tmp_path / "c.sqlite"
    texts = ["保修期多长？", "运费是多少？"]
    cache = LLMCache(path)
    similarity = LocalSimilarity(cache)
    similarity._models = "minilm+use(zh)"
    key_scores = [0.9, 0.1]
    # what a first run stored, under the key similarity() makes
    asyncio.run(_store(similarity, "保修多久？", texts, key_scores, monkeypatch))

    rerun = LocalSimilarity(LLMCache(path))
    rerun._models = "minilm+use(zh)"
    rerun.prefetch("zh")  # the judge asks before its calls: nothing is missing yet
    assert asyncio.run(rerun.similarity("保修多久？", texts, "zh")) == key_scores
    rerun.prefetch("zh")
    _join_threads()
    assert loads == []

    async def scored(*_: object) -> list[float]:
        return [0.5, 0.5]

    monkeypatch.setattr(rerun, "_similarity", scored)
    asyncio.run(rerun.similarity("另一个问题？", texts, "zh"))  # a miss
    rerun.prefetch("zh")
    _join_threads()
    assert loads == ["use"]


async def _store(similarity, anchor, texts, scores, monkeypatch):
    async def fixed(*_: object) -> list[float]:
        return scores

    monkeypatch.setattr(similarity, "_similarity", fixed)
    await similarity.similarity(anchor, texts, "zh")


def _join_threads() -> None:
    import threading

    for thread in threading.enumerate():
        if thread.name == "ragmeter-use":
            thread.join(5)


def test_a_cached_rerun_names_minilm_without_loading_it(tmp_path, monkeypatch):
    import ragmeter.embeddings as embeddings

    path = tmp_path / "c.sqlite"
    texts = ["How long is the warranty?", "What does shipping cost?"]
    first = LocalSimilarity(LLMCache(path))
    scores = asyncio.run(first.similarity("How long does the warranty last?", texts, "en"))
    assert first._loaded  # a live run loads the model to embed

    def no_load():
        raise AssertionError("MiniLM was loaded although every similarity was cached")

    monkeypatch.setattr(embeddings, "load_local_embedder", no_load)
    again = LocalSimilarity(LLMCache(path))
    assert asyncio.run(again.similarity("How long does the warranty last?", texts, "en")) == scores
    assert again.name == first.name  # the same models named, so the same keys and fingerprint
    assert not again._loaded


def test_minilm_named_but_failing_to_load_raises_instead_of_scoring_with_bigrams(
    tmp_path, monkeypatch
):
    import ragmeter.embeddings as embeddings

    monkeypatch.setattr(embeddings, "load_local_embedder", lambda: None)  # as a broken install
    similarity = LocalSimilarity(LLMCache(tmp_path / "c.sqlite"))
    assert "all-MiniLM-L6-v2" in similarity.name  # installed, so named before any load
    with pytest.raises(RuntimeError, match="English similarity model did not load"):
        asyncio.run(similarity.similarity("warranty length?", ["warranty?"], "en"))


def test_without_a_name_given_out_a_failed_load_falls_back_and_is_named_so(monkeypatch):
    import ragmeter.embeddings as embeddings

    monkeypatch.setattr(embeddings, "load_local_embedder", lambda: None)
    similarity = LocalSimilarity()  # no cache: nothing reads the name before scoring
    scores = asyncio.run(similarity.similarity("warranty length?", ["warranty length"], "en"))
    assert scores[0] > 0.5  # from USE (English falls back to it), or bigrams without it
    assert "all-MiniLM" not in similarity.name


def test_local_models_run_one_embedding_at_a_time_on_one_thread():
    """Many cases in flight share the models through one worker thread: on the event loop's
    default pool several embeddings ran at once, each growing memory of its own."""
    import threading
    import time

    class Recording:
        name = "minilm"

        def __init__(self) -> None:
            self.threads: set[str] = set()
            self.running = self.most = 0
            self.lock = threading.Lock()

        def embed(self, texts):
            import numpy as np

            with self.lock:
                self.running += 1
                self.most = max(self.most, self.running)
                self.threads.add(threading.current_thread().name)
            time.sleep(0.01)
            with self.lock:
                self.running -= 1
            return np.eye(len(texts), 4, dtype=np.float32)

    model = Recording()
    similarity = LocalSimilarity()
    similarity._embedder, similarity._loaded = model, True

    async def many() -> list[list[float]]:
        asks = (similarity.similarity(f"question {i}?", ["a", "b"], "en") for i in range(12))
        return await asyncio.gather(*asks)

    assert asyncio.run(many()) == [[0.0, 0.0]] * 12
    assert model.most == 1
    assert len(model.threads) == 1 and next(iter(model.threads)).startswith("ragmeter-embed")
