"""A LlamaIndex query engine or chat engine as a pipeline, its contexts the source nodes.

Needs `llama-index-core` (`pip install 'ragmeter[llamaindex]'`).
"""

from __future__ import annotations

from typing import Any

from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.chat_engine.types import BaseChatEngine

from .._exceptions import ConfigError, PipelineError
from ..cases import Case
from ..pipeline import DEFAULT_TIMEOUT, PipelineBase, PipelineOutput, check_timeout

_ROLES = {
    "user": MessageRole.USER,
    "assistant": MessageRole.ASSISTANT,
    "system": MessageRole.SYSTEM,
}


class LlamaIndexPipeline(PipelineBase):
    """A LlamaIndex query engine (`index.as_query_engine()`) or chat engine
    (`index.as_chat_engine()`) as a pipeline.

    A query engine answers the question alone (a multi-turn case is unscored: it has no
    history to give); a chat engine gets the case's earlier turns as its chat history. The
    contexts are the text of the response's source nodes, best first, their scores and node
    ids kept in the case's metadata.
    """

    def __init__(
        self,
        engine: BaseQueryEngine | BaseChatEngine,
        *,
        name: str | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,
    ) -> None:
        if not isinstance(engine, BaseQueryEngine | BaseChatEngine):
            raise ConfigError(
                f"{type(engine).__name__} is neither a LlamaIndex query engine nor a chat "
                "engine; give index.as_query_engine() or index.as_chat_engine()"
            )
        self.engine = engine
        self.name = name or f"llamaindex:{type(engine).__name__}"
        self.timeout = check_timeout(timeout)

    async def run(self, case: Case) -> PipelineOutput:
        source = f"pipeline {self.name} (case '{case.id}')"
        try:
            response = await self._ask(case, source)
        except PipelineError:
            raise
        except Exception as exc:
            raise PipelineError(f"{source} raised {type(exc).__name__}: {exc}") from exc
        nodes = list(getattr(response, "source_nodes", None) or [])
        answer = response.response
        if not isinstance(answer, str):
            raise PipelineError(
                f"{source} returned a {type(response).__name__} without text; a streaming "
                "engine is not supported: build it with streaming=False"
            )
        return PipelineOutput(
            contexts=[node.node.get_content() for node in nodes],
            answer=answer,
            metadata={
                "node_ids": [node.node.node_id for node in nodes],
                "scores": [node.score for node in nodes],
            },
        )

    async def _ask(self, case: Case, source: str) -> Any:
        if isinstance(self.engine, BaseChatEngine):
            history = [
                ChatMessage(role=_ROLES.get(turn.role, MessageRole.USER), content=turn.content)
                for turn in case.history
            ]
            return await self.engine.achat(case.question, chat_history=history)
        if case.history:
            raise PipelineError(
                f"{source} has {len(case.history)} earlier turns, but a query engine takes "
                "none; evaluate multi-turn cases with a chat engine (index.as_chat_engine())"
            )
        return await self.engine.aquery(case.question)


__all__ = ["LlamaIndexPipeline"]
