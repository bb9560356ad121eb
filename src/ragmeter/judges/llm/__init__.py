"""LLM judges: the four metrics through any OpenAI-compatible endpoint."""

from ..rules import average_precision
from .config import EmbeddingEndpoint, LLMJudgeConfig
from .judge import OpenAIJudge, build_llm_judge

__all__ = [
    "EmbeddingEndpoint",
    "LLMJudgeConfig",
    "OpenAIJudge",
    "average_precision",
    "build_llm_judge",
]
