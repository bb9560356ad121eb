"""The run record as a versioned pydantic tree: the run's summary, diagnosis, health and
calibration notes around its cases (:mod:`._case`). Reading and writing it is
:mod:`ragmeter.results.store`'s job."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, field_validator, model_validator

from ..vocabulary import JudgeFingerprint, MetricName
from ._case import CaseResult, as_pair
from ._table import to_csv, to_pandas

SCHEMA_VERSION = 1


class MetricSummary(BaseModel):
    """Aggregate of one metric over a run (or one category)."""

    mean: float | None
    """Mean over scored cases; None when no case was scored."""
    ci: tuple[float, float] | None = None
    """95% bootstrap confidence interval of the mean."""
    n_scored: int
    """Cases with a score."""
    n_unscored: int
    """Cases without a score (see unscored_reasons)."""
    unscored_reasons: dict[str, int] = Field(default_factory=dict)
    """How many cases went unscored for each cause (the reason without the case id): the most
    common ones and every by-design one by name, the rarer ones counted together per code
    (`summary.MAX_REASONS`)."""
    n_failed: int = 0
    """Scored cases below the metric's failure threshold."""
    threshold: float | None = None
    """Failure threshold used for n_failed."""
    histogram: list[int] = Field(default_factory=list)
    """Counts of scores in ten equal bins over [0, 1]."""

    @field_validator("ci", mode="before")
    @classmethod
    def _ci_pair(cls, value: Any) -> Any:
        return as_pair(value)


class Finding(BaseModel):
    """One line of the diagnosis."""

    stage: str
    """`retrieval` or `generation`."""
    metric: MetricName
    """The metric that shows the problem."""
    severity: str
    """`fix-first`, `weak`, `ok`, `unknown` (no case scored) or `indicative` (under target,
    but its judge agrees with people near chance, so no stage is named on it alone)."""
    message: str
    """What is wrong, in plain words."""
    advice: str = ""
    """What to try."""


class Diagnosis(BaseModel):
    """Which pipeline stage to fix first, retrieval before generation."""

    fix_first: str | None
    """`retrieval`, `generation` or None when every metric passes."""
    headline: str
    """One sentence for the top of a report."""
    findings: list[Finding] = Field(default_factory=list)
    """One finding per metric, pipeline order."""


class UnscoredGroup(BaseModel):
    """Unscored results that share one cause, across metrics (or, for a code's rarer causes,
    that share the code: see `n_causes`)."""

    cause: str
    """The reason, with what varies per case (its id) taken out."""
    code: str = ""
    """The reason's code (`MetricResult.reason_code`, or read from its wording); empty in
    files from before codes, which are regrouped on load."""
    n_causes: int = 1
    """Distinct causes gathered here: 1, or more for the group that holds the rarer causes of
    its code, so that a run has a bounded number of groups."""
    metrics: list[MetricName]
    """Metrics left unscored by it, pipeline order."""
    n_cases: int
    """Cases it left unscored (on at least one metric)."""
    n_results: int
    """Case × metric results it left unscored."""
    example_ids: list[str] = Field(default_factory=list)
    """The first few cases it hit, in eval-set order."""
    by_design: bool = False
    """True for reasons that are part of the metric's definition (not applicable, refusal):
    not a failure of the pipeline or the judge."""


class RunSummary(BaseModel):
    """Scores of a whole run."""

    metrics: dict[MetricName, MetricSummary]
    """Per metric over all cases."""
    by_category: dict[str, dict[MetricName, MetricSummary]] = Field(default_factory=dict)
    """Per category, per metric."""
    n_cases: int
    """Cases in the run."""
    n_pipeline_errors: int = 0
    """Cases whose pipeline failed."""
    unscored_groups: list[UnscoredGroup] = Field(default_factory=list)
    """Unscored results grouped by cause, most cases first."""


class MetricHealth(BaseModel):
    """How completely one metric was measured."""

    metric: MetricName
    n_scored: int
    """Cases with a score."""
    n_applicable: int
    """Cases the metric applies to: scored, or unscored for a reason other than by design."""
    share: float | None
    """n_scored / n_applicable; None when the metric applies to no case."""
    ok: bool
    problem: str = ""
    """When not ok: the most common cause of its unscored cases, with examples."""


class RunHealth(BaseModel):
    """Whether a run's numbers can be trusted as a measurement, and the exit code to report."""

    ok: bool
    exit_code: int
    min_scored_share: float
    """The share of applicable cases each metric needed scored."""
    problems: list[str] = Field(default_factory=list)
    """One line per problem, worst first."""
    metrics: list[MetricHealth] = Field(default_factory=list)
    n_budget_unjudged: int = 0
    """Case × metric results left unscored because the budget was spent."""


class CalibrationNote(BaseModel):
    """How far the run's judge agrees with people on one metric (from `ragmeter calibrate`)."""

    metric: MetricName
    """The calibrated metric."""
    measure: str
    """Headline statistic: `Spearman` for graded labels, `AUROC` for binary ones."""
    value: float | None
    """Its value on the labelled cases."""
    ci: tuple[float, float] | None = None
    """Its 95% bootstrap interval."""
    n: int
    """Labelled cases it was measured on."""
    labels_file: str = ""
    """The labelled-case file."""
    reference: str = ""
    """Set when the figure is the judge's published measurement on a public labelled set
    (its name), not a calibration on the user's own labels."""

    @field_validator("ci", mode="before")
    @classmethod
    def _ci_pair(cls, value: Any) -> Any:
        return as_pair(value)


class RunInfo(BaseModel):
    """What was run and how."""

    cases_file: str = ""
    """Eval set the run used."""
    cases_digest: str | None = None
    """`sha256:<hex>` of the whole eval set's contents (ids, questions, references, turns,
    reference contexts; :mod:`ragmeter.cases.digest`), a shard's included: `gate`, `compare`
    and `merge` refuse runs whose digests differ. None in files from before it (unknown:
    their cases are then checked one by one)."""
    pipeline: str = ""
    """Description of the pipeline (adapter and target, demo variant...)."""
    started_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat())
    """When the run started (UTC, ISO 8601)."""
    seconds: float | None = None
    """Wall time of the run."""
    ragmeter_version: str = ""
    """Version that produced the file."""
    thresholds: dict[str, float] = Field(default_factory=dict)
    """Failure thresholds per metric."""
    targets: dict[str, float] = Field(default_factory=dict)
    """Diagnosis targets per metric (the defaults' overrides; empty in files from before)."""
    shard: str | None = None
    """`I/N` when the run judged one shard of the eval set (`run --shard`); None otherwise."""
    warnings: list[str] = Field(default_factory=list)
    """Things the reader should know (e.g. judge equals generator)."""
    judge_stats: dict[str, Any] = Field(default_factory=dict)
    """Calls, tokens and cost spent by the judge."""
    calibration: list[CalibrationNote] = Field(default_factory=list)
    """Stored agreement of this judge (same fingerprint) with human labels, else its published
    agreement on a public set (marked by `reference`); empty when the judge is uncalibrated."""


class RunResult(BaseModel):
    """A complete run record as stored in results.json."""

    schema_version: int = SCHEMA_VERSION
    """Version of this file format."""
    judge: JudgeFingerprint
    """Which judge produced the verdicts."""
    run: RunInfo = Field(default_factory=RunInfo)
    """How the run was made."""
    summary: RunSummary
    """Aggregates; reports read these and never recompute."""
    diagnosis: Diagnosis
    """Stage to fix first."""
    health: RunHealth | None = None
    """Whether every metric was measured on enough cases (None in files from before it)."""
    cases: Sequence[CaseResult]
    """Every case, never dropped."""

    @model_validator(mode="before")
    @classmethod
    def _check_version(cls, data: Any) -> Any:
        if isinstance(data, dict):
            problem = version_problem(data.get("schema_version", SCHEMA_VERSION))
            if problem:
                raise ValueError(f"schema_version {problem}")
        return data

    def summary_dict(self) -> dict[str, dict[str, Any]]:
        """The compact `{"faithfulness": {"mean", "ci", "n_scored", "n_unscored"}}` view."""
        return {
            m: {
                "mean": s.mean,
                "ci": list(s.ci) if s.ci else None,
                "n_scored": s.n_scored,
                "n_unscored": s.n_unscored,
            }
            for m, s in self.summary.metrics.items()
        }

    def to_pandas(self) -> Any:
        """A pandas DataFrame, one row per case: its id, category, lang, question,
        ground_truth, reference_contexts, contexts, answer, pipeline_error and metadata, then
        per metric its score (NaN when unscored) and `<metric>_unscored_reason`. Needs pandas
        (`pip install pandas`); ragmeter does not install it."""
        return to_pandas(self.cases, self.summary.metrics)

    def to_csv(self, path: str | Path, *, overwrite: bool = False) -> Path:
        """Write the table of :meth:`to_pandas` as CSV (no pandas needed; lists and objects as
        JSON text, an empty cell for a missing score or reason); return the path. A run or a
        baseline at `path` is replaced only with `overwrite`."""
        return to_csv(self.cases, self.summary.metrics, path, overwrite=overwrite)


def version_problem(version: Any) -> str | None:
    if isinstance(version, bool) or not isinstance(version, int):
        return (
            f"must be a whole number (this ragmeter writes {SCHEMA_VERSION}), got {shown(version)}"
        )
    if version > SCHEMA_VERSION:
        return (
            f"{version} is newer than this ragmeter understands ({SCHEMA_VERSION}); "
            "upgrade ragmeter"
        )
    if version < 1:
        return f"{version} was never written by ragmeter (versions start at 1)"
    return None


def shown(value: Any) -> str:
    """A value for an error message: its kind and a short repr."""
    kind = {str: "the string", bool: "the boolean", type(None): ""}.get(type(value), "")
    text = repr(value)
    text = text if len(text) <= 60 else text[:60] + "…"
    return f"{kind} {text}".strip()


__all__ = [
    "SCHEMA_VERSION",
    "CalibrationNote",
    "Diagnosis",
    "Finding",
    "MetricHealth",
    "MetricSummary",
    "RunHealth",
    "RunInfo",
    "RunResult",
    "RunSummary",
    "UnscoredGroup",
]
