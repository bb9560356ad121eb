"""The eval-set model and its loading and validation."""

from __future__ import annotations

import difflib
import warnings
import weakref
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import ConfigDict, model_validator

from .._exceptions import MAX_LISTED, CaseFileError, CaseFileWarning
from ..vocabulary import CaseFields, CaseId, Lang
from ._records import (
    CASE_ALIASES,
    FORMATS,
    Record,
    _check_values,
    _plain,
    normalize_common_fields,
    read_records,
    record_fields,
    validate_record,
)

KNOWN_CATEGORIES = ("normal", "typo", "out_of_scope", "multi_turn")

RAGAS_METADATA_FIELDS = (
    "multi_responses",
    "rubric",
    "rubrics",
    "retrieved_context_ids",
    "reference_context_ids",
    "synthesizer_name",
    "persona_name",
    "query_style",
    "query_length",
)
"""Columns of RAGAS samples and generated test sets that ragmeter does not score: kept under
`metadata` (same name), so a RAGAS row loads as it is and nothing in it is lost."""


class Case(CaseFields, CaseId):
    """One eval case: a question, its human reference answer and where it comes from (the
    fields of :class:`~ragmeter.vocabulary.CaseFields`), and optionally its language and
    precomputed contexts and answer.

    RAGAS names are accepted as well, so `Case(**ragas_row)` works: `user_input`, `reference`,
    `retrieved_contexts`, `response`, the older `ground_truths` (a list, joined by newlines),
    and RAGAS bookkeeping columns (:data:`RAGAS_METADATA_FIELDS`, moved under `metadata`).
    """

    model_config = ConfigDict(extra="forbid")

    id: str = ""
    """Unique id within the eval set. Left empty, :func:`ragmeter.evaluate` numbers the case by
    its 1-based position, as eval files number records without an id."""
    lang: Lang | None = None
    """`en` or `zh`; detected from the text when absent (:func:`case_lang`)."""
    contexts: list[str] | None = None
    """Precomputed retrieved contexts (RAGAS `retrieved_contexts`), if the file has them."""
    answer: str | None = None
    """Precomputed answer (RAGAS `response`), if the file has them."""

    @model_validator(mode="before")
    @classmethod
    def _ragas_names(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        for alias, name in (*CASE_ALIASES.items(), ("ground_truths", "ground_truth")):
            if alias not in data:
                continue
            value = data.pop(alias)
            if (
                alias == "ground_truths"
                and isinstance(value, list | tuple)
                and all(isinstance(item, str) for item in value)
            ):
                value = "\n".join(value)
            if value is None:
                continue
            if data.get(name) is not None:
                raise ValueError(
                    f"both '{name}' and '{alias}' are given, but they are the same field "
                    f"('{alias}' is the RAGAS name of '{name}'); keep only one"
                )
            data[name] = value
        moved = {key: data.pop(key) for key in RAGAS_METADATA_FIELDS if key in data}
        moved = {key: value for key, value in moved.items() if value is not None}
        if moved:
            metadata = data.get("metadata")
            if metadata is None:
                metadata = {}
            if not isinstance(metadata, dict):
                return data  # the field's own validation says what is wrong
            clash = [k for k in moved if k in metadata and metadata[k] != moved[k]]
            if clash:
                raise ValueError(
                    f"'{clash[0]}' is given both as a column and under 'metadata', with "
                    "different values; keep one"
                )
            data["metadata"] = {**metadata, **moved}
        return data


_CASE_JSON_COLUMNS = frozenset(
    {"history", "reference_contexts", "contexts", "retrieved_contexts", "metadata"}
)


def case_lang(case: Case, override: Lang | None = None) -> Lang:
    """The language `case` is judged, varied and linted in: the override, the case's own, or
    detected from its question and ground truth (the one place this is decided)."""
    if override is not None:
        return override
    if case.lang is not None:
        return case.lang
    return case.detected_lang()


def load_cases(path: str | Path) -> list[Case]:
    """Load and validate an eval set (.jsonl, .json, .yaml/.yml or .csv).

    Either every case loads or :class:`CaseFileError` names the file, line and field at fault
    (every record's problems in one error, the first ten listed). Fields that are no case field
    (a generated test set's `description`, a note) are kept under `metadata`, with one
    :class:`~ragmeter._exceptions.CaseFileWarning` naming them.
    Records without an `id` get their 1-based record number (see :func:`assigned_ids`).
    Every case is held in memory; :func:`open_cases` reads a large .jsonl file case by case.
    """
    path = Path(path).expanduser()
    records = read_records(path, json_columns=_CASE_JSON_COLUMNS)
    if not records:
        raise _no_cases(path)
    cases: list[Case] = []
    ids = _UniqueIds(path)
    problems = Problems()
    kept: set[str] = set()
    for record in records:
        try:
            case, assigned = _case_from_record(path, record, kept)
            ids.add(case.id, assigned, record.line)
        except CaseFileError as exc:
            problems.add(exc)
            continue
        cases.append(case)
    problems.raise_any()
    for case in cases:
        if case.id in ids.numbered:
            _mark_assigned(case)
    warn_kept_columns(path, kept)
    return cases


class Problems:
    """The problems of one file's records, gathered so that one error reports them all (the
    first :data:`~ragmeter._exceptions.MAX_LISTED` listed, the rest counted)."""

    def __init__(self) -> None:
        self.found: list[CaseFileError] = []
        self.count = 0

    def add(self, error: CaseFileError) -> None:
        self.count += 1
        if len(self.found) <= MAX_LISTED:
            self.found.append(error)

    def raise_any(self) -> None:
        """Raise one CaseFileError for every problem added, if there was any."""
        if self.count:
            raise CaseFileError.of_many(self.found, self.count)


def _no_cases(path: Path) -> CaseFileError:
    return CaseFileError(path, "the file has no cases; add at least one record with a 'question'")


def _duplicate_id(
    path: Path, case_id: str, assigned: bool, line: int, first_line: int, first_numbered: bool
) -> CaseFileError:
    """The error for the record at `line` whose id (`assigned` if numbered) was first used at
    `first_line` (by a record numbered by its position if `first_numbered`)."""
    if assigned:
        why = f"; this record has no id, so it was numbered {case_id}: give it an id"
    elif first_numbered:
        why = "; that record has no id and was numbered by its position: give it an id"
    else:
        why = "; ids must be unique: rename one of them"
    return CaseFileError(
        path,
        f"duplicate id '{case_id}' (first used at line {first_line}){why}",
        line=line,
        field="id",
    )


class _UniqueIds:
    """The ids of an eval file's records so far: a repeated id is a located CaseFileError."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.first_line: dict[str, int] = {}
        self.numbered: set[str] = set()
        """Ids given to records that had none (their 1-based record number)."""

    def add(self, case_id: str, assigned: bool, line: int) -> None:
        """Take the id of the record at `line` (`assigned` if numbered), or raise if taken."""
        first = self.first_line.get(case_id)
        if first is not None:
            raise _duplicate_id(self.path, case_id, assigned, line, first, case_id in self.numbered)
        self.first_line[case_id] = line
        if assigned:
            self.numbered.add(case_id)


def cases_from_rows(
    rows: Iterable[Case | Mapping[str, Any]], *, source: str = "data"
) -> list[Case]:
    """Cases from rows in memory (dicts with ragmeter or RAGAS names, or :class:`Case` objects),
    checked as eval files are: a missing question, a wrong type, NaN or a duplicate id is a
    :class:`CaseFileError` located as `source[index]` (0-based) and the field. A row without an
    id is numbered by its 1-based position. Every problem is reported in one error; columns
    that are no case field are kept under `metadata` with one warning."""
    cases: list[Case] = []
    first_index: dict[str, int] = {}
    numbered: set[str] = set()
    problems = Problems()
    kept: set[str] = set()
    for index, row in enumerate(rows):
        try:
            case, assigned = _case_from_row(index, row, source, kept)
        except CaseFileError as exc:
            problems.add(exc)
            continue
        if case.id in first_index:
            why = (
                f"; this row has no id, so it was numbered {case.id}: give it an id"
                if assigned
                else "; that row has no id and was numbered by its position: give it an id"
                if case.id in numbered
                else "; ids must be unique: rename one of them"
            )
            problems.add(
                CaseFileError(
                    f"{source}[{index}]",
                    f"duplicate id '{case.id}' (first used at {source}[{first_index[case.id]}])"
                    f"{why}",
                    field="id",
                )
            )
            continue
        first_index[case.id] = index
        if assigned:
            numbered.add(case.id)
        cases.append(case)
    problems.raise_any()
    if not cases:
        raise CaseFileError(source, "no cases; give at least one row with a question")
    warn_kept_columns(source, kept)
    return cases


def _case_from_row(
    index: int, row: Case | Mapping[str, Any], source: str, kept: set[str]
) -> tuple[Case, bool]:
    """The case of row `index` of `source` and whether its id was assigned; CaseFileError
    located as `source[index]`."""
    # the checks read_records applies to file records (NaN, lone surrogates, depth, types)

    where = f"{source}[{index}]"
    if isinstance(row, Case):
        assigned = not row.id
        return (row.model_copy(update={"id": str(index + 1)}) if assigned else row), assigned
    if isinstance(row, Mapping):
        data = {str(key): value for key, value in row.items()}
        record = Record(index + 1, index + 1, data)
        try:
            if not _plain(data):
                _check_values(Path(where), record.line, data)
            return _case_from_record(Path(where), record, kept)
        except CaseFileError as exc:
            raise CaseFileError(where, exc.message, field=exc.field) from None
    raise CaseFileError(
        where,
        f"a {type(row).__name__}, not a case; give a dict with 'question' (or "
        "'user_input'), 'contexts' and 'answer' ('retrieved_contexts', 'response'), ...",
    )


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


def _case_from_record(
    path: Path, record: Record, kept: set[str] | None = None
) -> tuple[Case, bool]:
    """The case a record holds and whether its id was assigned; columns that are no case field
    go under its metadata, their names added to `kept`."""
    data, renamed = record_fields(path, record, CASE_ALIASES, _CASE_FIELDS)
    assigned = "id" not in data
    if assigned:
        data["id"] = str(record.number)
    normalize_common_fields(data)
    _keep_other_columns(path, record, data, kept)
    question = data.get("question")
    if question is None or (isinstance(question, str) and not question.strip()):
        state = "missing" if question is None else "empty"
        found = [key for key in record.data if key not in ("metadata", "id")]
        raise CaseFileError(
            path,
            f"{state} question: every case needs the question to ask the pipeline "
            "(field 'question', or 'user_input' in RAGAS files)"
            + (f"; the record has {', '.join(map(repr, found))}" if found else ""),
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


_CASE_FIELDS = frozenset(Case.model_fields)
_KNOWN = _CASE_FIELDS | {"ground_truths", *RAGAS_METADATA_FIELDS}


def _keep_other_columns(
    path: Path, record: Record, data: dict[str, Any], kept: set[str] | None
) -> None:
    """In place: move the fields that are no case field under `metadata` (a column of a
    generated test set, a note), unless one looks like a misspelt field the record lacks."""
    other = [key for key in data if key not in _KNOWN]
    if not other:
        return
    lacking = sorted(name for name in _CASE_FIELDS if name not in data and name != "metadata")
    aliases = ", ".join(f"{k} for {v}" for k, v in CASE_ALIASES.items())
    for key in other:
        close = difflib.get_close_matches(key.lower(), lacking, n=1, cutoff=0.8)
        if close:
            raise CaseFileError(
                path,
                f"unknown field '{key}'; did you mean '{close[0]}'? allowed fields: "
                f"{', '.join(Case.model_fields)} (RAGAS names accepted: {aliases}); a field "
                "of another name is kept under 'metadata'",
                line=record.line,
                field=key,
            )
    metadata = data.get("metadata", {})
    if not isinstance(metadata, dict):
        return  # the field's own validation says what is wrong
    for key in other:
        if key in metadata and metadata[key] != data[key]:
            raise CaseFileError(
                path,
                f"'{key}' is given both as a field and under 'metadata', with different "
                "values; keep one",
                line=record.line,
                field=key,
            )
    data["metadata"] = {**metadata, **{key: data.pop(key) for key in other}}
    if kept is not None:
        kept.update(other)


def warn_kept_columns(source: str | Path, kept: set[str]) -> None:
    """One warning for a whole eval set: which of its fields were kept under metadata."""
    if kept:
        names = ", ".join(f"'{name}'" for name in sorted(kept))
        warnings.warn(
            f"{source}: {names} {'is' if len(kept) == 1 else 'are'} not a case field; kept "
            "under each case's 'metadata' (fields: id, question, ground_truth, category, "
            "history, reference_contexts, contexts, answer, lang, metadata)",
            CaseFileWarning,
            stacklevel=3,
        )


__all__ = [
    "CASE_ALIASES",
    "FORMATS",
    "KNOWN_CATEGORIES",
    "RAGAS_METADATA_FIELDS",
    "Case",
    "Record",
    "assigned_ids",
    "cases_from_rows",
    "load_cases",
    "read_records",
    "record_fields",
    "validate_record",
]
