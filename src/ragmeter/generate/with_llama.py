"""`ragmeter generate --llama`: the LLM mode (:func:`ragmeter.generate.generate_llm`) with its
questions written by the llama judge's model, served offline by ragmeter's in-process
llama.cpp server (:class:`ragmeter.judges.llama.LlamaServer`), started for the run and stopped
after.

Generation is bounded as the judge's is: a reply stops at :data:`GENERATE_MAX_TOKENS` tokens
(a small model that loops is cut off, its reply then fails validation and the chunk is
skipped and counted), a call at :data:`ragmeter.judges.llama.judge.LLAMA_TIMEOUT` seconds.
Calls are cached under the model file's digest, not the server's random port, so a re-run
is answered from the cache.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..clients import ChatClient, LLMCache, RetryPolicy
from ..demo.corpus import Document
from ..judges.llama import LlamaServer, ServerOptions, resolve_model
from ..judges.llama.judge import LLAMA_TIMEOUT
from . import CHUNK_SIZE, Generated, generate_llm

GENERATE_MAX_TOKENS = 400
"""Longest reply in tokens: two questions with their ground truths, or a two-turn
conversation, take about 150-250."""


def generate_server(
    model: str | None = None, model_path: str | Path | None = None, threads: int | None = None
) -> LlamaServer:
    """The server of the bundled model `model` (default: the llama judge's) or the GGUF file
    `model_path`, not started. Raises :class:`ConfigError` saying what to install or fix."""
    options = ServerOptions(
        max_tokens=GENERATE_MAX_TOKENS, **({"threads": threads} if threads else {})
    )
    return LlamaServer(resolve_model(model, model_path), options)


def generate_with_llama(
    docs: Sequence[Document],
    server: LlamaServer,
    *,
    n: int = 40,
    seed: int = 0,
    chunk_size: int = CHUNK_SIZE,
    cache_path: Path | None = None,
    use_cache: bool = True,
) -> Generated:
    """Start `server`, generate as :func:`generate_llm` does through it, stop it (also when
    generation fails)."""
    base_url = server.start()
    try:
        client = ChatClient(
            model=server.model.model_id,
            base_url=base_url,
            api_key_env=None,
            cache=LLMCache(cache_path),
            use_cache=use_cache,
            cache_scope=f"llama:{server.model.sha256}",
            concurrency=server.options.parallel,
            policy=RetryPolicy(timeout=LLAMA_TIMEOUT),
        )
        client.prepare()
        return generate_llm(docs, client, n=n, seed=seed, chunk_size=chunk_size)
    finally:
        server.close()


__all__ = ["GENERATE_MAX_TOKENS", "generate_server", "generate_with_llama"]
