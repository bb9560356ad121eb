"""The llama judge: the LLM judge against a llama.cpp server this process starts and stops."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ..base import METRICS, JudgeFingerprint, MetricName, MetricResult, Sample
from ..llm.calibration import shipped_calibration
from ..llm.config import LLMJudgeConfig, Mode
from ..llm.judge import OpenAIJudge
from ..llm.verdict_queue import ACTIVE, VerdictQueue

if TYPE_CHECKING:
    from . import LlamaServer

LLAMA_TIMEOUT = 600.0
"""Seconds per call unless configured: a small model on two busy cores needs minutes for a
long prompt, and a timed-out call is sent again from the start."""


LLAMA_MODES: dict[str, Mode] = {
    "faithfulness_mode": "verifier",
    "context_recall_mode": "verifier",
    "context_precision_mode": "verifier",
    "answer_relevancy_mode": "verifier",
}
"""Every metric from one-token graded verdicts unless configured: JSON generations take tens
of seconds each on a CPU, a one-token verdict about a second once its evidence is cached
(bench/verdicts.py, README)."""
LLAMA_GRADED: tuple[MetricName, ...] = ("faithfulness", "context_precision")
"""Metrics scored from P(Yes) rather than 0/1 verdicts unless configured: on the demo set the
thresholded context precision was 1.00 on every case (every chunk at P >= 0.5), the graded one
ranks the chunks; context recall stays 0/1, as measured for the LLM judge (README). Answer
relevancy in verifier mode is P(Yes) itself."""


class LlamaJudge(OpenAIJudge):
    """:class:`OpenAIJudge` on a :class:`~ragmeter.judges.llama.LlamaServer` it owns: the server
    stops in :meth:`aclose`. The fingerprint names the model file by its sha256."""

    name = "llama"

    def __init__(self, config: LLMJudgeConfig, server: LlamaServer) -> None:
        super().__init__(config)
        self.server = server
        self._lanes = asyncio.Semaphore(max(1, server.options.parallel))

    async def judge(
        self, sample: Sample, metrics: tuple[MetricName, ...] = METRICS
    ) -> dict[MetricName, MetricResult]:
        """One case per server slot at a time: another case's calls in between would evict
        the evidence a case's calls share from the slot."""
        async with self._lanes:
            return await super().judge(sample, metrics)

    async def _judge_metrics(
        self, sample: Sample, case: str, todo: tuple[MetricName, ...]
    ) -> list[MetricResult]:
        """The case's verifier-mode metrics ask through one `VerdictQueue`: their one-token
        calls go out together, in the order of their prompts, so each evidence window is
        prefilled once for all of them."""
        modes = self.modes()
        queued = [m for m in todo if modes[m] == "verifier"]
        queue = VerdictQueue(self.client, sample.case_id, sample.repeat, len(queued))

        async def one(metric: MetricName) -> MetricResult:
            try:
                return await self._one(sample, case, metric)
            finally:
                if metric in queued:
                    queue.leave()

        token = ACTIVE.set(queue)
        try:
            return list(await asyncio.gather(*(one(m) for m in todo)))
        finally:
            ACTIVE.reset(token)

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
                **LLAMA_MODES,
                "graded": LLAMA_GRADED,
                "calibration": shipped_calibration(model.sha256),
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
