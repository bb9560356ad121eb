"""A run as a table: one row per case, one column per metric score and its unscored reason.

:meth:`RunResult.to_csv` needs nothing beyond the standard library; :meth:`RunResult.to_pandas`
needs pandas, which ragmeter does not depend on.
"""

from __future__ import annotations

import csv
import importlib
import io
import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ..vocabulary import METRICS, MetricName
from ._case import CaseResult
from ._files import refuse_overwriting_run, write_atomic

CASE_COLUMNS = (
    "id",
    "category",
    "lang",
    "question",
    "ground_truth",
    "reference_contexts",
    "contexts",
    "answer",
    "pipeline_error",
    "metadata",
)
"""The columns before the metrics', in this order."""

UNSCORED_SUFFIX = "_unscored_reason"
"""`faithfulness_unscored_reason`: why the case has no faithfulness score (empty when scored)."""

PANDAS_MISSING = (
    "to_pandas() needs pandas, which ragmeter does not install: pip install pandas "
    "(or use to_csv(path), which needs nothing more)"
)


Cases = Sequence[CaseResult]
"""A run's cases (`RunResult.cases`)."""


def run_metrics(cases: Cases, summarized: Iterable[MetricName]) -> tuple[MetricName, ...]:
    """The metrics the run computed (its `summarized` ones and any a case has), in pipeline
    order (retrieval first)."""
    computed = set(summarized)
    for case in cases:
        computed.update(case.metrics)
    return tuple(m for m in METRICS if m in computed)


def columns(metrics: Iterable[MetricName]) -> list[str]:
    """Column names of :func:`rows`, in order."""
    names = list(CASE_COLUMNS)
    for metric in metrics:
        names += [metric, metric + UNSCORED_SUFFIX]
    return names


def rows(cases: Cases, metrics: Sequence[MetricName]) -> list[dict[str, Any]]:
    """One dict per case, in eval-set order: the case's fields, then per metric its score
    (None when unscored) and its unscored reason (None when scored). A re-judged case has the
    score it counts with in the summary (`CaseResult.outcome`)."""
    table = []
    for case in cases:
        row: dict[str, Any] = {
            "id": case.id,
            "category": case.category,
            "lang": case.lang,
            "question": case.question,
            "ground_truth": case.ground_truth,
            "reference_contexts": list(case.reference_contexts),
            "contexts": list(case.contexts),
            "answer": case.answer,
            "pipeline_error": case.pipeline_error,
            "metadata": dict(case.metadata),
        }
        for metric in metrics:
            outcome = case.outcome(metric)
            row[metric] = outcome.score
            row[metric + UNSCORED_SUFFIX] = (
                "not computed" if outcome.result is None else outcome.unscored_reason
            )
        table.append(row)
    return table


def to_csv_text(cases: Cases, summarized: Iterable[MetricName]) -> str:
    """The table as CSV: lists and objects as JSON text (as ragmeter reads CSV cells), an
    empty cell for a missing score or reason. A text cell a spreadsheet would take for a
    formula (it starts with =, +, -, @, a tab or a carriage return, and is not a plain number)
    starts with a single quote instead, as OWASP advises against CSV injection."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    metrics = run_metrics(cases, summarized)
    names = columns(metrics)
    writer.writerow(names)
    for row in rows(cases, metrics):
        writer.writerow([_cell(row[name]) for name in names])
    return buffer.getvalue()


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False, default=str)
    if isinstance(value, float):
        return repr(value)
    return neutralized(str(value))


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def neutralized(text: str) -> str:
    """`text`, with a single quote before it when a spreadsheet would run it as a formula."""
    if text.startswith(_FORMULA_START) and not _PLAIN_NUMBER.fullmatch(text):
        return "'" + text
    return text


def to_csv(
    cases: Cases, summarized: Iterable[MetricName], path: str | Path, *, overwrite: bool = False
) -> Path:
    """Write the table to `path` (UTF-8, written atomically); return the path. A run or a
    baseline at `path` is replaced only with `overwrite` (ConfigError otherwise)."""
    path = Path(path).expanduser()
    refuse_overwriting_run(path, "to_csv:", overwrite=overwrite)
    write_atomic(path, to_csv_text(cases, summarized))
    return path


def to_pandas(cases: Cases, summarized: Iterable[MetricName]) -> Any:
    """The table as a pandas DataFrame (scores as floats, NaN when unscored)."""
    try:
        pd = importlib.import_module("pandas")  # optional: not a dependency, typed as Any
    except ImportError as exc:
        raise ImportError(PANDAS_MISSING) from exc
    metrics = run_metrics(cases, summarized)
    frame = pd.DataFrame(rows(cases, metrics), columns=columns(metrics))
    for metric in metrics:
        frame[metric] = frame[metric].astype("float64")
    return frame
