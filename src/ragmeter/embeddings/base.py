"""The embedder interface and a cosine helper."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length vectors.

    ``embed`` returns a float32 array of shape ``(len(texts), dim)`` whose rows have L2 norm 1,
    so a dot product between two rows is their cosine similarity.
    """

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``; one L2-normalised float32 row per text, in order."""
        ...


def cosine_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine similarities between the rows of ``a`` and ``b``: shape ``(len(a), len(b))``.

    1-D inputs are treated as single rows. Rows need not be normalised; an all-zero row has
    similarity 0 with everything.
    """
    import numpy as np

    a2 = np.atleast_2d(np.asarray(a, dtype=np.float32))
    b2 = np.atleast_2d(np.asarray(b, dtype=np.float32))
    if a2.shape[1] != b2.shape[1]:
        raise ValueError(f"dimension mismatch: {a2.shape[1]} vs {b2.shape[1]}")
    a2 = a2 / np.maximum(np.linalg.norm(a2, axis=1, keepdims=True), 1e-12)
    b2 = b2 / np.maximum(np.linalg.norm(b2, axis=1, keepdims=True), 1e-12)
    return np.clip(a2 @ b2.T, -1.0, 1.0)
