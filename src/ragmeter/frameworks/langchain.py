"""A LangChain runnable as a pipeline, its contexts taken from the retrievers it ran.

Needs `langchain-core` (`pip install 'ragmeter[langchain]'`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from uuid import UUID

from langchain_core.callbacks import AsyncCallbackHandler
from langchain_core.documents import Document
from langchain_core.messages import BaseMessage
from langchain_core.runnables import Runnable

from .._exceptions import ConfigError, PipelineError
from ..cases import Case
from ..pipeline import DEFAULT_TIMEOUT, PipelineBase, PipelineOutput, check_timeout

INPUT_KEYS = ("input", "question", "query")
"""Keys a dict-input chain's question is passed under, when the chain's input schema has one
(`create_retrieval_chain` takes `input`, most LCEL examples `question`)."""
HISTORY_KEYS = ("chat_history", "history", "messages")
ANSWER_KEYS = ("answer", "result", "output", "text")
CONTEXT_KEYS = ("context", "source_documents", "documents")
_ROLES = {"user": "human", "assistant": "ai", "system": "system"}


class _RetrievedDocuments(AsyncCallbackHandler):
    """Collects the documents every retriever of one invocation returned, in order."""

    def __init__(self) -> None:
        self.documents: list[Document] = []

    async def on_retriever_end(
        self, documents: Sequence[Document], *, run_id: UUID, **kwargs: Any
    ) -> None:
        self.documents.extend(documents)


class LangChainPipeline(PipelineBase):
    """A LangChain :class:`~langchain_core.runnables.Runnable` (an LCEL chain,
    `create_retrieval_chain`'s chain, an agent) as a pipeline.

    The question goes in as the input itself, or as `{input_key: question}` for a chain whose
    input is a dict (found in its input schema: `input`, `question` or `query`, unless given);
    a multi-turn case's history goes in under `history_key` (`chat_history`, `history` or
    `messages` when the schema has one) as `(role, content)` pairs. The contexts are the
    `page_content` of every document the chain's retrievers returned (seen by a callback, in
    order, each once), or else the output's `context` / `source_documents`; the answer is the
    output when it is text, a message's content, or its `answer` / `result` / `output` / `text`.
    """

    def __init__(
        self,
        runnable: Runnable[Any, Any],
        *,
        name: str | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,
        input_key: str | None = None,
        history_key: str | None = None,
    ) -> None:
        if not isinstance(runnable, Runnable):
            raise ConfigError(f"{runnable!r} is not a LangChain Runnable")
        self.runnable = runnable
        self.name = name or f"langchain:{runnable.get_name()}"
        self.timeout = check_timeout(timeout)
        keys = _input_keys(runnable)
        self.input_key = input_key or next((k for k in INPUT_KEYS if k in keys), None)
        self.history_key = history_key or next((k for k in HISTORY_KEYS if k in keys), None)
        if keys and self.input_key is None:
            raise ConfigError(
                f"the chain {self.name} takes a dict with {', '.join(sorted(keys))}; say which "
                "holds the question: LangChainPipeline(chain, input_key=...)"
            )

    async def run(self, case: Case) -> PipelineOutput:
        source = f"pipeline {self.name} (case '{case.id}')"
        retrieved = _RetrievedDocuments()
        try:
            output = await self.runnable.ainvoke(
                self._input(case, source), config={"callbacks": [retrieved]}
            )
        except PipelineError:
            raise
        except Exception as exc:
            raise PipelineError(f"{source} raised {type(exc).__name__}: {exc}") from exc
        documents = retrieved.documents or _output_documents(output)
        return PipelineOutput(
            contexts=_unique(doc.page_content for doc in documents),
            answer=_answer(output, source),
            metadata={"sources": [dict(doc.metadata) for doc in documents if doc.metadata]},
        )

    def _input(self, case: Case, source: str) -> Any:
        history = [(_ROLES.get(turn.role, turn.role), turn.content) for turn in case.history]
        if history and self.history_key is None:
            raise PipelineError(
                f"{source} has {len(history)} earlier turns, but the chain takes no history; "
                "give LangChainPipeline(chain, history_key=...) the input key it reads them from"
            )
        if self.input_key is None:
            return case.question
        value: dict[str, Any] = {self.input_key: case.question}
        if self.history_key is not None:
            value[self.history_key] = history
        return value


def _input_keys(runnable: Runnable[Any, Any]) -> set[str]:
    """The properties of the runnable's input schema when it takes a dict; empty otherwise."""
    try:
        schema = runnable.get_input_jsonschema()
    except Exception:  # a schema a custom runnable cannot build: treat the input as text
        return set()
    properties = schema.get("properties") if schema.get("type") == "object" else None
    return set(properties) if isinstance(properties, Mapping) else set()


def _output_documents(output: object) -> list[Document]:
    if isinstance(output, Mapping):
        for key in CONTEXT_KEYS:
            value = output.get(key)
            if isinstance(value, list) and all(isinstance(d, Document) for d in value):
                return value
    return []


def _answer(output: object, source: str) -> str:
    if isinstance(output, str):
        return output
    if isinstance(output, BaseMessage):
        return output.text
    if isinstance(output, Mapping):
        for key in ANSWER_KEYS:
            value = output.get(key)
            if isinstance(value, str):
                return value
            if isinstance(value, BaseMessage):
                return value.text
        keys = ", ".join(map(str, output)) or "none"
        raise PipelineError(
            f"{source} returned a dict without an answer (keys: {keys}); end the chain with a "
            f"StrOutputParser, or return one of {', '.join(ANSWER_KEYS)}"
        )
    raise PipelineError(
        f"{source} returned a {type(output).__name__}; end the chain with a StrOutputParser"
    )


def _unique(texts: Any) -> list[str]:
    """The texts in order, each once (two retrievers often return the same chunk)."""
    return list(dict.fromkeys(texts))


__all__ = ["LangChainPipeline"]
