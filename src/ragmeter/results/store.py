"""results.json on disk: written atomically (:func:`save_run`, :func:`write_atomic`), never over
something that is not a run unless asked (:func:`prepare_out_dir`), and read as ragmeter wrote it
or not at all (:func:`load_run`): types are checked strictly (no `"2"` for 2), NaN and Infinity
are refused, and the summary must agree with the cases, since reports and the gate read both.
The counts, means, failures and histograms of the summary are recomputed from the cases and a
difference is an error naming the field; the breakdown of unscored reasons and the health
verdict, which are texts built from the cases, are rebuilt from them (so a file written before
their wording changed still loads).
"""

from __future__ import annotations

import json
import math
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .._exceptions import ConfigError, ResultsError, describe_validation_error
from ..vocabulary import (
    METRICS,
    MetricName,
)
from ._case import CaseResult
from ._files import holds_run, os_reason, refuse_overwriting_run, write_atomic
from ._model import MetricSummary, RunResult, shown, version_problem
from .health import assess_run
from .summary import group_unscored, summarize_metric

RESULTS_FILE = "results.json"


PARTIAL_FILE = "results.partial.jsonl"
"""Beside results.json while a run goes on: each case as it finishes, one JSON line; removed
when the run ends, so one left behind is the work of a run whose process was killed."""


def prepare_out_dir(out: str | Path, *, overwrite: bool = False) -> Path:
    """The run directory `out` names (a directory, or its `results.json`), checked before any
    work starts: not an existing file of another kind, not holding a run unless `overwrite`,
    and writable. A killed run's journal alone (:data:`PARTIAL_FILE`, no results.json) does not
    stop the same command run again, which picks up what the judge's cache kept. Raises
    ConfigError saying how to fix it."""
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
        raise ConfigError(f"--out {path}: cannot write there ({os_reason(exc, path)})") from exc
    return path


def prepare_out_file(
    out: str | Path, option: str, example: str = "report", *, overwrite: bool = False
) -> Path:
    """The file `out` names, checked before any work as :func:`prepare_out_dir` checks a
    directory: not a directory itself, not a run or a baseline unless `overwrite`, and its
    directory can be created and written to. Raises ConfigError naming `option` and how to
    fix it."""
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
        reason = os_reason(exc, path.parent)
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
    problem = version_problem(data["schema_version"])
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
            got = f" (got {shown(first.get('input'))})"
        raise ResultsError(f"{path}: {describe_validation_error(exc)}{got}; {_EDITED}") from exc
    _reconcile(path, run)
    return run


_EDITED = "the file was edited or is corrupt: re-run to regenerate it"


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
    return f"the file says {shown(stored)} but its cases give {shown(expected)}"


__all__ = [
    "PARTIAL_FILE",
    "RESULTS_FILE",
    "holds_run",
    "load_run",
    "prepare_out_dir",
    "prepare_out_file",
    "read_json_file",
    "refuse_overwriting_run",
    "run_json",
    "save_run",
    "write_atomic",
]
