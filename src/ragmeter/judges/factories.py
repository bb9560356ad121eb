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
            "the openai judge needs a model: pass --model NAME or set [judge] model in ragmeter.toml"
        )
    from .llm import LLMJudgeConfig, build_llm_judge

    config = LLMJudgeConfig.from_settings(settings)
    return build_llm_judge(config)
