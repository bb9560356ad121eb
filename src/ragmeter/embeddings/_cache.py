"""The on-disk cache of built ONNX graphs and memory-mapped tables.

A graph is built once from the safetensors weights and saved as
``<cache>/models/<model>-w<weights hash>-b<builder version>.onnx`` next to a small JSON sidecar
that records its size. The model file is written first and the sidecar last, each atomically
(temporary file, then ``os.replace``), so a missing sidecar or a size mismatch means the model
file is incomplete or corrupt and is rebuilt.

A table that a model only reads a few rows of (an embedding table) can be kept here as raw
bytes and memory-mapped (``mapped_table``), so only the rows a run touches are resident.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from .._util.paths import cache_root

if TYPE_CHECKING:
    import numpy as np

logger = logging.getLogger(__name__)
SessionT = TypeVar("SessionT")

#: Bump when the graph changes so stale cached graphs are not reused.
BUILDER_VERSION = 2
_HASHED_PREFIX = 1 << 20


def models_cache_dir() -> Path:
    """``$RAGMETER_CACHE_DIR/models``, or ``~/.cache/ragmeter/models`` by default."""
    return cache_root() / "models"


def weights_fingerprint(weights_file: Path) -> str:
    """A short hash of a weights file: its size and the sha256 of its first megabyte."""
    digest = hashlib.sha256(str(weights_file.stat().st_size).encode())
    with weights_file.open("rb") as fh:
        digest.update(fh.read(_HASHED_PREFIX))
    return digest.hexdigest()[:16]


def cached_model_path(model_name: str, model_dir: Path, cache_dir: Path | None = None) -> Path:
    """Where the graph for the weights in ``model_dir`` is (or will be) cached."""
    cache_dir = cache_dir if cache_dir is not None else models_cache_dir()
    fingerprint = weights_fingerprint(model_dir / "model.safetensors")
    return cache_dir / f"{model_name}-w{fingerprint}-b{BUILDER_VERSION}.onnx"


def build_onnx_bytes(model_dir: Path) -> bytes:
    """Build the sentence-encoder graph from ``model_dir`` and return it serialised."""
    from safetensors.numpy import load_file

    from ._graph import WORD_TABLE, BertConfig, build_bert_graph

    config = BertConfig.from_json(json.loads((model_dir / "config.json").read_text("utf-8")))
    weights = load_file(str(model_dir / "model.safetensors"))
    # the vendored weights are stored as float16 (half the wheel): the graph computes in float32
    weights = {
        k: v.astype("float32") if v.dtype.name == "float16" else v
        for k, v in weights.items()
        if not k.endswith(WORD_TABLE)  # looked up by the embedder, not part of the graph
    }
    return build_bert_graph(weights, config).SerializeToString()


def is_valid_cached(path: Path) -> bool:
    """True if ``path`` exists and matches the size its sidecar recorded."""
    try:
        meta = json.loads(_sidecar(path).read_text("utf-8"))
        return path.stat().st_size == int(meta["size"])
    except (OSError, ValueError, KeyError, TypeError):
        return False


def ensure_onnx_model(
    model_name: str, model_dir: Path, cache_dir: Path | None = None, *, rebuild: bool = False
) -> Path:
    """Return the path of a valid cached graph for ``model_dir``, building it if needed.

    Raises ``OSError`` when the cache directory cannot be written.
    """
    path = cached_model_path(model_name, model_dir, cache_dir)
    return ensure_graph(path, model_name, lambda: build_onnx_bytes(model_dir), rebuild=rebuild)


def ensure_graph(
    path: Path, model_name: str, build: Callable[[], bytes], *, rebuild: bool = False
) -> Path:
    """``path`` once it holds a valid graph, built by ``build()`` when it does not.

    Raises ``OSError`` when the cache directory cannot be written.
    """
    if not rebuild and is_valid_cached(path):
        return path
    logger.info("building the ONNX graph of %s into %s (one-off)", model_name, path)
    data = build()
    path.parent.mkdir(parents=True, exist_ok=True)
    _atomic_write(path, data)
    meta = {"size": len(data), "builder_version": BUILDER_VERSION, "model": model_name}
    _atomic_write(_sidecar(path), json.dumps(meta).encode("utf-8"))
    _prune_stale(path)
    return path


def open_graph_session(
    path: Path,
    model_name: str,
    build: Callable[[], bytes],
    load: Callable[[str | bytes], SessionT],
) -> SessionT:
    """``load`` of the graph cached at ``path`` (built by ``build()`` when missing): rebuilt once
    when the cached file will not load, and built in memory when the cache cannot be written."""
    try:
        ensure_graph(path, model_name, build)
    except OSError as exc:
        logger.warning("cannot cache the ONNX graph (%s); building it in memory", exc)
        return load(build())
    try:
        return load(str(path))
    except Exception as exc:  # onnxruntime raises its own untyped errors on a bad file
        logger.warning("cached ONNX graph %s does not load (%s); rebuilding it", path, exc)
    return load(str(ensure_graph(path, model_name, build, rebuild=True)))


def mapped_table(table: np.ndarray, path: Path) -> np.memmap:
    """A read-only memory map of ``table``'s bytes kept at ``path``, bit-identical to ``table``.

    The file is (re)written atomically unless it already holds exactly those bytes; the check
    reads the file rather than mapping it, so it leaves none of its pages resident in this
    process. Raises ``OSError`` when the file cannot be written.
    """
    import numpy as np

    data = np.ascontiguousarray(table).data.cast("B")
    if not _holds(path, data):
        path.parent.mkdir(parents=True, exist_ok=True)
        _atomic_write(path, data)
    return np.memmap(path, dtype=table.dtype, mode="r", shape=table.shape)


def _holds(path: Path, data: memoryview, chunk: int = 1 << 22) -> bool:
    """Whether the file at ``path`` holds exactly ``data``."""
    try:
        if path.stat().st_size != len(data):
            return False
        with path.open("rb") as fh:
            for start in range(0, len(data), chunk):
                if fh.read(chunk) != data[start : start + chunk]:
                    return False
    except OSError:
        return False
    return True


def _sidecar(path: Path) -> Path:
    return path.with_suffix(".json")


def _atomic_write(path: Path, data: bytes | memoryview) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)  # mkstemp creates 0600
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _prune_stale(current: Path) -> None:
    """Remove graphs of the same weights built by an older builder version."""
    prefix = current.stem.rsplit("-b", 1)[0]
    for old in current.parent.glob(f"{prefix}-b*.*"):
        version = old.stem.rsplit("-b", 1)[-1]
        if version.isdigit() and int(version) < BUILDER_VERSION:
            with contextlib.suppress(OSError):
                old.unlink()
