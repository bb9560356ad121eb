"""The llama judge: the LLM judge against a llama.cpp server this process starts and stops."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from ..base import JudgeFingerprint
from .config import LLMJudgeConfig
from .judge import OpenAIJudge

if TYPE_CHECKING:
    from ...llama import LlamaServer

LLAMA_TIMEOUT = 600.0
"""Seconds per call unless configured: a small model on two busy cores needs minutes for a
long prompt, and a timed-out call is sent again from the start."""


LLAMA_FAITHFULNESS_MODE: Literal["json", "verifier"] = "verifier"
"""Faithfulness mode unless configured: one Yes/No token per claim and evidence window, scored
by P(Yes), whose evidence prefill llama.cpp's prompt cache shares across a case's claims;
measured beside the JSON mode with the 1.5B model in bench/verifier_mode.py (README); scored
graded like every LLM judge's faithfulness (`LLMJudgeConfig.graded`)."""


class LlamaJudge(OpenAIJudge):
    """:class:`OpenAIJudge` on a :class:`~ragmeter.llama.LlamaServer` it owns: the server stops
    in :meth:`aclose`. The fingerprint names the model file by its sha256."""

    name = "llama"

    def __init__(self, config: LLMJudgeConfig, server: LlamaServer) -> None:
        super().__init__(config)
        self.server = server

    def fingerprint(self) -> JudgeFingerprint:
        base = super().fingerprint()
        params = {**base.params, "model_sha256": self.server.model.sha256}
        return base.model_copy(update={"kind": "llama", "params": params})

    async def aclose(self) -> None:
        """Close connections and the cache, then stop the server."""
        try:
            await super().aclose()
        finally:
            self.server.close()


def start_llama_judge(server: LlamaServer, **config: object) -> LlamaJudge:
    """Start ``server`` and build the judge on it; ``config`` holds the other
    :class:`LLMJudgeConfig` fields (cache, concurrency, timeout…). The server is stopped again
    if the judge cannot be built."""
    base_url = server.start()
    model = server.model
    try:
        settings = LLMJudgeConfig.model_validate(
            {
                "timeout": LLAMA_TIMEOUT,
                "concurrency": server.options.parallel,
                "faithfulness_mode": LLAMA_FAITHFULNESS_MODE,
                **config,
                "model": model.model_id,
                "base_url": base_url,
                "cache_scope": f"llama:{model.sha256}",
                "api_key_env": None,
            }
        )
        return LlamaJudge(settings, server)
    except BaseException:
        server.close()
        raise
