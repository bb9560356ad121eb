"""One case of a run: the eval set's fields, what the pipeline gave, and every metric's
result (:class:`CaseResult`), with the outcome a case counts with (:class:`Outcome`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from pydantic import Field

from ..vocabulary import (
    CaseFields,
    CaseId,
    Lang,
    MetricName,
    MetricResult,
)

if TYPE_CHECKING:
    from ..cases import Case


def as_pair(value: Any) -> Any:
    """A JSON array of two numbers as a tuple, for strict validation of a `ci` read back."""
    return tuple(value) if isinstance(value, list) else value


class Outcome(NamedTuple):
    """A case's outcome on one metric as every summary, report, `compare` and the gate count
    it (:meth:`CaseResult.outcome`): scored with :meth:`CaseResult.aggregate_score`, failed
    when that is below the threshold, else unscored."""

    score: float | None
    """The score it counts with; None when unscored or not judged."""
    result: MetricResult | None
    """The first judgement (its evidence, its unscored reason); None when not judged."""
    failed: bool
    """Scored below the threshold asked about."""

    @property
    def unscored_reason(self) -> str | None:
        """Why it is unscored (`not judged` when it was not); None when scored."""
        if self.score is not None:
            return None
        return "not judged" if self.result is None else self.result.unscored_reason or "unscored"


class CaseResult(CaseFields, CaseId):
    """One case: the eval set's fields (:class:`~ragmeter.vocabulary.CaseFields`), the
    language it was judged in, the pipeline's output and one result per metric.

    `reference_contexts` is absent from files written before it was kept (read as empty)."""

    lang: Lang = "en"
    """Language used to judge the case."""
    contexts: list[str] = Field(default_factory=list)
    """Retrieved chunks, best first."""
    answer: str = ""
    """The pipeline's answer."""
    pipeline_error: str | None = None
    """Why the pipeline produced nothing for this case, if it failed."""
    pipeline_seconds: float | None = None
    """Time the pipeline took for this case."""
    metrics: dict[MetricName, MetricResult] = Field(default_factory=dict)
    """One result per metric, scored or unscored with a reason (the first judgement)."""
    repeats: dict[MetricName, list[float | None]] = Field(default_factory=dict)
    """Scores of every judgement when re-judged K times (`--repeats K`), first included."""

    @classmethod
    def start(
        cls,
        case: Case,
        *,
        lang: Lang,
        contexts: list[str],
        answer: str,
        error: str | None,
        seconds: float,
        pipeline_metadata: dict[str, Any] | None = None,
    ) -> CaseResult:
        """The result of `case` once the pipeline has run, before any judgement: judged in
        `lang` (:func:`~ragmeter.cases.case_lang`), with what the pipeline retrieved and
        answered or the `error` it failed with, in `seconds`; what the pipeline returned
        beside them (`pipeline_metadata`) is kept under the case's `metadata["pipeline"]`."""
        fields = case.case_fields()
        if pipeline_metadata:
            fields["metadata"] = {**fields["metadata"], "pipeline": pipeline_metadata}
        return cls(
            id=case.id,
            **fields,
            lang=lang,
            contexts=contexts,
            answer=answer,
            pipeline_error=error,
            pipeline_seconds=round(seconds, 4),
        )

    def score(self, metric: MetricName) -> float | None:
        """The case's score on `metric`, or None when unscored or absent."""
        result = self.metrics.get(metric)
        return None if result is None else result.score

    def aggregate_score(self, metric: MetricName) -> float | None:
        """The case's score as summaries, failure counts and the gate count it: the mean of
        its scored judgements when it was re-judged (`--repeats`), else its score."""
        scored = [s for s in self.repeats.get(metric, []) if s is not None]
        if len(scored) > 1:
            return sum(scored) / len(scored)
        return self.score(metric)

    def outcome(self, metric: MetricName, threshold: float | None = None) -> Outcome:
        """The case's :class:`Outcome` on `metric`: its :meth:`aggregate_score`, failed when
        below `threshold`, unscored when it has none (a first judgement left unscored counts
        as scored once two or more of its repeats were scored)."""
        score = self.aggregate_score(metric)
        failed = score is not None and threshold is not None and score < threshold
        return Outcome(score, self.metrics.get(metric), failed)


__all__ = ["CaseResult", "Outcome", "as_pair"]
