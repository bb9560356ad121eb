"""Shared fixtures: the model directory and one embedder built in a temporary cache."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

for _name in ("numpy", "onnx", "onnxruntime", "tokenizers", "safetensors"):
    pytest.importorskip(_name)


def _no_network(*args: object, **kwargs: object) -> None:
    raise AssertionError("the local embedder tried to use the network")


@pytest.fixture(scope="session")
def model_dir() -> Path:
    """The model files shipped inside the package."""
    from ragmeter.embeddings.minilm import BUNDLED

    return BUNDLED


@pytest.fixture(scope="session")
def graph_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A RAGMETER_CACHE_DIR for the shared embedder (never the user's real cache)."""
    return tmp_path_factory.mktemp("ragmeter-cache")


@pytest.fixture(scope="session")
def embedder(graph_cache: Path):
    """The process-wide embedder, built once with the network switched off."""
    from ragmeter.embeddings import load_local_embedder, local_embedder_status

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RAGMETER_CACHE_DIR", str(graph_cache))
        mp.setattr(socket.socket, "connect", _no_network)
        mp.setattr(socket, "getaddrinfo", _no_network)
        found = load_local_embedder()
        assert found is not None, local_embedder_status()
        # Embedding must stay offline too.
        found.embed(["warm up"])
    return found
