"""The LLM judge: the four metrics through any OpenAI-compatible chat endpoint."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from ..._exceptions import ConfigError, JudgeUnavailable
from ..._util.model_family import same_family
from ...clients.cache import LLMCache, default_cache_path
from ...clients.client import ChatClient
from ...clients.cost import CostTracker, Estimate, PriceTable, collecting_usage
from ...clients.retry import RetryPolicy, RetryStats
from ...clients.structured import StructuredCaller
from ...embeddings.similarity import EmbeddingClient, LocalSimilarity, Similarity
from ..base import (
    METRICS,
    JudgeBase,
    JudgeFingerprint,
    JudgeTraits,
    MetricName,
    MetricResult,
    Sample,
)
from .config import LLMJudgeConfig, Mode
from .context import JudgeContext
from .estimate import estimate_run
from .faithfulness import judge_faithfulness
from .precision import judge_context_precision
from .prompts import prompt_version
from .recall import judge_context_recall
from .relevancy import judge_answer_relevancy
from .reuse import NO_CALLS, ResultReuse, case_text, decided
from .verified_answer import verify_answer_relevancy
from .verified_chunks import verify_context_precision
from .verified_claims import verify_context_recall, verify_faithfulness
from .verifier import VERBATIM_OVERLAP, WINDOWS_PER_STATEMENT, verifier_prompt_version

MetricFn = Callable[[JudgeContext, Sample], Awaitable[MetricResult]]
METRIC_FUNCTIONS: dict[MetricName, MetricFn] = {
    "context_recall": judge_context_recall,
    "context_precision": judge_context_precision,
    "faithfulness": judge_faithfulness,
    "answer_relevancy": judge_answer_relevancy,
}
VERIFIER_FUNCTIONS: dict[MetricName, MetricFn] = {
    "context_recall": verify_context_recall,
    "context_precision": verify_context_precision,
    "faithfulness": verify_faithfulness,
    "answer_relevancy": verify_answer_relevancy,
}
"""Each metric from one-token graded verdicts (its `*_mode` set to ``verifier``)."""


class OpenAIJudge(JudgeBase):
    """Judges samples with an LLM behind any OpenAI-compatible endpoint.

    Never raises for a case: a failed metric is unscored with the reason. ``stats()`` gives
    calls, cached calls, tokens and cost so far for progress displays.
    """

    name = "openai"

    def __init__(self, config: LLMJudgeConfig) -> None:
        self.config = config
        policy = RetryPolicy(
            max_retries=config.max_retries,
            backoff_base=config.backoff_base,
            timeout=config.timeout,
            patience=config.patience,
        )
        path = (config.cache_path or default_cache_path()) if config.use_cache else None
        self.cache = LLMCache(path)
        prices = PriceTable.with_overrides(config.prices)
        self.tracker = CostTracker(config.model, prices, config.max_cost)
        if config.max_cost is not None and not self.tracker.priced:
            raise ConfigError(
                f"max_cost needs the price of model {config.model!r}: add it under `prices` "
                f"(dollars per million prompt and completion tokens)."
            )
        self.client = ChatClient(
            model=config.model,
            base_url=config.base_url,
            api_key_env=config.api_key_env,
            temperature=config.temperature,
            policy=policy,
            concurrency=config.concurrency,
            cache=self.cache,
            use_cache=config.use_cache,
            tracker=self.tracker,
            cache_scope=config.cache_scope,
            top_logprobs=config.top_logprobs,
            batch=config.batch,
            batch_poll_seconds=config.batch_poll_seconds,
        )
        self.client.prepare()
        self.caller = StructuredCaller(self.client, mode=config.output_mode)
        self.embedder: EmbeddingClient | None = None
        similarity: Similarity
        if config.embedding == "local":
            similarity = LocalSimilarity(self.cache if config.use_cache else None)
        else:
            self.embedder = EmbeddingClient(
                model=config.embedding.model,
                base_url=config.embedding.base_url,
                api_key_env=config.embedding.api_key_env,
                policy=policy,
                concurrency=config.concurrency,
                cache=self.cache,
                use_cache=config.use_cache,
            )
            similarity = self.embedder
        self.context = JudgeContext(
            self.caller,
            similarity,
            config.n_questions,
            graded=frozenset(config.graded),
            calibration=config.calibration,
        )
        self.functions = {
            m: (VERIFIER_FUNCTIONS if mode == "verifier" else METRIC_FUNCTIONS)[m]
            for m, mode in self.modes().items()
        }
        self._reuse: ResultReuse | None = None
        self.reused_results = 0
        """Metric results this run took from the cache instead of judging again."""

    def fingerprint(self) -> JudgeFingerprint:
        return JudgeFingerprint(
            kind="openai",
            model=self.config.model,
            prompt_version=prompt_version(),
            params={
                "temperature": self.config.temperature,
                "n_questions": self.config.n_questions,
                "embedding": self.context.similarity.name,
                **({"graded": sorted(self.config.graded)} if self.config.graded else {}),
                **self._verifier_params(),
            },
            traits=JudgeTraits(  # P(verdict) read from the reply that gave the verdict
                claim_strength="P(supported)",
                point_strength="P(supported)",
                chunk_strength="P(useful)",
                graded=sorted(self.config.graded),
            ),
        )

    def modes(self) -> dict[MetricName, Mode]:
        """Each metric's mode (`LLMJudgeConfig`'s `*_mode` settings)."""
        c = self.config
        return {
            "context_recall": c.context_recall_mode,
            "context_precision": c.context_precision_mode,
            "faithfulness": c.faithfulness_mode,
            "answer_relevancy": c.answer_relevancy_mode,
        }

    def _verifier_params(self) -> dict[str, object]:
        """The verifier-mode settings and prompts, only when a metric uses them."""
        modes = {f"{m}_mode": "verifier" for m, mode in self.modes().items() if mode == "verifier"}
        if not modes:
            return {}
        calibration = self.config.calibration
        return {
            **modes,
            "verifier_prompts": verifier_prompt_version(),
            "verifier_windows": [WINDOWS_PER_STATEMENT, VERBATIM_OVERLAP],
            **({"calibration": list(calibration)} if calibration is not None else {}),
        }

    @property
    def warning(self) -> str | None:
        """Warnings for the report, one per line: the judge model (or its family) also generated
        the answers;
        verdicts carry no probabilities although they were asked for; the endpoint reported
        impossible token usage or log-probabilities."""
        lines = []
        gen = self.config.generator_model
        if gen and gen.strip().lower() == self.config.model.strip().lower():
            lines.append(
                f"The judge model ({self.config.model}) also generated the answers: it tends to "
                f"rate its own answers favourably. Judge with a different model."
            )
        elif gen and same_family(gen, self.config.model):
            lines.append(
                f"The judge model ({self.config.model}) is of the same family as the model that "
                f"generated the answers ({gen}): models tend to rate their own family's answers "
                f"favourably. Judge with a model of another family."
            )
        if self.client.logprobs_note:
            lines.append(self.client.logprobs_note)
        if self.client.usage_note:
            lines.append(self.client.usage_note)
        if self.client.invalid_logprobs_note:
            lines.append(self.client.invalid_logprobs_note)
        return "\n".join(lines) or None

    async def judge(
        self, sample: Sample, metrics: tuple[MetricName, ...] = METRICS
    ) -> dict[MetricName, MetricResult]:
        case = case_text(sample) if self._results() is not None else ""
        reused = self._reused(sample, case, metrics)
        todo = tuple(m for m in metrics if m not in reused)
        if "answer_relevancy" in todo and self.config.answer_relevancy_mode == "json":
            # load a local model while the first calls are out
            self.context.similarity.prefetch(sample.lang)
        judged = await self._judge_metrics(sample, case, todo)
        results = {**reused, **dict(zip(todo, judged, strict=True))}
        return {m: results[m] for m in metrics}

    async def _judge_metrics(
        self, sample: Sample, case: str, todo: tuple[MetricName, ...]
    ) -> list[MetricResult]:
        """`todo` judged for `sample`, all at once."""
        return list(await asyncio.gather(*(self._one(sample, case, m) for m in todo)))

    def _conditions(self) -> dict[str, object]:
        """What calls are sent with now, beyond the configuration: both can change during a
        run (an endpoint's output mode is found out; refused log-probabilities are dropped)."""
        return {"mode": self.caller.mode, "top_logprobs": self.client.top_logprobs}

    def _results(self) -> ResultReuse | None:
        """Where this judge keeps its results (None without a cache), made on first use: the
        fingerprint it is keyed by may name what a subclass sets up after this class."""
        if self._reuse is None and self.config.use_cache:
            identity = {"judge": self.fingerprint().model_dump(mode="json")}
            self._reuse = ResultReuse(self.cache, {**identity, "endpoint": self.client.endpoint})
        return self._reuse

    def _reused(
        self, sample: Sample, case: str, metrics: tuple[MetricName, ...]
    ) -> dict[MetricName, MetricResult]:
        """The results of `metrics` for `sample` kept from an earlier run of this judge (see
        `reuse`), their calls counted as answered from the cache."""
        store = self._results()
        if store is None:
            return {}
        keys = {
            key: metric
            for conditions in (self._conditions(), NO_CALLS)
            for key, metric in zip(store.keys(case, metrics, conditions), metrics, strict=True)
        }
        out: dict[MetricName, MetricResult] = {}
        for key, kept in store.find(list(keys)).items():
            metric = keys[key]
            self.tracker.record(kept.usage, cached=True, metric=metric, case_id=sample.case_id)
            out[metric] = kept.result
        self.reused_results += len(out)
        return out

    async def _one(self, sample: Sample, case: str, metric: MetricName) -> MetricResult:
        """`metric` judged for `sample` (`case` is its text in the kept results' keys)."""
        before = self._conditions()
        try:
            with collecting_usage() as usage:
                result = await self.functions[metric](self.context, sample)
        except JudgeUnavailable:  # nothing else can be judged either: stop the run
            raise
        except Exception as exc:  # one metric's failure must not stop the case or the run
            return MetricResult.unscored(metric, f"judge error: {type(exc).__name__}: {exc}")
        after = self._conditions()
        store = self._results()
        if store is not None and self._keepable(result, before, after):
            (key,) = store.keys(case, (metric,), after if usage.calls else NO_CALLS)
            store.keep(key, result, usage)
        return result

    def _keepable(
        self, result: MetricResult, before: dict[str, object], after: dict[str, object]
    ) -> bool:
        """Whether a re-run may reuse `result`: the case decided it (`reuse.decided`); its
        calls went out under the conditions it is kept under (an output mode found out
        meanwhile is the one they used); the endpoint raised no warning a re-run must show
        again (refused or impossible log-probabilities, impossible token counts)."""
        return (
            decided(result)
            and before["mode"] in (None, after["mode"])
            and before["top_logprobs"] == after["top_logprobs"]
            and self.client.logprobs_note is None
            and self.client.usage_note is None
            and self.client.invalid_logprobs_note is None
        )

    @property
    def usage(self) -> CostTracker:
        """Tokens and cost so far, per metric and per case (calls made, cache hits apart)."""
        return self.tracker

    @property
    def in_rounds(self) -> bool:
        """With `batch`, calls go out in rounds of batch jobs."""
        return self.config.batch

    def stats(self) -> dict[str, Any]:
        """Counters for progress bars and the report."""
        spent, cached = self.tracker.spent, self.tracker.cached
        retried = [self.client.retry_stats]
        if self.config.batch:
            retried.append(self.client.batcher.retry_stats)
        if self.embedder is not None:
            retried.append(self.embedder.retry_stats)
        out: dict[str, Any] = {
            "calls": spent.calls,
            "cached_calls": cached.calls,
            "prompt_tokens": spent.prompt_tokens,
            "completion_tokens": spent.completion_tokens,
            "cached_prompt_tokens": cached.prompt_tokens,
            "cached_completion_tokens": cached.completion_tokens,
            "cost": self.tracker.cost,
            **RetryStats.total(retried),
            "rate_limited": self.client.limiter.rate_limited,
            "concurrency": self.client.limiter.limit,
            "output_mode": self.caller.mode,
        }
        if self.reused_results:
            out["reused_results"] = self.reused_results
        if self.config.batch:
            batch = self.client.batcher.stats
            out["batch_calls"] = self.tracker.batch.calls
            out["batch_files"] = batch.files
            out["batch_resumed"] = batch.resumed
            out["batch_saving"] = self.tracker.batch_saving
        if self.tracker.max_cost is not None:
            out["max_cost"] = self.tracker.max_cost
            out["budget_refused_calls"] = self.tracker.refused_calls
        if self.embedder is not None:
            out["embedding_calls"] = self.embedder.usage.calls
            out["embedding_tokens"] = self.embedder.usage.prompt_tokens
        return out

    def raw_output(self, raw_id: str) -> str | None:
        """The raw judge reply behind an id of ``Evidence.raw_output_ids``."""
        return self.cache.raw_output(raw_id)

    def estimate(
        self, samples: Sequence[Sample], metrics: tuple[MetricName, ...] = METRICS
    ) -> Estimate:
        """Calls, tokens and cost a run would spend, before any call (``--dry-run``)."""
        return estimate_run(
            samples,
            metrics,
            model=self.config.model,
            n_questions=self.config.n_questions,
            prices=self.tracker.prices,
            mode=self.caller.mode or "json_schema",
            verifier=tuple(m for m, mode in self.modes().items() if mode == "verifier"),
            batch_share=self.tracker.batch_share if self.config.batch else None,
        )

    async def aclose(self) -> None:
        """Close HTTP connections and the cache."""
        if self.config.batch:
            await self.client.batcher.aclose()
        await self.client.aclose()
        if self.embedder is not None:
            await self.embedder.aclose()
        if self._reuse is not None:
            self._reuse.flush()
        self.cache.close()


def build_llm_judge(config: LLMJudgeConfig) -> OpenAIJudge:
    """An :class:`OpenAIJudge` for ``config``; raises :class:`ConfigError` when it cannot work
    (no API key, a budget without a price)."""
    return OpenAIJudge(config)
