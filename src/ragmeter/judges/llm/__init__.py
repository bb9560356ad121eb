"""LLM judges: the four metrics through any OpenAI-compatible endpoint."""

from .config import EmbeddingEndpoint, LLMJudgeConfig
from .judge import OpenAIJudge, build_llm_judge
from .precision import average_precision

__all__ = [
    "EmbeddingEndpoint",
    "LLMJudgeConfig",
    "OpenAIJudge",
    "average_precision",
    "build_llm_judge",
]
