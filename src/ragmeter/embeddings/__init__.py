"""Sentence embeddings: the ``Embedder`` interface, the offline MiniLM embedder (English) and
USE multilingual v3 (Chinese, see ``use``); ``similarity`` turns them (or an endpoint's
/embeddings, or character bigrams) into the similarity answer relevancy reads.

``load_local_embedder()`` returns the shared all-MiniLM-L6-v2 embedder, or None when the optional
packages or the model are not installed (``local_embedder_status()`` says which). Importing this
package is cheap: numpy and onnxruntime are imported on first use.
"""

from .base import Embedder, cosine_matrix
from .minilm import MiniLMEmbedder, load_local_embedder, local_embedder_status
from .use import USEEmbedder, load_use_embedder, use_available

__all__ = [
    "Embedder",
    "MiniLMEmbedder",
    "USEEmbedder",
    "cosine_matrix",
    "load_local_embedder",
    "load_use_embedder",
    "local_embedder_status",
    "use_available",
]
