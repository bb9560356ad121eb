"""Eval sets in: the :class:`Case` model, reading eval files (.jsonl, .json, .yaml, .csv) and
rows into validated cases, and what else describes an eval set.

Public here: :class:`Case`, :func:`load_cases`, :func:`open_cases` (a .jsonl file read case by
case, :class:`CaseFile`), :func:`cases_from_rows`, :func:`cases_from` (data in any usual shape:
rows, a DataFrame, a `datasets.Dataset`, columns), :func:`case_lang` and the record readers.
Submodules: `labels` (human labels for calibration), `lint` (`ragmeter lint`), `digest` (the
digest a merge checks shards by). The `_case`, `_records`, `_file` and `_shapes` modules are
this package's own; answers files are read by :mod:`ragmeter.pipeline.answers`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ._case import (
    CASE_ALIASES,
    FORMATS,
    KNOWN_CATEGORIES,
    RAGAS_METADATA_FIELDS,
    Case,
    Record,
    assigned_ids,
    case_lang,
    cases_from_rows,
    load_cases,
    read_records,
    record_fields,
    validate_record,
    warn_kept_columns,
)
from ._file import CaseFile
from ._shapes import cases_from


def open_cases(path: str | Path) -> Sequence[Case]:
    """The eval set at `path`, loaded and validated as :func:`load_cases` does (the same
    errors), but a .jsonl file is not held in memory: it is read once to validate it, then
    each case is read again from the file when it is used (a
    :class:`~ragmeter.cases.CaseFile`), so memory stays flat however many cases it has.
    JSON, YAML and CSV files are read whole, as :func:`load_cases` reads them (a list).
    """
    path = Path(path).expanduser()
    if FORMATS.get(path.suffix.lower()) == "jsonl":
        return CaseFile(path)
    return load_cases(path)


__all__ = [
    "CASE_ALIASES",
    "FORMATS",
    "KNOWN_CATEGORIES",
    "RAGAS_METADATA_FIELDS",
    "Case",
    "CaseFile",
    "Record",
    "assigned_ids",
    "case_lang",
    "cases_from",
    "cases_from_rows",
    "load_cases",
    "open_cases",
    "read_records",
    "record_fields",
    "validate_record",
    "warn_kept_columns",
]
