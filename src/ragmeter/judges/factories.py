"""Factories of the built-in judges, registered as `ragmeter.judges` entry points.

Each factory imports its own judge inside it: a run with the local judge does not load the LLM
judge's client stack (`ragmeter.judges.llm`, about 0.15 s more here, measured with `python -X
importtime`) nor llama.cpp's bindings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from .._exceptions import ConfigError, describe_validation_error

if TYPE_CHECKING:
    from pydantic import ValidationError

    from ..config import JudgeSettings
    from .base import Judge


LLM_OPTIONS = ("n_questions", "output_mode", "max_retries", "backoff_base")
"""`[judge.options]` of the openai and llama judges: the `LLMJudgeConfig` fields with no
`[judge]` key of their own (`n_questions` enters the fingerprint; the others change how calls
are made, not what is asked)."""

LLAMA_SERVER_OPTIONS = ("max_tokens",)
"""`[judge.options]` of the llama judge's server (`ServerOptions`) besides `LLM_OPTIONS`."""


def local(settings: JudgeSettings) -> Judge:
    """The offline local judge (lexical, numeric and MiniLM evidence); `[judge.options]` are
    its thresholds (`LocalSettings`, part of its fingerprint)."""
    from pydantic import ValidationError

    from .local import LocalJudge, LocalSettings

    _refuse_batch(settings)
    _refuse_unknown_options(settings, "local", tuple(LocalSettings.model_fields))
    try:
        thresholds = LocalSettings.model_validate(settings.options)
    except ValidationError as exc:
        raise _option_error(exc, "local") from None
    return LocalJudge(thresholds)


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
    _refuse_unknown_options(settings, "openai", LLM_OPTIONS)
    config = LLMJudgeConfig(
        model=settings.model,
        base_url=settings.base_url,
        api_key_env=settings.api_key_env,
        embedding=embedding,
        batch=settings.batch,
        batch_poll_seconds=settings.batch_poll_seconds,
        **_shared_llm_fields(settings),
        **_llm_options(settings, "openai"),
    )
    return build_llm_judge(config)


def llama(settings: JudgeSettings) -> Judge:
    """The LLM judge on a llama.cpp server started in this process (the `llama` extra):
    a bundled Qwen2.5-Coder model (`model`) or a GGUF file (`model_path`)."""
    from pydantic import ValidationError

    from .llama import LlamaServer, ServerOptions, resolve_model
    from .llama.judge import start_llama_judge

    _refuse_batch(settings)
    if settings.base_url:
        raise ConfigError(
            "the llama judge starts its own server: drop --base-url, or use --judge openai "
            "to reach a running one"
        )
    # models are joined under $RAGMETER_CACHE_DIR, not --cache-dir: one copy however many
    # call caches a user keeps
    _refuse_unknown_options(settings, "llama", (*LLM_OPTIONS, *LLAMA_SERVER_OPTIONS))
    llm_options = _llm_options(settings, "llama")
    server_options = {k: v for k, v in settings.options.items() if k in LLAMA_SERVER_OPTIONS}
    try:
        ServerOptions.model_validate(server_options)
    except ValidationError as exc:
        raise _option_error(exc, "llama") from None
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
        options = ServerOptions.model_validate({**server_fields, **server_options})
    except ValidationError as exc:
        raise ConfigError(f"llama judge: {describe_validation_error(exc)}") from None
    fields = _shared_llm_fields(settings)
    for key in ("timeout", "concurrency"):
        if key not in settings.model_fields_set:
            del fields[key]  # not configured: the llama judge has defaults of its own
    return start_llama_judge(LlamaServer(model, options), **fields, **llm_options)


def _refuse_batch(settings: JudgeSettings) -> None:
    """`batch` is for the openai judge only (see `JudgeSettings.batch_problem`)."""
    if problem := settings.batch_problem():
        raise ConfigError(problem)


def _refuse_unknown_options(settings: JudgeSettings, kind: str, known: tuple[str, ...]) -> None:
    """A `[judge.options]` key the built-in judge `kind` does not take is an error naming it."""
    import difflib

    for key in settings.options:
        if key not in known:
            close = difflib.get_close_matches(key, known, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise ConfigError(
                f"[judge.options] '{key}': not an option of the {kind} judge{hint}; "
                f"it takes {', '.join(known)}"
            )


def _llm_options(settings: JudgeSettings, kind: str) -> dict[str, Any]:
    """The `LLM_OPTIONS` of `[judge.options]`, checked as `LLMJudgeConfig` checks them."""
    from pydantic import ValidationError

    from .llm import LLMJudgeConfig

    chosen = {key: value for key, value in settings.options.items() if key in LLM_OPTIONS}
    try:
        LLMJudgeConfig.model_validate({"model": "-", **chosen})
    except ValidationError as exc:
        raise _option_error(exc, kind) from None
    return chosen


def _option_error(exc: ValidationError, kind: str) -> ConfigError:
    first = exc.errors()[0]
    key = ".".join(str(part) for part in first["loc"])
    message = first["msg"].removeprefix("Value error, ")  # a check across options
    message = message[:1].lower() + message[1:]
    where = f"[judge.options] '{key}'" if key else "[judge.options]"
    return ConfigError(f"{where}: {message} (the {kind} judge)")


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
        "patience": settings.patience,
        "concurrency": settings.concurrency,
        **{
            key: value
            for key in (
                "faithfulness_mode",
                "context_recall_mode",
                "context_precision_mode",
                "answer_relevancy_mode",
            )
            if (value := getattr(settings, key)) is not None
        },
        **({"graded": tuple(settings.graded)} if settings.graded is not None else {}),
    }
