"""Cases from data in any usual shape (what :func:`ragmeter.evaluate` accepts): a list of dicts
(ragmeter or RAGAS names), a pandas DataFrame, a Hugging Face `datasets.Dataset` or a RAGAS
`EvaluationDataset` (anything with `to_list()`), a dict of columns, :class:`Case` objects, or the
path of an eval file. Neither pandas nor `datasets` is imported unless the data is one.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .._exceptions import CaseFileError, ConfigError
from ._case import Case, cases_from_rows, load_cases
from ._records import _json_cell

_LIST_COLUMNS = frozenset(
    {"contexts", "retrieved_contexts", "reference_contexts", "history", "metadata"}
)
"""Columns that hold lists or objects: a DataFrame read from CSV has them as text."""


def cases_from(data: Any) -> list[Case]:
    """The cases `data` holds, validated as eval files are (errors name `data[i]` and the
    field); see the module doc for the shapes accepted."""
    if isinstance(data, str | os.PathLike):
        return load_cases(Path(data))
    if isinstance(data, Case):
        raise ConfigError("data is one Case; pass a list of cases: [case]")
    if _is_dataframe(data):
        rows: list[Any] = [_from_pandas(row) for row in data.to_dict(orient="records")]
        return cases_from_rows([_parse_text_lists(i, row) for i, row in enumerate(rows)])
    for method in ("to_list", "to_dicts"):  # datasets.Dataset, EvaluationDataset; polars
        to_list = getattr(data, method, None)
        if callable(to_list):
            rows = [_row(item) for item in to_list()]
            return cases_from_rows([_from_pandas(row) for row in rows])
    if isinstance(data, Mapping):
        return cases_from_rows(_columns_to_rows(data))
    if isinstance(data, Iterable) and not isinstance(data, bytes):
        return cases_from_rows([_row(item) for item in data])
    raise ConfigError(
        f"data is a {type(data).__name__}; give a list of dicts, a pandas DataFrame, a "
        "datasets.Dataset, a dict of columns or the path of an eval file"
    )


def _is_dataframe(data: Any) -> bool:
    return all(hasattr(data, attr) for attr in ("to_dict", "columns", "iterrows"))


def _row(item: Any) -> Any:
    """A dict for a RAGAS sample or other pydantic model; dicts and Cases as they are."""
    if isinstance(item, Case | Mapping):
        return item
    dump = getattr(item, "model_dump", None)
    if callable(dump):  # ragas.SingleTurnSample
        return dump(exclude_none=True)
    return item  # cases_from_rows names what it is


def _from_pandas(value: Any) -> Any:
    """Plain Python for what pandas and numpy hand out: NaN, NA and NaT (missing cells) as
    None, arrays as lists, numpy scalars as numbers."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if type(value).__name__ in ("NAType", "NaTType"):
        return None
    if isinstance(value, dict):
        return {key: _from_pandas(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_from_pandas(item) for item in value]
    tolist = getattr(value, "tolist", None)
    if callable(tolist) and not isinstance(value, str | bytes):
        return _from_pandas(tolist())
    return value


def _parse_text_lists(index: int, row: Any) -> Any:
    """In a DataFrame row, list and object columns given as text (a DataFrame read from CSV:
    JSON, or Python's `['a', 'b']`) parsed as ragmeter's CSV reader parses them."""
    if not isinstance(row, dict):
        return row
    parsed = dict(row)
    for name, value in row.items():
        if name in _LIST_COLUMNS and isinstance(value, str) and value.strip()[:1] in ("[", "{"):
            try:
                parsed[name] = _json_cell(Path(f"data[{index}]"), value, 0, name)
            except CaseFileError as exc:
                raise CaseFileError(f"data[{index}]", exc.message, field=name) from None
    return parsed


def _columns_to_rows(columns: Mapping[Any, Any]) -> list[dict[str, Any]]:
    """`{"question": [...], "answer": [...]}` (as `Dataset.from_dict` takes) as rows."""
    lists = {str(k): v for k, v in columns.items() if isinstance(v, list | tuple)}
    if not columns or len(lists) != len(columns):
        raise ConfigError(
            "data is a dict but not of columns (every value a list); for one case pass "
            "[{'question': ..., ...}], for columns {'question': [...], 'answer': [...], ...}"
        )
    lengths = {name: len(values) for name, values in lists.items()}
    if len(set(lengths.values())) > 1:
        sizes = ", ".join(f"{name} {n}" for name, n in lengths.items())
        raise ConfigError(f"data columns differ in length ({sizes}); give one value per case")
    count = next(iter(lengths.values()))
    return [{name: values[i] for name, values in lists.items()} for i in range(count)]


__all__ = ["cases_from"]
