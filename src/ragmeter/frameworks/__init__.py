"""RAG frameworks as pipelines: a LangChain runnable or a LlamaIndex query or chat engine.

:func:`python_pipeline` turns a framework object or a callable that a `module:object` spec or
a `pipeline=` argument names into a pipeline: a framework object gets its adapter (contexts
captured from the framework's own retrieved documents), anything else callable a
:class:`~ragmeter.pipeline.CallablePipeline` (a pipeline object needs neither: the door,
`ragmeter.api`, takes it as it is).
Frameworks are recognised by the module their classes come from, so neither is imported
unless the user's object is one of theirs (`pip install 'ragmeter[langchain]'` or
`'ragmeter[llamaindex]'`).
"""

from __future__ import annotations

from typing import Any

from .._exceptions import ConfigError
from ..pipeline import DEFAULT_TIMEOUT, CallablePipeline, PipelineBase


def framework_of(target: object) -> str | None:
    """'langchain' or 'llamaindex' when `target`'s class comes from that framework."""
    for cls in type(target).__mro__:
        module = cls.__module__ or ""
        if module.startswith("langchain_core."):
            return "langchain"
        if module.startswith("llama_index.core."):
            return "llamaindex"
    return None


def python_pipeline(
    target: Any, *, name: str | None = None, timeout: float | None = DEFAULT_TIMEOUT
) -> PipelineBase:
    """The pipeline for a Python object: a framework's adapter or a callable's wrapper."""
    framework = framework_of(target)
    if framework == "langchain":
        from .langchain import LangChainPipeline  # imports langchain_core: an optional extra

        return LangChainPipeline(target, name=name, timeout=timeout)
    if framework == "llamaindex":
        from .llamaindex import LlamaIndexPipeline  # imports llama_index: an optional extra

        return LlamaIndexPipeline(target, name=name, timeout=timeout)
    if not callable(target):
        raise ConfigError(
            f"pipeline {name or repr(target)} is a {type(target).__name__}, not callable: give "
            "a function (question, history) returning {'contexts': [...], 'answer': '...'}, a "
            "LangChain runnable or a LlamaIndex query or chat engine"
        )
    return CallablePipeline(target, name=name, timeout=timeout)


__all__ = ["framework_of", "python_pipeline"]
