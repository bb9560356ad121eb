"""Configuration of the LLM judge (the ``[judge]`` keys of ``ragmeter.toml``)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ...clients.cost import Price
from ...clients.retry import DEFAULT_PATIENCE
from ...clients.structured import OutputMode
from ..base import MetricName

Mode = Literal["json", "verifier"]
"""How an LLM judge scores a metric: JSON generations, or one-token graded verdicts."""


class EmbeddingEndpoint(BaseModel):
    """An OpenAI-compatible ``/embeddings`` endpoint for answer relevancy."""

    model_config = ConfigDict(extra="forbid")

    model: str
    """Embedding model name, e.g. ``text-embedding-3-small``."""
    base_url: str | None = None
    """Endpoint base URL; None for api.openai.com."""
    api_key_env: str | None = "OPENAI_API_KEY"
    """Environment variable holding the key; None or empty for servers that need none."""


class LLMJudgeConfig(BaseModel):
    """Settings of :class:`OpenAIJudge`."""

    model_config = ConfigDict(extra="forbid")

    model: str
    """Judge model name as the endpoint knows it."""
    base_url: str | None = None
    """OpenAI-compatible base URL (``http://localhost:11434/v1`` for Ollama); None for OpenAI."""
    cache_scope: str | None = None
    """The endpoint's identity in the call cache instead of ``base_url`` (a local server on a
    random port)."""
    api_key_env: str | None = "OPENAI_API_KEY"
    """Environment variable holding the API key; local servers need none."""
    temperature: float = 0.0
    """Sampling temperature of judge calls."""
    timeout: float = 60.0
    """Seconds one call may take in total, reply included, before it is abandoned (and retried)."""
    concurrency: int = Field(default=8, ge=1)
    """Most calls in flight; lowered automatically while the endpoint answers HTTP 429."""
    max_retries: int = Field(default=4, ge=0)
    """Retries of a call after 429, 5xx, timeouts and connection errors."""
    backoff_base: float = 0.5
    """First retry delay in seconds (doubled each retry, with jitter) when no Retry-After."""
    patience: float = Field(default=DEFAULT_PATIENCE, gt=0, allow_inf_nan=False)
    """Seconds the judge waits while its endpoint answers only HTTP 429: a ``Retry-After``
    asking for more (or a run of them adding up to more) stops the run, with the reason."""
    n_questions: int = Field(default=3, ge=1)
    """Questions written back from the answer for answer relevancy."""
    cache_path: Path | None = None
    """SQLite cache file; None for ``$RAGMETER_CACHE_DIR/llm.sqlite`` or ``~/.cache/ragmeter``."""
    use_cache: bool = True
    """Read and write the cache; False re-asks everything and writes nothing to disk."""
    prices: dict[str, Price] = Field(default_factory=dict)
    """Prices per million tokens by model name, added to (and overriding) the examples."""
    max_cost: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    """Budget in dollars; once spent, remaining case-metrics are unscored."""
    embedding: Literal["local"] | EmbeddingEndpoint = "local"
    """``local`` (MiniLM for English, character bigrams for Chinese) or an endpoint."""
    generator_model: str | None = None
    """The model that wrote the answers, to warn when it is also the judge."""
    output_mode: OutputMode | None = None
    """Force a structured-output mode instead of detecting it."""
    top_logprobs: int = Field(default=5, ge=0, le=20)
    """Alternatives per output token to ask for, so each binary verdict carries P(verdict)
    from the same call (0: do not ask). Endpoints that refuse or ignore it give 0/1 verdicts,
    said once in the run's warnings."""
    graded: tuple[MetricName, ...] = ("faithfulness",)
    """Metrics scored from verdict probabilities (faithfulness = mean P(supported) over the
    claims, context recall = mean P(attributed), context precision = average precision
    weighted by P(useful)) instead of 0/1 verdicts, where the endpoint gives them; ``()`` for
    0/1 scores everywhere. The default follows bench/llm_agreement.py (see the README)."""
    faithfulness_mode: Mode = "json"
    """``json``: a call splits the answer into claims and one verifies them all, with reasons;
    ``verifier``: the claims split by rules (no call), each verified against its best two
    evidence windows, one output token (Yes/No) per call scored by its probability (fast on
    llama.cpp, whose prompt cache shares each window's prefill across the claims)."""
    context_recall_mode: Mode = "json"
    """The same choice for context recall: the reference split into points, each verified."""
    context_precision_mode: Mode = "json"
    """``json``: one call rates every chunk; ``verifier``: each chunk asked whether it helps
    answer the question, one Yes/No token scored by P(Yes)."""
    answer_relevancy_mode: Mode = "json"
    """``json``: questions written back from the answer, compared with the question by
    embeddings; ``verifier``: one Yes/No token, P(the answer addresses the question)."""
    calibration: tuple[float, float] | None = None
    """Platt scaling (a, b) of the statements' P(supported) in verifier mode (faithfulness,
    context recall): sigmoid(a·logit(P) + b); None for P as the model gives it. The llama
    judge ships one per bundled model (`calibration.json`)."""
    batch: bool = False
    """Send the calls through the endpoint's batch API in rounds (``ragmeter.clients.batch``),
    billed at batch prices."""
    batch_poll_seconds: float = Field(default=10.0, gt=0)
    """Seconds between two looks at a batch in progress."""
