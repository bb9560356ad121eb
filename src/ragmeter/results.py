"""The run record: what was asked, what was answered, every verdict, and the summary.

`results.json` is a versioned pydantic tree. Older schema versions are migrated on load;
newer ones are refused with a message that says to upgrade ragmeter.

A file is read as ragmeter wrote it or not at all (:func:`load_run`): types are checked strictly
(no `"2"` for 2), NaN and Infinity are refused, and the summary must agree with the cases, since
reports and the gate read both. The counts, means, failures and histograms of the summary are
recomputed from the cases and a difference is an error naming the field; the breakdown of
unscored reasons and the health verdict, which are texts built from the cases, are rebuilt from
them (so a file written before their wording changed still loads).
"""

from __future__ import annotations

import json
import math
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from ._exceptions import OutputError, ResultsError, describe_validation_error
from .vocabulary import (
    METRICS,
    CaseFields,
    CaseId,
    JudgeFingerprint,
    Lang,
    MetricName,
    MetricResult,
)

if TYPE_CHECKING:
    from .cases import Case

SCHEMA_VERSION = 1
RESULTS_FILE = "results.json"
PARTIAL_FILE = "results.partial.jsonl"
"""Beside results.json while a run goes on: each case as it finishes, one JSON line; removed
when the run ends, so one left behind is the work of a run whose process was killed."""


def _pair(value: Any) -> Any:
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
        return _pair(value)


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
        return _pair(value)


class RunInfo(BaseModel):
    """What was run and how."""

    cases_file: str = ""
    """Eval set the run used."""
    cases_digest: str | None = None
    """`sha256:<hex>` of the whole eval set's contents (ids, questions, references, turns,
    reference contexts; :mod:`ragmeter.eval_digest`), a shard's included: `gate`, `compare`
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
            problem = _version_problem(data.get("schema_version", SCHEMA_VERSION))
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
        from .table import to_pandas

        return to_pandas(self)

    def to_csv(self, path: str | Path, *, overwrite: bool = False) -> Path:
        """Write the table of :meth:`to_pandas` as CSV (no pandas needed; lists and objects as
        JSON text, an empty cell for a missing score or reason); return the path. A run or a
        baseline at `path` is replaced only with `overwrite`."""
        from .table import to_csv

        return to_csv(self, path, overwrite=overwrite)


def write_atomic(path: Path, text: str | Iterable[str]) -> None:
    """Write `text` (or its pieces, written one after another so the whole never has to be
    in memory) to `path` so a crash leaves either the old file or the new, never half.

    Raises OutputError (an OSError) naming the file and why when it cannot be written: a
    directory at `path`, a file where a parent directory belongs, no permission, a full disk.
    """
    path = Path(path)
    if path.is_dir():
        raise OutputError(f"{path}: is a directory; give a file name (e.g. {path / 'report'})")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {_os_reason(exc, path.parent)}") from None
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)  # mkstemp creates 0600; give the file normal permissions
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            if isinstance(text, str):
                handle.write(text)
            else:
                handle.writelines(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            kept = "the previous file is unchanged" if path.exists() else "nothing written"
            raise OutputError(f"cannot write {path}: {_os_reason(exc, path)}; {kept}") from None
        raise


def _os_reason(exc: OSError, path: Path) -> str:
    """Why an OS call failed, in a few words: its strerror, and the path it names if another.

    A parent that is a file gives ENOTDIR or EEXIST (mkdir): said as such."""
    if isinstance(exc, (NotADirectoryError, FileExistsError)):
        blocker = next((p for p in (path, *path.parents) if p.is_file()), None)
        if blocker is not None:
            return f"{blocker} is a file, not a directory"
    reason = exc.strerror or str(exc) or type(exc).__name__
    named = Path(exc.filename) if isinstance(exc.filename, str) else None
    ours = named is None or path in (named, named.parent) or named == path.parent
    return reason if ours else f"{reason} ({named})"


def prepare_out_dir(out: str | Path, *, overwrite: bool = False) -> Path:
    """The run directory `out` names (a directory, or its `results.json`), checked before any
    work starts: not an existing file of another kind, not holding a run unless `overwrite`,
    and writable. A killed run's journal alone (:data:`PARTIAL_FILE`, no results.json) does not
    stop the same command run again, which picks up what the judge's cache kept. Raises
    ConfigError saying how to fix it."""
    from ._exceptions import ConfigError

    path = Path(out)
    if path.name == RESULTS_FILE and not path.is_dir():
        path = path.parent
    if path.exists() and not path.is_dir():
        raise ConfigError(f"--out {out}: is a file; give a directory for {RESULTS_FILE}")
    existing, partial = path / RESULTS_FILE, path / PARTIAL_FILE
    if existing.exists() and not overwrite:
        if partial.exists():
            raise ConfigError(
                f"--out {path} holds the cases of a run whose process was killed ({partial}) "
                f"beside an earlier run ({existing}); move them away or pass --overwrite to "
                "replace them, or choose another directory"
            )
        raise ConfigError(
            f"--out {path} already holds a run ({existing}); pass --overwrite to replace it, "
            "or choose another directory"
        )
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        raise ConfigError(f"--out {path}: cannot write there ({_os_reason(exc, path)})") from exc
    return path


_RUN_HEAD = re.compile(r'\s*\{\s*"schema_version"\s*:\s*\d+\s*,\s*"judge"\s*:\s*\{')
_RUN_KEYS = frozenset({"schema_version", "judge", "summary", "cases"})
_PARSED_WHOLE = 64 << 20


def holds_run(path: str | Path) -> bool:
    """Whether `path` is a file holding a ragmeter run (a results.json, or a baseline, which
    is one), told by its content, whatever its name: a JSON object with `schema_version`,
    `judge`, `summary` and `cases`. A file over 64 MB is told by how ragmeter writes one
    (`schema_version` then `judge` first), without reading it whole."""
    path = Path(path)
    try:
        if not path.is_file():
            return False
        with path.open("rb") as handle:
            if path.stat().st_size > _PARSED_WHOLE:
                head = handle.read(4096).decode("utf-8", "replace")
                return _RUN_HEAD.match(head) is not None
            data = json.loads(handle.read())
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.keys() >= _RUN_KEYS


def refuse_overwriting_run(path: str | Path, option: str, *, overwrite: bool = False) -> None:
    """Raise ConfigError when `path` holds a ragmeter run (or a baseline) and `overwrite` is
    not given: no command replaces one unless told."""
    from ._exceptions import ConfigError

    if not overwrite and holds_run(path):
        raise ConfigError(
            f"{option} {path} holds a ragmeter run (a results.json or a baseline); pass "
            "--overwrite to replace it, or choose another file"
        )


def prepare_out_file(
    out: str | Path, option: str, example: str = "report", *, overwrite: bool = False
) -> Path:
    """The file `out` names, checked before any work as :func:`prepare_out_dir` checks a
    directory: not a directory itself, not a run or a baseline unless `overwrite`, and its
    directory can be created and written to. Raises ConfigError naming `option` and how to
    fix it."""
    from ._exceptions import ConfigError

    path = Path(out)
    if path.is_dir():
        raise ConfigError(
            f"{option} {out}: is a directory; give a file to write, e.g. {path / example}"
        )
    refuse_overwriting_run(path, option, overwrite=overwrite)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path.parent):
            pass
    except OSError as exc:
        reason = _os_reason(exc, path.parent)
        raise ConfigError(f"{option} {out}: cannot write there ({reason})") from None
    return path


def save_run(result: RunResult, out_dir: str | Path) -> Path:
    """Write `results.json` into `out_dir` atomically; return its path."""
    path = Path(out_dir) / RESULTS_FILE
    write_atomic(path, run_json(result))
    return path


def run_json(result: RunResult) -> Iterator[str]:
    """`result` as `model_dump_json(indent=2)` writes it, in pieces of one case each: a run of
    50,000 cases is hundreds of MB as one string, which would double the peak memory of
    writing it."""
    empty = result.model_copy(update={"cases": []}).model_dump_json(indent=2)
    head, tail = empty.rsplit('"cases": []', 1)
    if not result.cases:
        yield empty
        return
    yield head + '"cases": ['
    for index, case in enumerate(result.cases):
        text = case.model_dump_json(indent=2).replace("\n", "\n    ")
        yield ("\n    " if index == 0 else ",\n    ") + text
    yield "\n  ]" + tail


def read_json_file(
    path: str | Path,
    default_name: str,
    missing: str,
    *,
    parse_float: Callable[[str], Any] | None = None,
    parse_constant: Callable[[str], Any] | None = None,
) -> tuple[Path, Any]:
    """Parse the JSON file `path`, or `path/default_name` for a directory (`parse_float` and
    `parse_constant` as `json.loads` takes them). A missing file raises ResultsError with the
    hint `missing`; an unreadable one names the file and why."""
    path = Path(path)
    if path.is_dir():
        path = path / default_name
    try:
        raw = path.read_bytes()
        text = raw.decode(json.detect_encoding(raw), "surrogatepass")  # as json.loads does
        del raw  # not held while parsing: a large run's file is hundreds of MB
        return path, json.loads(text, parse_float=parse_float, parse_constant=parse_constant)
    except FileNotFoundError:
        raise ResultsError(f"{path}: {missing}") from None
    except (OSError, ValueError) as exc:  # ValueError: bad JSON or UTF-8, a 5,000-digit number
        raise ResultsError(f"{path}: not valid JSON ({exc}); re-run to regenerate it") from exc


def load_run(path: str | Path) -> RunResult:
    """Load a run from a results directory or a results.json file.

    Raises ResultsError naming the file and the field when the file is not one ragmeter
    wrote: a type other than the one written (strict: no `"2"` for 2), NaN or Infinity, or a
    summary that disagrees with the cases (see the module docstring)."""
    non_finite = False

    def number(text: str) -> float:  # NaN, Infinity, or a number too large for a float
        nonlocal non_finite
        value = float(text)
        non_finite = non_finite or not math.isfinite(value)
        return value

    path, data = read_json_file(
        path,
        RESULTS_FILE,
        "no results file; run `ragmeter run ... --out DIR` first",
        parse_float=number,
        parse_constant=number,
    )
    if (partial := path.with_name(PARTIAL_FILE)).exists():
        # os._exit in a pipeline ends a --overwrite run with exit 0 and the old file in place.
        raise ResultsError(
            f"{path}: a later run into {path.parent} is going on or was killed before it "
            f"finished ({partial.name} holds its cases), so this file may be stale; run again, "
            f"or delete {partial} to read it as it is"
        )
    if not isinstance(data, dict) or "schema_version" not in data:
        raise ResultsError(f"{path}: missing schema_version: not a ragmeter results file")
    problem = _version_problem(data["schema_version"])
    if problem:
        raise ResultsError(f"{path}: field 'schema_version': {problem}")
    if non_finite:  # seen while parsing; only then is the tree walked to name the field
        _refuse_non_finite(path, data)
    try:
        run = RunResult.model_validate(data, strict=True)
    except ValidationError as exc:
        first = exc.errors()[0]
        got = ""
        if first["type"] != "missing" and not isinstance(first.get("input"), dict | list):
            got = f" (got {_shown(first.get('input'))})"
        raise ResultsError(f"{path}: {describe_validation_error(exc)}{got}; {_EDITED}") from exc
    _reconcile(path, run)
    return run


_EDITED = "the file was edited or is corrupt: re-run to regenerate it"


def _version_problem(version: Any) -> str | None:
    if isinstance(version, bool) or not isinstance(version, int):
        return (
            f"must be a whole number (this ragmeter writes {SCHEMA_VERSION}), got {_shown(version)}"
        )
    if version > SCHEMA_VERSION:
        return (
            f"{version} is newer than this ragmeter understands ({SCHEMA_VERSION}); "
            "upgrade ragmeter"
        )
    if version < 1:
        return f"{version} was never written by ragmeter (versions start at 1)"
    return None


def _shown(value: Any) -> str:
    """A value for an error message: its kind and a short repr."""
    kind = {str: "the string", bool: "the boolean", type(None): ""}.get(type(value), "")
    text = repr(value)
    text = text if len(text) <= 60 else text[:60] + "…"
    return f"{kind} {text}".strip()


def _refuse_non_finite(path: Path, data: object) -> None:
    """Python's JSON reader accepts NaN and Infinity, which ragmeter never writes (it writes
    null): refuse them, naming the field."""
    stack: list[tuple[object, tuple[object, ...]]] = [(data, ())]
    while stack:
        value, where = stack.pop()
        if isinstance(value, float) and not math.isfinite(value):
            field = ".".join(str(p) for p in where)
            name = "NaN" if value != value else "Infinity" if value > 0 else "-Infinity"
            raise ResultsError(
                f"{path}: field '{field}': {name} is not a number ragmeter writes; {_EDITED}"
            )
        if isinstance(value, dict):
            stack.extend((v, (*where, k)) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, (*where, i)) for i, v in enumerate(value))


def _reconcile(path: Path, run: RunResult) -> None:
    """Check that the summary agrees with the cases (a difference raises ResultsError naming
    the field) and rebuild the unscored breakdowns and the health verdict from the cases."""
    from .health import assess_run
    from .summary import group_unscored

    def refuse(field: str, message: str) -> ResultsError:
        return ResultsError(f"{path}: field '{field}': {message}; {_EDITED}")

    cases = run.cases
    seen: dict[str, int] = {}
    for i, case in enumerate(cases):
        if case.id in seen:
            raise refuse(f"cases.{i}.id", f"duplicate id '{case.id}' (also cases.{seen[case.id]})")
        seen[case.id] = i
        for metric, result in case.metrics.items():
            if result.metric != metric:
                raise refuse(
                    f"cases.{i}.metrics.{metric}.metric",
                    f"the result under '{metric}' says it is '{result.metric}'",
                )
        for metric, scores in case.repeats.items():
            if not scores or metric not in case.metrics or scores[0] != case.score(metric):
                raise refuse(
                    f"cases.{i}.repeats.{metric}",
                    "the first judgement must be the case's score on the metric",
                )
            if any(s is not None and not 0.0 <= s <= 1.0 for s in scores):
                raise refuse(f"cases.{i}.repeats.{metric}", "scores must lie in [0, 1]")

    summary = run.summary
    metrics = tuple(m for m in METRICS if m in summary.metrics)
    for case in cases:
        for metric in case.metrics:
            if metric not in summary.metrics:
                raise refuse(
                    "summary.metrics",
                    f"no summary of '{metric}', though case '{case.id}' was judged on it",
                )
    if summary.n_cases != len(cases):
        raise refuse("summary.n_cases", _says(summary.n_cases, len(cases)))
    n_errors = sum(c.pipeline_error is not None for c in cases)
    if summary.n_pipeline_errors != n_errors:
        raise refuse("summary.n_pipeline_errors", _says(summary.n_pipeline_errors, n_errors))
    thresholds = run.run.thresholds
    for metric in metrics:
        _reconcile_metric(
            refuse, f"summary.metrics.{metric}", summary.metrics[metric], cases, metric, thresholds
        )
    by_category: dict[str, list[CaseResult]] = {}
    for case in cases:
        by_category.setdefault(case.category, []).append(case)
    if set(summary.by_category) != set(by_category):
        stored, actual = sorted(summary.by_category), sorted(by_category)
        raise refuse("summary.by_category", f"{_says(stored, actual)} as categories")
    for category, per_metric in summary.by_category.items():
        where = f"summary.by_category.{category}"
        if set(per_metric) != set(metrics):
            raise refuse(where, f"{_says(sorted(per_metric), sorted(metrics))} as metrics")
        for metric in metrics:
            _reconcile_metric(
                refuse,
                f"{where}.{metric}",
                per_metric[metric],
                by_category[category],
                metric,
                thresholds,
            )
    # Texts built from the per-case reasons: rebuilt, so only the cases are trusted.
    summary.unscored_groups = group_unscored(cases, metrics)
    if run.health is not None:
        share = run.health.min_scored_share
        if not 0.0 < share <= 1.0:
            raise refuse("health.min_scored_share", f"{share} is not a share in (0, 1]")
        run.health = assess_run(summary, metrics, min_scored_share=share)


def _reconcile_metric(
    refuse: Callable[[str, str], ResultsError],
    where: str,
    stored: MetricSummary,
    cases: Sequence[CaseResult],
    metric: MetricName,
    thresholds: dict[str, float],
) -> None:
    from .summary import summarize_metric

    if metric in thresholds and stored.threshold != thresholds[metric]:
        raise refuse(
            f"{where}.threshold",
            f"{stored.threshold} but run.thresholds.{metric} is {thresholds[metric]}",
        )
    expected = summarize_metric(cases, metric, stored.threshold, with_ci=False)
    differs = _difference(stored, expected)
    rejudged = any(len(c.repeats.get(metric, [])) > 1 for c in cases)
    if differs and rejudged:
        # Written before re-judged cases counted with the mean of their judgements: accepted
        # when it agrees with that older rule, then rebuilt under the current one.
        legacy = summarize_metric(cases, metric, stored.threshold, with_ci=False, first_only=True)
        if _difference(stored, legacy) is None:
            rebuilt = summarize_metric(cases, metric, stored.threshold)
            for name in type(rebuilt).model_fields:
                setattr(stored, name, getattr(rebuilt, name))
            return
    if differs:
        found, wanted = getattr(stored, differs), getattr(expected, differs)
        raise refuse(f"{where}.{differs}", _says(found, wanted))
    if stored.ci is not None:
        scores = [s for c in cases if (s := c.aggregate_score(metric)) is not None]
        low, high = stored.ci
        if len(scores) < 2:
            raise refuse(
                f"{where}.ci", f"an interval needs two scores, the cases have {len(scores)}"
            )
        if not min(scores) - 1e-9 <= low <= high <= max(scores) + 1e-9:
            raise refuse(
                f"{where}.ci",
                f"[{low}, {high}] is not an interval of a mean of scores from {min(scores)} "
                f"to {max(scores)}",
            )
    stored.unscored_reasons = expected.unscored_reasons


def _difference(stored: MetricSummary, expected: MetricSummary) -> str | None:
    """The first of the counts, histogram and mean where a stored metric summary differs from
    `expected`, or None when it agrees."""
    for name in ("n_scored", "n_unscored", "n_failed", "histogram"):
        if getattr(stored, name) != getattr(expected, name):
            return name
    if stored.mean is None or expected.mean is None:
        return None if stored.mean is expected.mean else "mean"
    same = math.isclose(stored.mean, expected.mean, rel_tol=1e-9, abs_tol=1e-12)
    return None if same else "mean"


def _says(stored: Any, expected: Any) -> str:
    return f"the file says {_shown(stored)} but its cases give {_shown(expected)}"


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
    "Outcome",
    "RunHealth",
    "RunInfo",
    "RunResult",
    "RunSummary",
    "UnscoredGroup",
    "holds_run",
    "load_run",
    "prepare_out_dir",
    "prepare_out_file",
    "refuse_overwriting_run",
    "save_run",
    "write_atomic",
]
