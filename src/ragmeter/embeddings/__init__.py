"""Sentence embeddings: the ``Embedder`` interface and the offline MiniLM embedder.

``load_local_embedder()`` returns the shared all-MiniLM-L6-v2 embedder, or None when the optional
packages or the model are not installed (``local_embedder_status()`` says which). Importing this
package is cheap: numpy and onnxruntime are imported on first use.
"""

from .base import Embedder, cosine_matrix
from .minilm import MiniLMEmbedder, load_local_embedder, local_embedder_status

__all__ = [
    "Embedder",
    "MiniLMEmbedder",
    "cosine_matrix",
    "load_local_embedder",
    "local_embedder_status",
]
