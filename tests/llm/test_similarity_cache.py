"""Local similarities kept in the call cache: a cached re-run embeds nothing."""

from __future__ import annotations

import asyncio

import pytest

from ragmeter.llm.cache import LLMCache
from ragmeter.llm.embeddings import LocalSimilarity


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
