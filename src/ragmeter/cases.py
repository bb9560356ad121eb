"""The eval-set model and its loading and validation."""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ._exceptions import CaseFileError
from .judges.base import Lang, Turn
from .records import (
    CASE_ALIASES,
    FORMATS,
    Record,
    normalize_common_fields,
    read_records,
    record_fields,
    validate_record,
)

KNOWN_CATEGORIES = ("normal", "typo", "out_of_scope", "multi_turn")


class Case(BaseModel):
    """One eval case: a question, its human reference answer and where it comes from."""

    model_config = ConfigDict(extra="forbid")

    id: str
    """Unique id within the eval set."""
    question: str
    """The question (for multi-turn cases, the last user turn)."""
    ground_truth: str = ""
    """Human reference answer. For out-of-scope cases, what a correct abstention says."""
    category: str = "normal"
    """`normal`, `typo`, `out_of_scope`, `multi_turn`, or the user's own."""
    history: list[Turn] = Field(default_factory=list)
    """Earlier turns, oldest first."""
    reference_contexts: list[str] = Field(default_factory=list)
    """Chunks a human marked as the right evidence (optional)."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Free-form user data, carried into results untouched."""
    lang: Lang | None = None
    """`en` or `zh`; detected from the text when absent."""
    contexts: list[str] | None = None
    """Precomputed retrieved contexts (RAGAS `retrieved_contexts`), if the file has them."""
    answer: str | None = None
    """Precomputed answer (RAGAS `response`), if the file has them."""


_CASE_JSON_COLUMNS = frozenset(
    {"history", "reference_contexts", "contexts", "retrieved_contexts", "metadata"}
)


def load_cases(path: str | Path) -> list[Case]:
    """Load and validate an eval set (.jsonl, .json, .yaml/.yml or .csv).

    Either every case loads or :class:`CaseFileError` names the file, line and field at fault.
    Records without an `id` get their 1-based record number (see :func:`assigned_ids`).
    """
    path = Path(path).expanduser()
    records = read_records(path, json_columns=_CASE_JSON_COLUMNS)
    if not records:
        raise CaseFileError(
            path, "the file has no cases; add at least one record with a 'question'"
        )
    cases: list[Case] = []
    numbered_ids: set[str] = set()
    first_line: dict[str, int] = {}
    for record in records:
        case, assigned = _case_from_record(path, record)
        if case.id in first_line:
            if assigned:
                why = f"; this record has no id, so it was numbered {case.id}: give it an id"
            elif case.id in numbered_ids:
                why = "; that record has no id and was numbered by its position: give it an id"
            else:
                why = "; ids must be unique: rename one of them"
            raise CaseFileError(
                path,
                f"duplicate id '{case.id}' (first used at line {first_line[case.id]}){why}",
                line=record.line,
                field="id",
            )
        first_line[case.id] = record.line
        if assigned:
            numbered_ids.add(case.id)
        cases.append(case)
    for case in cases:
        if case.id in numbered_ids:
            _mark_assigned(case)
    return cases


def assigned_ids(cases: Iterable[Case]) -> list[str]:
    """Ids of those `cases` that :func:`load_cases` numbered because their record had no `id`."""
    found = []
    for case in cases:
        ref = _ASSIGNED.get(id(case))
        if ref is not None and ref() is case:
            found.append(case.id)
    return found


# Cases are unhashable pydantic models, so identity is tracked by id() plus a weak reference
# (the reference both proves identity and removes the entry when the case is collected).
_ASSIGNED: dict[int, weakref.ref[Case]] = {}


def _mark_assigned(case: Case) -> None:
    key = id(case)

    def forget(ref: weakref.ref[Case]) -> None:
        if _ASSIGNED.get(key) is ref:
            del _ASSIGNED[key]

    _ASSIGNED[key] = weakref.ref(case, forget)


def _case_from_record(path: Path, record: Record) -> tuple[Case, bool]:
    data, renamed = record_fields(path, record, CASE_ALIASES)
    assigned = "id" not in data
    if assigned:
        data["id"] = str(record.number)
    normalize_common_fields(data)
    question = data.get("question")
    if question is None or (isinstance(question, str) and not question.strip()):
        state = "missing" if question is None else "empty"
        raise CaseFileError(
            path,
            f"{state} question: every case needs the question to ask the pipeline "
            "(field 'question', or 'user_input' in RAGAS files)",
            line=record.line,
            field=renamed.get("question", "question"),
        )
    case = validate_record(path, record, Case, data, renamed)
    if not case.id.strip():
        raise CaseFileError(
            path,
            "empty id; give the case an id or leave the field out",
            line=record.line,
            field="id",
        )
    return case, assigned


__all__ = [
    "CASE_ALIASES",
    "FORMATS",
    "KNOWN_CATEGORIES",
    "Case",
    "Record",
    "assigned_ids",
    "load_cases",
    "read_records",
    "record_fields",
    "validate_record",
]
