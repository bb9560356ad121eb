"""The judge interface shared by the local judge and LLM judges.

A judge receives one :class:`Sample` (what was asked, retrieved and answered) and returns,
per metric, a :class:`MetricResult`: a score in [0, 1] *or* an unscored reason, never both,
always with the evidence that led to it. Judges never touch files.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, Self, runtime_checkable

from .._util.sync import run_sync
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
class Judge(Protocol):
    """What a judge must provide: the contract a plugin judge is written against.

    A judge has a `name`, a `fingerprint()` and `async judge(sample, metrics)`. Subclass
    :class:`JudgeBase` to get the rest of what ragmeter uses (`warning`,
    `decision_thresholds`, `in_rounds`, `stats`, `estimate`, `aclose`) with defaults; a judge
    that only satisfies this protocol is adapted once, where it enters (`ragmeter.api`), and
    the optional members it has of its own are used.
    """

    name: str
    """Shown in reports; the registry name of built-in judges."""

    def fingerprint(self) -> JudgeFingerprint:
        """Identity of this judge configuration (changes whenever verdicts would)."""
        ...

    async def judge(
        self, sample: Sample, metrics: tuple[MetricName, ...] = METRICS
    ) -> dict[MetricName, MetricResult]:
        """Score `sample` on `metrics`. Must return one result per metric, never raise for a
        case-level failure (return unscored results with the reason instead). Edge cases
        (empty answer, refusal, out of scope, no ground truth, no contexts) are settled by
        `rules.precheck`, so that every judge gives them the same meaning."""
        ...


class JudgeBase(ABC):
    """Base class of judges, and everything ragmeter uses of one: implement `name`,
    `fingerprint` and `judge` (the :class:`Judge` protocol); the other members default to
    nothing to say, nothing spent and nothing to close. Behind `ragmeter.api` every judge is
    one of these."""

    name: str
    """Shown in reports; the registry name of built-in judges."""

    decision_thresholds: dict[MetricName, float] = {}  # noqa: RUF012 (read only)
    """Per metric, the score at or above which the judge means yes (calibration reads it;
    metrics missing use 0.5). None here: calibration uses 0.5."""

    @property
    def warning(self) -> str | None:
        """Warnings for the run's report, one per line; None when there are none."""
        return None

    @property
    def in_rounds(self) -> bool:
        """Whether the judge sends its calls in rounds (a batch API) once every case it holds
        waits on it: the runner then gives it every case at once, so one round carries all.
        False: calls go out as they come."""
        return False

    @abstractmethod
    def fingerprint(self) -> JudgeFingerprint:
        """Identity of this judge configuration (see :meth:`Judge.fingerprint`)."""

    @abstractmethod
    async def judge(
        self, sample: Sample, metrics: tuple[MetricName, ...] = METRICS
    ) -> dict[MetricName, MetricResult]:
        """Score `sample` on `metrics` (see :meth:`Judge.judge`)."""

    def stats(self) -> dict[str, Any]:
        """Counters so far (`calls`, `cached_calls`, `prompt_tokens`, `completion_tokens`,
        `cost`, ...) for the progress bar and the run's `judge_stats`; {}: none."""
        return {}

    def estimate(self, samples: Sequence[Sample], metrics: tuple[MetricName, ...] = METRICS) -> Any:
        """What judging `samples` would cost (`--dry-run`), or None when this judge makes no
        paid calls (the default). ragmeter first asks with no samples: None then means the
        pipeline is not run for an estimate at all."""
        return None

    async def aclose(self) -> None:  # noqa: B027 (a default, not abstract)
        """Release connections, caches, servers; called once when the run ends. Nothing to
        release here."""

    def close(self) -> None:
        """:meth:`aclose` for synchronous code, on the event loop `ragmeter.evaluate` ran the
        judge on: what a judge you built yourself and used with `evaluate` is closed with (or
        use it in a `with` block). A judge used from your own event loop: `await aclose()`."""
        run_sync(self.aclose())

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


if TYPE_CHECKING:

    def _conforms(judge: JudgeBase) -> Judge:
        return judge  # mypy checks that every JudgeBase satisfies the Judge protocol
