"""The built-in judges, registered as `ragmeter.judges` entry points: each a
:class:`~ragmeter.judges.options.JudgeKind` that declares its options model (beside the judge:
`judges/local/settings.py`, `judges/llm/options.py`, `judges/llama/options.py`) and builds the
judge from the checked options in one step.

Each kind imports its own options and judge inside its methods: a run with the local judge
does not load the LLM judge's client stack (`ragmeter.judges.llm`, about 0.15 s more here,
measured with `python -X importtime`) nor llama.cpp's bindings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from .._exceptions import ConfigError
from .options import JudgeKind

if TYPE_CHECKING:
    from .base import Judge
    from .llama.options import LlamaOptions
    from .llm.options import OpenAIOptions
    from .local import LocalSettings


class LocalKind(JudgeKind["LocalSettings"]):
    """The offline local judge (lexical, numeric and MiniLM evidence): its options are its
    thresholds (`LocalSettings`, part of its fingerprint). It makes no calls, so the LLM
    judges' settings are left aside (`--judge local` keeps a config written for another)."""

    name = "local"
    leaves_aside_other_judges = True

    def options(self) -> type[LocalSettings]:
        from .local import LocalSettings

        return LocalSettings

    def build(self, options: LocalSettings) -> Judge:
        from .local import LocalJudge

        return LocalJudge(options)


class OpenAIKind(JudgeKind["OpenAIOptions"]):
    """An LLM judge on any OpenAI-compatible chat endpoint."""

    name = "openai"

    def options(self) -> type[OpenAIOptions]:
        from .llm.options import OpenAIOptions

        return OpenAIOptions

    def build(self, options: OpenAIOptions) -> Judge:
        if not options.model:
            raise ConfigError(
                "the openai judge needs a model: pass --model NAME "
                "or set [judge] model in ragmeter.toml"
            )
        from .llm import build_llm_judge

        return build_llm_judge(options.judge_config(options.model))


class LlamaKind(JudgeKind["LlamaOptions"]):
    """The LLM judge on a llama.cpp server started in this process (the `llama` extra):
    a bundled Qwen2.5-Coder model (`model`) or a GGUF file (`model_path`)."""

    name = "llama"
    refused: ClassVar[Mapping[str, str]] = {
        "base_url": "the llama judge starts its own server: drop --base-url, or use --judge "
        "openai to reach a running one"
    }

    def options(self) -> type[LlamaOptions]:
        from .llama.options import LlamaOptions

        return LlamaOptions

    def build(self, options: LlamaOptions) -> Judge:
        from .llama import LlamaServer, resolve_model
        from .llama.judge import start_llama_judge

        # models are joined under $RAGMETER_CACHE_DIR, not --cache-dir: one copy however many
        # call caches a user keeps
        model = resolve_model(options.model, options.model_path)
        server = LlamaServer(model, options.server_options())
        return start_llama_judge(server, **options.config_fields())


local = LocalKind()
openai = OpenAIKind()
llama = LlamaKind()

BUILTIN: tuple[JudgeKind[Any], ...] = (local, openai, llama)
"""The built-in judge kinds, whose keys every judge knows by name (`other_judges_taking`)."""
