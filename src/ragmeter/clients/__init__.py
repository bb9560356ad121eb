"""The transport to an OpenAI-compatible endpoint: the chat client, structured output, the call
cache, cost and budget, retries and rate limits. Judges build on it; it knows nothing of metrics.
(Embedding similarity for answer relevancy lives in :mod:`ragmeter.embeddings.similarity`.)"""

from .cache import LLMCache, cache_key, default_cache_path
from .client import ChatClient, ChatResponse, resolve_api_key
from .cost import (
    EXAMPLE_PRICES,
    CostTracker,
    Estimate,
    MetricEstimate,
    Price,
    PriceTable,
    Usage,
    count_tokens,
)
from .errors import CostLimitReached, LLMCallError, ResponseFormatRejected
from .jsonblock import extract_json
from .retry import AdaptiveLimiter, RetryPolicy, parse_retry_after
from .structured import (
    OutputMode,
    StructuredCaller,
    StructuredResult,
    forget_output_modes,
    strict_schema,
)

__all__ = [
    "EXAMPLE_PRICES",
    "AdaptiveLimiter",
    "ChatClient",
    "ChatResponse",
    "CostLimitReached",
    "CostTracker",
    "Estimate",
    "LLMCache",
    "LLMCallError",
    "MetricEstimate",
    "OutputMode",
    "Price",
    "PriceTable",
    "ResponseFormatRejected",
    "RetryPolicy",
    "StructuredCaller",
    "StructuredResult",
    "Usage",
    "cache_key",
    "count_tokens",
    "default_cache_path",
    "extract_json",
    "forget_output_modes",
    "parse_retry_after",
    "resolve_api_key",
    "strict_schema",
]
