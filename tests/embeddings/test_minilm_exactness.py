"""The ONNX graph computes exactly the BERT forward pass of all-MiniLM-L6-v2."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

SENTENCES = [
    "Hi.",
    "How do I reset my password?",
    "The Pro plan costs 8 dollars a month and includes unlimited projects.",
    "Refunds are issued to the original payment method within five to ten business days "
    "after the returned item has been received and inspected by our warehouse team, "
    "except for digital goods, gift cards and items marked as final sale.",
    "",
]

_erf = np.vectorize(math.erf)


class ReferenceBert:
    """A plain float64 numpy forward pass of the same model, one unpadded sentence at a time."""

    def __init__(self, model_dir: Path) -> None:
        from safetensors.numpy import load_file

        cfg = json.loads((model_dir / "config.json").read_text())
        self.layers = cfg["num_hidden_layers"]
        self.heads = cfg["num_attention_heads"]
        self.eps = cfg["layer_norm_eps"]
        raw = load_file(str(model_dir / "model.safetensors"))
        self.w = {
            k: v.astype(np.float64) for k, v in raw.items() if v.dtype in (np.float32, np.float16)
        }

    def _ln(self, x: np.ndarray, prefix: str) -> np.ndarray:
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + self.eps) * self.w[f"{prefix}.weight"] + self.w[
            f"{prefix}.bias"
        ]

    def _lin(self, x: np.ndarray, prefix: str) -> np.ndarray:
        return x @ self.w[f"{prefix}.weight"].T + self.w[f"{prefix}.bias"]

    def embed(self, ids: list[int]) -> np.ndarray:
        n = len(ids)
        w = self.w
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:n]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = self._ln(x, "embeddings.LayerNorm")
        hd = x.shape[1] // self.heads
        for i in range(self.layers):
            p = f"encoder.layer.{i}"

            def split(t: np.ndarray) -> np.ndarray:
                return t.reshape(n, self.heads, hd).transpose(1, 0, 2)

            q = split(self._lin(x, f"{p}.attention.self.query"))
            k = split(self._lin(x, f"{p}.attention.self.key"))
            v = split(self._lin(x, f"{p}.attention.self.value"))
            scores = q @ k.transpose(0, 2, 1) / math.sqrt(hd)
            probs = np.exp(scores - scores.max(-1, keepdims=True))
            probs /= probs.sum(-1, keepdims=True)
            ctx = (probs @ v).transpose(1, 0, 2).reshape(n, -1)
            x1 = self._ln(
                self._lin(ctx, f"{p}.attention.output.dense") + x, f"{p}.attention.output.LayerNorm"
            )
            h = self._lin(x1, f"{p}.intermediate.dense")
            h = 0.5 * h * (1.0 + _erf(h / math.sqrt(2.0)))
            x = self._ln(self._lin(h, f"{p}.output.dense") + x1, f"{p}.output.LayerNorm")
        mean = x.mean(0)
        return mean / np.linalg.norm(mean)


@pytest.fixture(scope="module")
def reference(model_dir: Path) -> ReferenceBert:
    return ReferenceBert(model_dir)


def _token_ids(model_dir: Path, text: str) -> list[int]:
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=256)
    return tok.encode(text).ids


def test_matches_numpy_reference(embedder, reference, model_dir) -> None:
    got = embedder.embed(SENTENCES)
    assert got.dtype == np.float32 and got.shape == (len(SENTENCES), 384)
    for text, row in zip(SENTENCES, got, strict=True):
        want = reference.embed(_token_ids(model_dir, text))
        assert np.abs(row - want).max() < 1e-5, text


def test_long_text_truncated_to_256_tokens(embedder, reference, model_dir) -> None:
    long_text = " ".join(f"word{i} apple" for i in range(300))
    ids = _token_ids(model_dir, long_text)
    assert len(ids) == 256
    (got,) = embedder.embed([long_text])
    assert np.abs(got - reference.embed(ids)).max() < 1e-5
    # Anything past the limit is ignored.
    (longer,) = embedder.embed([long_text + " banana split"])
    assert np.abs(got - longer).max() < 1e-6


@pytest.fixture(scope="module")
def uncached(embedder, graph_cache: Path):
    """An embedder without the LRU cache, so every call runs the model."""
    from ragmeter.embeddings import MiniLMEmbedder

    return MiniLMEmbedder(embedder.model_dir, cache_dir=graph_cache / "models", cache_size=0)


def test_padding_does_not_change_vectors(uncached) -> None:
    longest = SENTENCES[3]
    alone = np.stack([uncached.embed([s])[0] for s in SENTENCES])
    # One batch: every shorter sentence is padded to the longest one.
    batched = uncached.embed([longest, *SENTENCES])[1:]
    assert np.abs(alone - batched).max() < 1e-6


def test_batches_of_any_size_agree(uncached, embedder) -> None:
    texts = [f"sentence number {i} " + "padding words " * (i % 7) for i in range(70)]
    small_batches = np.stack([uncached.embed([t])[0] for t in texts[:5]])
    one_call = uncached.embed(texts)
    assert one_call.shape == (70, 384)
    assert np.abs(one_call[:5] - small_batches).max() < 1e-6
    np.testing.assert_allclose(np.linalg.norm(one_call, axis=1), 1.0, atol=1e-6)
    assert np.abs(embedder.embed(texts) - one_call).max() < 1e-6
