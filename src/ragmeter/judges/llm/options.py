"""The settings of the LLM judges, as a user gives them (`[judge]` keys and `[judge.options]`
of ragmeter.toml, command-line options, keywords of :func:`ragmeter.judge`): what the openai
judge reads (:class:`OpenAIOptions`), with the keys it shares with the llama judge
(:class:`LLMOptions`, which ``judges.llama.options`` extends). Each is checked once, against
the model of the judge named (``judges.options``), then translated once into the
:class:`~ragmeter.judges.llm.config.LLMJudgeConfig` the judge is built from."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ...clients.retry import DEFAULT_PATIENCE
from ...clients.structured import OutputMode
from ...vocabulary import MetricName
from .config import EmbeddingEndpoint, LLMJudgeConfig, Mode


class LLMOptions(BaseModel):
    """What every LLM judge reads. A key left unset takes the judge's own default (for the
    modes, `graded`, and the llama judge's `timeout` and `concurrency`, None says so)."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = None
    """Judge model name as the endpoint knows it; for `llama`, a bundled model
    (`qwen2.5-coder-1.5b`, the default, or `qwen2.5-coder-0.5b`)."""
    concurrency: int | None = Field(default=8, ge=1)
    """Calls in flight to the judge at once (`--judge-concurrency`; lowered while the endpoint
    answers HTTP 429)."""
    timeout: float | None = 60.0
    """Seconds one judge call may take in total, reply included (then retried)."""
    patience: float = Field(default=DEFAULT_PATIENCE, gt=0, allow_inf_nan=False)
    """Seconds to wait while the endpoint answers only HTTP 429 (`--patience`): a
    `Retry-After` asking for more, or a run of them adding up to more, stops the run."""
    temperature: float = 0.0
    """Sampling temperature of the judge."""
    cache_dir: str | None = None
    """Where the call cache lives (default ~/.cache/ragmeter); "" is `--no-cache`."""
    max_cost: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    """Stop judging once this much has been spent (in the price table's currency): a finite
    amount, 0 or more."""
    prices: dict[str, tuple[float, float]] = Field(default_factory=dict)
    """Model → (price per 1M prompt tokens, per 1M completion tokens)."""
    generator_model: str | None = None
    """The pipeline's own model, to warn when the judge is the same model."""
    faithfulness_mode: Mode | None = None
    """`json` (claims verified in one call, with reasons) or `verifier` (one Yes/No token per
    claim and evidence window, scored by its probability); default: `json`, and for `llama`
    `verifier`."""
    context_recall_mode: Mode | None = None
    """The same choice for context recall."""
    context_precision_mode: Mode | None = None
    """The same choice for context precision (`verifier`: P(useful) per chunk)."""
    answer_relevancy_mode: Mode | None = None
    """The same choice for answer relevancy (`verifier`: P(the answer addresses the question),
    one call, in place of reverse questions and embeddings)."""
    graded: list[MetricName] | None = None
    """Metrics scored from verdict probabilities instead of 0/1 verdicts (default:
    faithfulness only, for `llama` faithfulness and context precision; `[]` for 0/1
    everywhere)."""
    n_questions: int = Field(default=3, ge=1)
    """Questions written back from the answer for answer relevancy (in the fingerprint)."""
    output_mode: OutputMode | None = None
    """Force a structured-output mode (`json_schema`, `json_object`, `prompt`) instead of
    detecting what the endpoint supports."""
    max_retries: int = Field(default=4, ge=0)
    """Retries of a call after 429, 5xx, timeouts and connection errors."""
    backoff_base: float = 0.5
    """First retry delay in seconds (doubled each retry) when the endpoint sends no
    Retry-After."""

    def config_fields(self) -> dict[str, Any]:
        """The :class:`LLMJudgeConfig` fields these settings give, every LLM judge alike; a
        key whose value is None is left to the judge's own default."""
        cache_dir = self.cache_dir
        fields: dict[str, Any] = {
            "temperature": self.temperature,
            "cache_path": Path(cache_dir) / "llm.sqlite" if cache_dir else None,
            "use_cache": cache_dir != "",  # an empty cache_dir is how --no-cache is spelled
            "prices": {
                model: {"prompt": prompt, "completion": completion}
                for model, (prompt, completion) in self.prices.items()
            },
            "max_cost": self.max_cost,
            "generator_model": self.generator_model,
            "patience": self.patience,
            "n_questions": self.n_questions,
            "output_mode": self.output_mode,
            "max_retries": self.max_retries,
            "backoff_base": self.backoff_base,
        }
        chosen = {
            "timeout": self.timeout,
            "concurrency": self.concurrency,
            "faithfulness_mode": self.faithfulness_mode,
            "context_recall_mode": self.context_recall_mode,
            "context_precision_mode": self.context_precision_mode,
            "answer_relevancy_mode": self.answer_relevancy_mode,
            "graded": tuple(self.graded) if self.graded is not None else None,
        }
        return {**fields, **{key: value for key, value in chosen.items() if value is not None}}


class OpenAIOptions(LLMOptions):
    """What the openai judge reads: an OpenAI-compatible endpoint, its key, and optionally an
    `/embeddings` endpoint and the batch API."""

    base_url: str | None = None
    """Endpoint, e.g. http://localhost:11434/v1 for Ollama; None for api.openai.com."""
    api_key_env: str = "OPENAI_API_KEY"
    """Name of the environment variable holding the API key (never the key itself)."""
    embedding_model: str | None = None
    """Embedding model of an OpenAI-compatible /embeddings endpoint for answer relevancy
    (default: local MiniLM)."""
    embedding_base_url: str | None = None
    """That endpoint, when it is not `base_url`."""
    batch: bool = False
    """Send the calls through the endpoint's batch API (`/v1/files`, `/v1/batches`) in rounds,
    billed at batch prices (`--batch`); resumable after a kill."""
    batch_poll_seconds: float = Field(default=10.0, gt=0)
    """`--batch`: seconds between two looks at a batch in progress."""

    def judge_config(self, model: str) -> LLMJudgeConfig:
        """The one translation: the :class:`LLMJudgeConfig` of the judge these settings
        describe, for `model` (the caller has made sure there is one)."""
        embedding: EmbeddingEndpoint | Literal["local"] = "local"
        if self.embedding_model:
            embedding = EmbeddingEndpoint(
                model=self.embedding_model,
                base_url=self.embedding_base_url or self.base_url,
                api_key_env=self.api_key_env,
            )
        return LLMJudgeConfig(
            model=model,
            base_url=self.base_url,
            api_key_env=self.api_key_env,
            embedding=embedding,
            batch=self.batch,
            batch_poll_seconds=self.batch_poll_seconds,
            **self.config_fields(),
        )
