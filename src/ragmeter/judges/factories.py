"""Factories of the built-in judges, registered as `ragmeter.judges` entry points."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._exceptions import ConfigError

if TYPE_CHECKING:
    from ..config import JudgeSettings
    from .base import Judge


def local(settings: JudgeSettings) -> Judge:
    """The offline local judge (lexical, numeric and MiniLM evidence)."""
    from .local import LocalJudge

    return LocalJudge()


def openai(settings: JudgeSettings) -> Judge:
    """An LLM judge on any OpenAI-compatible chat endpoint."""
    if not settings.model:
        raise ConfigError(
            "the openai judge needs a model: pass --model NAME "
            "or set [judge] model in ragmeter.toml"
        )
    from pathlib import Path

    from .llm import LLMJudgeConfig, build_llm_judge
    from .llm.config import EmbeddingEndpoint

    embedding: object = "local"
    if settings.embedding_model:
        embedding = EmbeddingEndpoint(
            model=settings.embedding_model,
            base_url=settings.embedding_base_url or settings.base_url,
            api_key_env=settings.api_key_env,
        )
    cache_dir = settings.cache_dir
    config = LLMJudgeConfig(
        model=settings.model,
        base_url=settings.base_url,
        api_key_env=settings.api_key_env,
        temperature=settings.temperature,
        timeout=settings.timeout,
        concurrency=settings.concurrency,
        cache_path=Path(cache_dir) / "llm.sqlite" if cache_dir else None,
        use_cache=cache_dir != "",  # an empty cache_dir is how --no-cache is spelled
        prices={
            model: {"prompt": prompt, "completion": completion}
            for model, (prompt, completion) in settings.prices.items()
        },
        max_cost=settings.max_cost,
        embedding=embedding,
        generator_model=settings.generator_model,
    )
    return build_llm_judge(config)
