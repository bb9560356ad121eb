"""Factories of the built-in judges, registered as `ragmeter.judges` entry points."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from .._exceptions import ConfigError, describe_validation_error

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
    from .llm import LLMJudgeConfig, build_llm_judge
    from .llm.config import EmbeddingEndpoint

    embedding: EmbeddingEndpoint | Literal["local"] = "local"
    if settings.embedding_model:
        embedding = EmbeddingEndpoint(
            model=settings.embedding_model,
            base_url=settings.embedding_base_url or settings.base_url,
            api_key_env=settings.api_key_env,
        )
    config = LLMJudgeConfig(
        model=settings.model,
        base_url=settings.base_url,
        api_key_env=settings.api_key_env,
        embedding=embedding,
        **_shared_llm_fields(settings),
    )
    return build_llm_judge(config)


def llama(settings: JudgeSettings) -> Judge:
    """The LLM judge on a llama.cpp server started in this process (the `llama` extra):
    a bundled Qwen2.5-Coder model (`model`) or a GGUF file (`model_path`)."""
    from pydantic import ValidationError

    from ..llama import LlamaServer, ServerOptions, resolve_model
    from .llm.llama import start_llama_judge

    if settings.base_url:
        raise ConfigError(
            "the llama judge starts its own server: drop --base-url, or use --judge openai "
            "to reach a running one"
        )
    # models are joined under $RAGMETER_CACHE_DIR, not --cache-dir: one copy however many
    # call caches a user keeps
    model = resolve_model(settings.model, settings.model_path)
    server_fields = {
        key: value
        for key, value in (
            ("threads", settings.threads),
            ("ctx_size", settings.ctx_size),
            ("parallel", settings.parallel),
        )
        if value is not None
    }
    try:
        options = ServerOptions.model_validate(server_fields)
    except ValidationError as exc:
        raise ConfigError(f"llama judge: {describe_validation_error(exc)}") from None
    fields = _shared_llm_fields(settings)
    for key in ("timeout", "concurrency"):
        if key not in settings.model_fields_set:
            del fields[key]  # not configured: the llama judge has defaults of its own
    return start_llama_judge(LlamaServer(model, options), **fields)


def _shared_llm_fields(settings: JudgeSettings) -> dict[str, Any]:
    """The `LLMJudgeConfig` fields every LLM judge takes from the settings as they are."""
    from pathlib import Path

    cache_dir = settings.cache_dir
    return {
        "temperature": settings.temperature,
        "cache_path": Path(cache_dir) / "llm.sqlite" if cache_dir else None,
        "use_cache": cache_dir != "",  # an empty cache_dir is how --no-cache is spelled
        "prices": {
            model: {"prompt": prompt, "completion": completion}
            for model, (prompt, completion) in settings.prices.items()
        },
        "max_cost": settings.max_cost,
        "generator_model": settings.generator_model,
        "timeout": settings.timeout,
        "concurrency": settings.concurrency,
        **{
            key: value
            for key in ("faithfulness_mode", "context_recall_mode")
            if (value := getattr(settings, key)) is not None
        },
        **({"graded": tuple(settings.graded)} if settings.graded is not None else {}),
    }
