"""The settings of the llama judge, as a user gives them: the LLM judges' keys
(:class:`~ragmeter.judges.llm.options.LLMOptions`) and those of the server it starts, checked
once against :class:`LlamaOptions` (``judges.options``), then translated once into the
server's :class:`~ragmeter.judges.llama.server.ServerOptions` and the judge's config."""

from __future__ import annotations

from pydantic import Field

from ..llm.options import LLMOptions
from .server import CtxSize, MaxTokens, ServerOptions, Slots, Threads


class LlamaOptions(LLMOptions):
    """What the llama judge reads. `model` names a bundled model (`qwen2.5-coder-1.5b`, the
    default, or `qwen2.5-coder-0.5b`); unset keys take the llama judge's own defaults (every
    metric in verifier mode, 600 s a call, as many calls in flight as the server has slots)."""

    concurrency: int | None = Field(default=None, ge=1)
    """Calls in flight to the server (default: its `parallel` slots)."""
    timeout: float | None = None
    """Seconds one call may take in total (default 600: a small model on a busy CPU)."""
    model_path: str | None = None
    """A GGUF file to serve instead of a bundled model."""
    threads: Threads | None = None
    """CPU threads of the server (default: every idle core, at least one)."""
    ctx_size: CtxSize | None = None
    """Tokens of context per slot (default 4096)."""
    parallel: Slots | None = None
    """Calls the server decodes at once (default 1)."""
    max_tokens: MaxTokens | None = None
    """Longest reply when a call sets no limit (default 512), so a looping small model stops."""

    def server_options(self) -> ServerOptions:
        """The one translation of the server's keys: the server's own defaults for those
        unset."""
        chosen = {
            "threads": self.threads,
            "ctx_size": self.ctx_size,
            "parallel": self.parallel,
            "max_tokens": self.max_tokens,
        }
        return ServerOptions(**{key: value for key, value in chosen.items() if value is not None})
