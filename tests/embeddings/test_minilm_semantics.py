"""The embedder behaves like a sentence-similarity model and like an ``Embedder``."""

from __future__ import annotations

import numpy as np
import pytest

from ragmeter.embeddings import Embedder, cosine_matrix


def test_paraphrase_closer_than_unrelated(embedder) -> None:
    q, para, other = embedder.embed(
        [
            "How do I reset my password?",
            "Steps to recover a forgotten password",
            "The Pro plan costs 8 dollars a month",
        ]
    )
    sims = cosine_matrix(q, np.stack([para, other]))[0]
    assert sims[0] > sims[1] + 0.3


def test_is_an_embedder(embedder) -> None:
    assert isinstance(embedder, Embedder)
    assert embedder.name == "all-MiniLM-L6-v2"
    assert embedder.dim == 384


def test_empty_input_and_bad_input(embedder) -> None:
    assert embedder.embed([]).shape == (0, 384)
    with pytest.raises(TypeError):
        embedder.embed("a single string")
    with pytest.raises(TypeError):
        embedder.embed(["ok", 3])  # type: ignore[list-item]


def test_repeated_texts_share_one_vector(embedder) -> None:
    first = embedder.embed(["repeated text", "other", "repeated text"])
    assert np.array_equal(first[0], first[2])
    again = embedder.embed(["repeated text"])
    assert np.array_equal(again[0], first[0])
    # Returned arrays are the caller's: editing them does not corrupt the cache.
    again[0] = 0.0
    assert np.array_equal(embedder.embed(["repeated text"])[0], first[0])


def test_lru_cache_is_bounded(embedder, graph_cache) -> None:
    from ragmeter.embeddings import MiniLMEmbedder

    small = MiniLMEmbedder(embedder.model_dir, cache_dir=graph_cache / "models", cache_size=2)
    vectors = small.embed(["one", "two", "three"])
    assert len(small._cache) == 2
    assert np.abs(small.embed(["one"])[0] - vectors[0]).max() < 1e-6


def test_cosine_matrix() -> None:
    a = np.array([[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]])
    b = np.array([[3.0, 0.0], [1.0, 1.0]])
    got = cosine_matrix(a, b)
    assert got.shape == (3, 2)
    np.testing.assert_allclose(got, [[1.0, 2**-0.5], [0.0, 2**-0.5], [0.0, 0.0]], atol=1e-6)
    assert cosine_matrix(np.array([1.0, 1.0]), np.array([-1.0, -1.0]))[0, 0] == pytest.approx(-1)
    with pytest.raises(ValueError, match="dimension"):
        cosine_matrix(np.ones((1, 2)), np.ones((1, 3)))
