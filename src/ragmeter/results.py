"""The run record: what was asked, what was answered, every verdict, and the summary.

`results.json` is a versioned pydantic tree. Older schema versions are migrated on load;
newer ones are refused with a message that says to upgrade ragmeter.
"""

from __future__ import annotations

import json
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError, model_validator

from ._exceptions import ResultsError, describe_validation_error
from .judges.base import METRICS, JudgeFingerprint, Lang, MetricName, MetricResult, Turn

SCHEMA_VERSION = 1
RESULTS_FILE = "results.json"


class CaseResult(BaseModel):
    """One case: its inputs, the pipeline's output and one result per metric."""

    id: str
    """Case id from the eval set."""
    question: str
    """The question asked."""
    ground_truth: str = ""
    """Human reference answer."""
    category: str = "normal"
    """Case category."""
    lang: Lang = "en"
    """Language used to judge the case."""
    history: list[Turn] = Field(default_factory=list)
    """Earlier turns."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """The eval set's metadata for the case."""
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

    def score(self, metric: MetricName) -> float | None:
        """The case's score on `metric`, or None when unscored or absent."""
        result = self.metrics.get(metric)
        return None if result is None else result.score


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
    """How many cases went unscored for each reason."""
    n_failed: int = 0
    """Scored cases below the metric's failure threshold."""
    threshold: float | None = None
    """Failure threshold used for n_failed."""
    histogram: list[int] = Field(default_factory=list)
    """Counts of scores in ten equal bins over [0, 1]."""


class Finding(BaseModel):
    """One line of the diagnosis."""

    stage: str
    """`retrieval` or `generation`."""
    metric: MetricName
    """The metric that shows the problem."""
    severity: str
    """`fix-first`, `weak` or `ok`."""
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
    """Unscored results that share one cause, across metrics."""

    cause: str
    """The reason, with what varies per case (its id) taken out."""
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


class RunInfo(BaseModel):
    """What was run and how."""

    cases_file: str = ""
    """Eval set the run used."""
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
    cases: list[CaseResult]
    """Every case, never dropped."""

    @model_validator(mode="before")
    @classmethod
    def _check_version(cls, data: Any) -> Any:
        if isinstance(data, dict):
            version = data.get("schema_version", SCHEMA_VERSION)
            if isinstance(version, int) and version > SCHEMA_VERSION:
                raise ValueError(
                    f"schema_version {version} is newer than this ragmeter understands "
                    f"({SCHEMA_VERSION}); upgrade ragmeter"
                )
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


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` so a crash leaves either the old file or the new, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)  # mkstemp creates 0600; give the file normal permissions
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def prepare_out_dir(out: str | Path, *, overwrite: bool = False) -> Path:
    """The run directory `out` names (a directory, or its `results.json`), checked before any
    work starts: not an existing file of another kind, not holding a run unless `overwrite`,
    and writable. Raises ConfigError saying how to fix it."""
    from ._exceptions import ConfigError

    path = Path(out)
    if path.name == RESULTS_FILE and not path.is_dir():
        path = path.parent
    if path.exists() and not path.is_dir():
        raise ConfigError(f"--out {out}: is a file; give a directory for {RESULTS_FILE}")
    existing = path / RESULTS_FILE
    if existing.exists() and not overwrite:
        raise ConfigError(
            f"--out {path} already holds a run ({existing}); pass --overwrite to replace it, "
            "or choose another directory"
        )
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        raise ConfigError(f"--out {path}: cannot write there ({exc.strerror or exc})") from exc
    return path


def save_run(result: RunResult, out_dir: str | Path) -> Path:
    """Write `results.json` into `out_dir` atomically; return its path."""
    path = Path(out_dir) / RESULTS_FILE
    write_atomic(path, result.model_dump_json(indent=2))
    return path


def read_json_file(path: str | Path, default_name: str, missing: str) -> tuple[Path, Any]:
    """Parse the JSON file `path`, or `path/default_name` for a directory. A missing file
    raises ResultsError with the hint `missing`; an unreadable one names the file and why."""
    path = Path(path)
    if path.is_dir():
        path = path / default_name
    try:
        return path, json.loads(path.read_bytes())
    except FileNotFoundError:
        raise ResultsError(f"{path}: {missing}") from None
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ResultsError(f"{path}: not valid JSON ({exc}); re-run to regenerate it") from exc


def load_run(path: str | Path) -> RunResult:
    """Load a run from a results directory or a results.json file."""
    path, data = read_json_file(
        path, RESULTS_FILE, "no results file; run `ragmeter run ... --out DIR` first"
    )
    if not isinstance(data, dict) or "schema_version" not in data:
        raise ResultsError(f"{path}: missing schema_version: not a ragmeter results file")
    try:
        return RunResult.model_validate(data)
    except ValidationError as exc:
        raise ResultsError(f"{path}: {describe_validation_error(exc)}") from exc


__all__ = [
    "METRICS",
    "RESULTS_FILE",
    "SCHEMA_VERSION",
    "CalibrationNote",
    "CaseResult",
    "Diagnosis",
    "Finding",
    "MetricHealth",
    "MetricSummary",
    "RunHealth",
    "RunInfo",
    "RunResult",
    "RunSummary",
    "UnscoredGroup",
    "load_run",
    "prepare_out_dir",
    "save_run",
    "write_atomic",
]
