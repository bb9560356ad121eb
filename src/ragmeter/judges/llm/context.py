"""What every LLM metric needs: structured calls with the case's prompts, and result helpers."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel

from ...clients.cost import Usage
from ...clients.structured import StructuredCaller, StructuredResult
from ...embeddings.similarity import Similarity
from ..base import Evidence, MetricName, MetricResult, Sample
from .prompts import load_prompt, render, sample_fields

M = TypeVar("M", bound=BaseModel)


def messages_for(sample: Sample, prompt: str, **extra: object) -> list[dict[str, str]]:
    """The messages of prompt ``prompt`` for ``sample``, in the sample's language."""
    return render(prompt, sample.lang, **sample_fields(sample), **extra)


@dataclass
class JudgeContext:
    """Shared by the four metric modules of one judge."""

    caller: StructuredCaller
    similarity: Similarity
    n_questions: int
    graded: frozenset[MetricName] = frozenset()
    """Metrics scored from verdict probabilities instead of 0/1 verdicts (when readable)."""
    calibration: tuple[float, float] | None = None
    """Platt scaling of the statements' P(supported) in verifier mode (`calibration`)."""

    async def ask(
        self,
        sample: Sample,
        metric: MetricName,
        prompt: str,
        model: type[M],
        *,
        check: Callable[[M], str | None] | None = None,
        fix: Callable[[M], None] | None = None,
        **extra: object,
    ) -> StructuredResult[M]:
        """One structured call; ``fix`` corrects a valid reply in place (indices counted from
        1) before ``check`` may reject it, so a fixable slip costs no repair call."""
        checked = check
        if fix is not None:

            def checked(value: M) -> str | None:
                fix(value)
                return check(value) if check is not None else None

        return await self.caller.ask(
            messages_for(sample, prompt, **extra),
            model,
            check=checked,
            repair_prompt=load_prompt("repair", sample.lang),
            metric=metric,
            case_id=sample.case_id,
            repeat=sample.repeat,
        )


class Spend:
    """Calls, tokens and raw-output ids behind one metric result."""

    def __init__(self) -> None:
        self.usage = Usage()
        self.raw_ids: list[str] = []

    def add(self, result: StructuredResult[Any]) -> None:
        self.usage.add(result.usage)
        self.raw_ids.extend(result.raw_ids)

    def scored(self, metric: MetricName, score: float, evidence: Evidence) -> MetricResult:
        evidence.raw_output_ids = list(self.raw_ids)
        return MetricResult(
            metric=metric,
            score=min(1.0, max(0.0, score)),
            evidence=evidence,
            calls=self.usage.calls,
            tokens=self.usage.tokens,
        )

    def settle(self, result: MetricResult) -> MetricResult:
        """`result` (an edge case's, from `rules.precheck`) with the calls spent reaching it."""
        result.evidence.raw_output_ids = list(self.raw_ids)
        result.calls = self.usage.calls
        result.tokens = self.usage.tokens
        return result

    def unscored(
        self, metric: MetricName, reason: str, evidence: Evidence | None = None
    ) -> MetricResult:
        evidence = evidence or Evidence()
        evidence.raw_output_ids = list(self.raw_ids)
        return MetricResult(
            metric=metric,
            unscored_reason=reason,
            evidence=evidence,
            calls=self.usage.calls,
            tokens=self.usage.tokens,
        )


def check_indices(kind: str, owner: str, indices: list[int], n: int) -> str | None:
    """A count/coverage problem with ``indices`` (expected 0..n-1 once each), else None."""
    if len(indices) != n:
        return f"judge returned {len(indices)} verdicts for {n} {owner}"
    if sorted(indices) != list(range(n)):
        return f"judge returned {kind} indices {sorted(indices)}, expected 0..{n - 1}"
    return None


def counted_from_one(indices: Sequence[int | None], n: int, *, likely: bool = False) -> bool:
    """Whether ``indices``, expected as the prompt's labels 0..n-1, were unambiguously counted
    from 1 instead: none is 0 and all lie in 1..n, and either one is n (out of range from 0)
    or ``likely`` (the same reply counted something else from 1)."""
    given = [i for i in indices if i is not None]
    if not given or 0 in given or not all(1 <= i <= n for i in given):
        return False
    return likely or n in given


def check_chunk_refs(refs: list[int | None], n_chunks: int) -> str | None:
    """A problem with chunk references (must be valid chunk indices), else None."""
    bad = sorted({r for r in refs if r is not None and not 0 <= r < n_chunks})
    if bad:
        return f"judge cited chunk indices {bad} but there are only {n_chunks} chunks"
    return None
