"""The judge interface shared by the local judge and LLM judges.

A judge receives one :class:`Sample` (what was asked, retrieved and answered) and returns,
per metric, a :class:`MetricResult`: a score in [0, 1] *or* an unscored reason, never both,
always with the evidence that led to it. Judges never touch files.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from ..vocabulary import (  # noqa: F401  (re-exported for judge authors)
    GENERATION_METRICS,
    METRICS,
    RETRIEVAL_METRICS,
    ChunkVerdict,
    ClaimLabel,
    ClaimVerdict,
    Evidence,
    JudgeFingerprint,
    JudgeTraits,
    Lang,
    MetricName,
    MetricResult,
    PointVerdict,
    ReasonCode,
    Sample,
    Span,
    Turn,
)


@runtime_checkable
class MinimalJudge(Protocol):
    """The three members a judge must have (all a plugin judge needed before the full
    :class:`Judge` contract was declared); :func:`ensure_judge` adapts one to :class:`Judge`."""

    name: str

    def fingerprint(self) -> JudgeFingerprint: ...

    async def judge(
        self, sample: Sample, metrics: tuple[MetricName, ...] = METRICS
    ) -> dict[MetricName, MetricResult]: ...


@runtime_checkable
class Judge(Protocol):
    """Everything ragmeter uses of a judge; built-ins and plugins implement it alike.

    Subclass :class:`JudgeBase` to get no-op defaults for the optional members (`warning`,
    `decision_thresholds`, `in_rounds`, `stats`, `estimate`, `aclose`). A judge with only `name`,
    `fingerprint` and `judge` (:class:`MinimalJudge`) still works: ragmeter adapts it with
    :func:`ensure_judge` where judges come in.
    """

    name: str
    """Shown in reports; the registry name of built-in judges."""

    @property
    def warning(self) -> str | None:
        """Warnings for the run's report, one per line; None when there are none."""
        ...

    @property
    def decision_thresholds(self) -> dict[MetricName, float]:
        """Per metric, the score at or above which the judge means yes (calibration reads
        it; metrics missing use 0.5)."""
        ...

    @property
    def in_rounds(self) -> bool:
        """Whether the judge sends its calls in rounds (a batch API) once every case it holds
        waits on it: the runner then gives it every case at once, so one round carries all."""
        ...

    def fingerprint(self) -> JudgeFingerprint:
        """Identity of this judge configuration."""
        ...

    async def judge(
        self, sample: Sample, metrics: tuple[MetricName, ...] = METRICS
    ) -> dict[MetricName, MetricResult]:
        """Score `sample` on `metrics`. Must return one result per metric, never raise for a
        case-level failure (return unscored results with the reason instead). Edge cases
        (empty answer, refusal, out of scope, no ground truth, no contexts) are settled by
        `rules.precheck`, so that every judge gives them the same meaning."""
        ...

    def stats(self) -> dict[str, Any]:
        """Counters so far (`calls`, `cached_calls`, `prompt_tokens`, `completion_tokens`,
        `cost`, ...) for the progress bar and the run's `judge_stats`; {} when there are none."""
        ...

    def estimate(self, samples: Sequence[Sample], metrics: tuple[MetricName, ...] = METRICS) -> Any:
        """What judging `samples` would cost (`--dry-run`), or None when this judge makes no
        paid calls. ragmeter first asks with no samples: None then means the pipeline is not
        run for an estimate at all."""
        ...

    async def aclose(self) -> None:
        """Release connections, caches, servers; called once when the run ends."""
        ...


class JudgeBase(ABC):
    """Base class of judges: implement `name`, `fingerprint` and `judge`; the optional members
    of :class:`Judge` default to nothing to say, nothing spent and nothing to close."""

    name: str

    decision_thresholds: dict[MetricName, float] = {}  # noqa: RUF012 (read only)
    """No metric-specific decision thresholds: calibration uses 0.5."""

    @property
    def warning(self) -> str | None:
        """No warnings."""
        return None

    @property
    def in_rounds(self) -> bool:
        """Calls go out as they come."""
        return False

    @abstractmethod
    def fingerprint(self) -> JudgeFingerprint:
        """Identity of this judge configuration."""

    @abstractmethod
    async def judge(
        self, sample: Sample, metrics: tuple[MetricName, ...] = METRICS
    ) -> dict[MetricName, MetricResult]:
        """Score `sample` on `metrics` (see :meth:`Judge.judge`)."""

    def stats(self) -> dict[str, Any]:
        """No counters."""
        return {}

    def estimate(self, samples: Sequence[Sample], metrics: tuple[MetricName, ...] = METRICS) -> Any:
        """None: this judge makes no paid calls."""
        return None

    async def aclose(self) -> None:  # noqa: B027 (a default, not abstract)
        """Nothing to release."""


class _AdaptedJudge(JudgeBase):
    """A :class:`MinimalJudge` seen as a full :class:`Judge`: the optional members it has are
    used (as ragmeter used them before the contract was declared), the rest default."""

    def __init__(self, inner: MinimalJudge) -> None:
        self.inner = inner
        name = getattr(inner, "name", None)  # nothing read it before: it may be missing
        self.name = name if isinstance(name, str) else type(inner).__name__

    @property
    def warning(self) -> str | None:
        value = getattr(self.inner, "warning", None)
        return value if isinstance(value, str) and value else None

    @property
    def decision_thresholds(self) -> dict[MetricName, float]:  # type: ignore[override]
        value = getattr(self.inner, "decision_thresholds", None)
        return value if isinstance(value, dict) else {}

    def fingerprint(self) -> JudgeFingerprint:
        return self.inner.fingerprint()

    async def judge(
        self, sample: Sample, metrics: tuple[MetricName, ...] = METRICS
    ) -> dict[MetricName, MetricResult]:
        return await self.inner.judge(sample, metrics)

    def stats(self) -> dict[str, Any]:
        stats = getattr(self.inner, "stats", None)
        return stats() if callable(stats) else {}

    def estimate(self, samples: Sequence[Sample], metrics: tuple[MetricName, ...] = METRICS) -> Any:
        estimate = getattr(self.inner, "estimate", None)
        return estimate(samples, metrics) if callable(estimate) else None

    async def aclose(self) -> None:
        close = getattr(self.inner, "aclose", None)
        if callable(close):
            await close()


def ensure_judge(judge: Judge | MinimalJudge) -> Judge:
    """`judge` with the whole :class:`Judge` contract: itself when it subclasses
    :class:`JudgeBase` or has every member, else wrapped so the members it lacks default
    (a plugin judge written against the three-member protocol keeps working)."""
    if isinstance(judge, JudgeBase | Judge):
        return judge
    return _AdaptedJudge(judge)
