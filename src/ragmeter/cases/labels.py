"""Human-labelled cases: what people said about a judged case, per metric.

A labelled-case file is JSONL (or JSON, YAML, CSV) where each record is a case with its
contexts and answer plus ``labels``: per metric a human value in [0, 1], binary (0/1) or graded
and normalised (a 1–4 rating of 3 is ``0.67``), and optional ``label_meta`` (raters, scale)::

    {"id": "q1", "question": "...", "contexts": ["..."], "answer": "...",
     "labels": {"faithfulness": 1}, "label_meta": {"raters": 3, "scale": "1-4"}}

For a prediction-powered estimate the labels refer to cases of a run: then only ``id`` and
``labels`` are read (:func:`load_case_labels`).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .._exceptions import CaseFileError
from ..vocabulary import METRICS, CaseFields, CaseId, Lang, MetricName
from ._case import Case
from ._records import (
    CASE_ALIASES,
    Record,
    normalize_common_fields,
    read_records,
    record_fields,
    validate_record,
)

LabelKind = Literal["binary", "graded"]

_JSON_COLUMNS = (
    "history",
    "reference_contexts",
    "contexts",
    "retrieved_contexts",
    "labels",
    "label_meta",
    "metadata",
)


class LabelledCase(CaseFields, CaseId):
    """One case as judged by people: the case's fields
    (:class:`~ragmeter.vocabulary.CaseFields`), the answer, and a human value per metric."""

    model_config = ConfigDict(extra="forbid")

    id: str
    """Unique id within the file (the record number when absent)."""
    lang: Lang | None = None
    """`en` or `zh`; detected when absent (:func:`~ragmeter.cases.case_lang`)."""
    contexts: list[str] = Field(default_factory=list)
    """The chunks the answer was written from, best first."""
    answer: str
    """The answer people judged."""
    labels: dict[MetricName, float]
    """Per metric, the human value in [0, 1]: 0/1 for binary labels, normalised if graded."""
    label_meta: dict[str, Any] = Field(default_factory=dict)
    """How the labels were made (raters, original scale, source label)."""

    def to_case(self) -> Case:
        """The eval case with its precomputed contexts and answer."""
        return Case(
            id=self.id,
            **self.case_fields(),
            lang=self.lang,
            contexts=self.contexts,
            answer=self.answer,
        )


class CaseLabels(BaseModel):
    """Human labels for a case of an existing run, found by its id."""

    model_config = ConfigDict(extra="ignore")

    id: str
    labels: dict[MetricName, float]
    label_meta: dict[str, Any] = Field(default_factory=dict)


def load_labelled_cases(path: str | Path) -> list[LabelledCase]:
    """Load a labelled-case file; :class:`CaseFileError` names the file, line and field."""
    return _load(Path(path).expanduser(), LabelledCase)


def load_case_labels(path: str | Path) -> dict[str, dict[MetricName, float]]:
    """Labels keyed by case id (only `id` and `labels` are read from each record)."""
    return {c.id: dict(c.labels) for c in _load(Path(path).expanduser(), CaseLabels)}


def label_kind(values: Iterable[float]) -> LabelKind:
    """`binary` when every value is 0 or 1, else `graded`."""
    return "binary" if all(v in (0.0, 1.0) for v in values) else "graded"


def labelled_metrics(cases: Iterable[LabelledCase]) -> tuple[MetricName, ...]:
    """Metrics labelled in at least one case, in pipeline order."""
    found = {m for case in cases for m in case.labels}
    return tuple(m for m in METRICS if m in found)


def _load(path: Path, model: type[LabelledCase] | type[CaseLabels]) -> list[Any]:
    records = read_records(path, json_columns=_JSON_COLUMNS)
    if not records:
        raise CaseFileError(path, "the file has no labelled cases; add at least one record")
    out: list[Any] = []
    first_line: dict[str, int] = {}
    for record in records:
        item = _from_record(path, record, model)
        if item.id in first_line:
            raise CaseFileError(
                path,
                f"duplicate id '{item.id}' (first used at line {first_line[item.id]}); "
                "ids must be unique",
                line=record.line,
                field="id",
            )
        first_line[item.id] = record.line
        out.append(item)
    return out


def _from_record(path: Path, record: Record, model: type[BaseModel]) -> Any:
    data, renamed = record_fields(path, record, CASE_ALIASES)
    if "id" not in data:
        if model is CaseLabels:
            raise CaseFileError(
                path,
                "missing id: labels for a run must name the case they belong to",
                line=record.line,
                field="id",
            )
        data["id"] = str(record.number)
    normalize_common_fields(data)
    data["labels"] = _check_labels(path, record, data.get("labels"))
    return validate_record(path, record, model, data, renamed)


def _check_labels(path: Path, record: Record, labels: object) -> dict[str, float]:
    def error(message: str, field: str = "labels") -> CaseFileError:
        return CaseFileError(path, message, line=record.line, field=field)

    example = 'e.g. {"faithfulness": 1} or {"faithfulness": 0.67}'
    if labels is None:
        raise error(f"missing labels: give each case a human value per metric, {example}")
    if not isinstance(labels, dict) or not labels:
        raise error(f"labels must be a non-empty object of metric to value, {example}")
    checked: dict[str, float] = {}
    for metric, value in labels.items():
        where = f"labels.{metric}"
        if metric not in METRICS:
            close = difflib.get_close_matches(str(metric), METRICS, n=1)
            hint = f"did you mean '{close[0]}'? " if close else ""
            raise error(f"unknown metric '{metric}'; {hint}metrics: {', '.join(METRICS)}", where)
        if isinstance(value, bool):
            value = int(value)
        if isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                raise error(f"label must be a number, got '{value}'", where) from None
        if not isinstance(value, int | float) or value != value:
            raise error(f"label must be a number in [0, 1], got {value!r}", where)
        if not 0.0 <= value <= 1.0:
            raise error(
                f"label {value} is outside [0, 1]; normalise graded ratings, e.g. a 1-4 "
                "rating r becomes (r - 1) / 3",
                where,
            )
        checked[metric] = float(value)
    return checked


__all__ = [
    "CaseLabels",
    "LabelKind",
    "LabelledCase",
    "label_kind",
    "labelled_metrics",
    "load_case_labels",
    "load_labelled_cases",
]
