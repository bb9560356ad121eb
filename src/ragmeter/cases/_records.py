"""Reading input files (eval sets, answers files, labelled cases) into located records.

Every record remembers the source line where it starts, so any problem, from invalid UTF-8 to a
wrong field type, is reported as `file:line: field 'x': what to do`. JSONL, JSON, YAML and CSV
are read here once for every kind of input file.

Every value read must survive being written to results.json unchanged, and reading must take
memory in proportion to the file, so these are refused at load, located, before any work:

* YAML aliases (`*name`): a few hundred bytes of nested aliases expand to gigabytes once the
  cases are validated and saved (an "alias bomb"). Bounding the expansion would still let a
  small file cost a lot, and an eval set gains little from them, so they are refused outright
  (merge keys, `<<: *defaults`, are aliases too); write the value out in each record.
* Lists and objects nested more than :data:`MAX_NESTING` levels deep within a record (a deeper
  document would otherwise end in a RecursionError from the parser).
* Lone surrogates (`"\\ud800"` in JSON): not characters, so they cannot be saved as UTF-8.
* NaN and Infinity (Python's JSON reader accepts them, YAML has `.nan` and `.inf`): JSON has no
  such numbers, so results.json could only store them as null, which would not carry metadata
  untouched. Write null, or the value as text.
* Values JSON cannot hold, such as YAML `!!binary` or `!!set`.
* CSV is read strictly: a quote that is never closed (it would swallow every following row into
  one cell), text after a closing quote, and a row with more or fewer cells than the header
  are errors naming the line and the column.
"""

from __future__ import annotations

import ast
import codecs
import csv
import datetime
import difflib
import io
import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from .._exceptions import CaseFileError
from .._util.plural import counted

CASE_ALIASES: dict[str, str] = {
    "user_input": "question",
    "reference": "ground_truth",
    "retrieved_contexts": "contexts",
    "response": "answer",
}
"""RAGAS column names accepted in eval files, mapped to ragmeter's field names."""

FORMATS: dict[str, str] = {
    ".jsonl": "jsonl",
    ".json": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".csv": "csv",
}
"""File extensions ragmeter reads, and the format each one means."""

FIELD_HINTS = {
    "id": "write it as text",
    "question": "write the question as text",
    "ground_truth": "write the reference answer as text",
    "history": 'write a list of {"role": "user" or "assistant", "content": "..."} objects, '
    "or a list of strings alternating user, assistant",
    "reference_contexts": 'write a list of strings, e.g. ["first chunk", "second chunk"]',
    "contexts": 'write a list of strings, e.g. ["first chunk", "second chunk"]',
    "metadata": 'write an object, e.g. {"source": "faq"}',
    "category": "write one of normal, typo, out_of_scope, multi_turn, or your own name",
    "lang": "write 'en' or 'zh', or leave it out to detect the language",
    "answer": "write the answer as text",
}


MAX_NESTING = 64
"""Deepest nesting of lists and objects allowed in a record (the record itself is level 1)."""

_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Record:
    """One raw record of an input file and where it starts."""

    number: int
    """1-based position among the file's records."""
    line: int
    """1-based source line where the record starts."""
    data: dict[str, Any]
    """The parsed fields, before validation."""


def read_records(path: str | Path, *, json_columns: Iterable[str] = ()) -> list[Record]:
    """Parse an input file into records with their source lines; no validation of fields.

    `json_columns` names the CSV columns whose cells hold JSON text (lists, objects).
    Raises :class:`CaseFileError` for a missing file, bad encoding, bad syntax, or a record
    that is not an object.
    """
    path = Path(path).expanduser()
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise CaseFileError(
            path,
            f"unsupported file type '{path.suffix or '(none)'}'; "
            "use .jsonl, .json, .yaml, .yml or .csv",
        )
    text = _read_text(path)
    if fmt == "jsonl":
        raw = _read_jsonl(path, text)
    elif fmt == "json":
        raw = _read_json(path, text)
    elif fmt == "yaml":
        raw = _read_yaml(path, text)
    else:
        raw = _read_csv(path, text, frozenset(json_columns))
    return [located_record(path, number, line, data) for number, (line, data) in enumerate(raw, 1)]


def located_record(path: Path, number: int, line: int, data: Any) -> Record:
    """Record `number` of the file, parsed from source `line`, once it is known to be an
    object holding only values results.json can carry (else a located CaseFileError)."""
    if not isinstance(data, dict):
        raise CaseFileError(
            path,
            f"record {number} is {_kind(data)}, not an object; each record must map "
            'field names to values, e.g. {"id": "q1", "question": "..."}',
            line=line,
        )
    if not _plain(data):
        _check_values(path, line, data)  # raises, naming the field
    return Record(number, line, data)


_SCALARS = (str, int, float, bool, type(None))


def _plain(record: dict[str, Any]) -> bool:
    """Quick test that `record` has nothing :func:`_check_values` refuses (it finds the field)."""

    def ok(value: Any) -> bool:
        kind = type(value)
        if kind is str:
            return value.isascii() or _SURROGATE.search(value) is None
        if kind is float:
            return math.isfinite(value)
        return kind in _SCALARS

    stack: list[tuple[Any, int]] = [(record, 1)]
    while stack:
        container, depth = stack.pop()
        if depth > MAX_NESTING:
            return False
        items = container.items() if type(container) is dict else enumerate(container)
        for key, value in items:
            if type(key) is str and not ok(key):
                return False
            if type(value) in (dict, list):
                stack.append((value, depth + 1))
            elif not ok(value):
                return False
    return True


def _check_values(path: Path, line: int, record: dict[str, Any]) -> None:
    """Refuse what results.json could not carry unchanged (lone surrogates, NaN and Infinity,
    binary values) and nesting deeper than MAX_NESTING, naming the field."""

    def error(message: str, where: tuple[object, ...]) -> CaseFileError:
        parts = [str(p) for p in where]
        if len(parts) > 8:
            parts = [*parts[:6], "…"]
        return CaseFileError(path, message, line=line, field=".".join(parts) or None)

    def surrogate(text: str) -> str | None:
        found = None if text.isascii() else _SURROGATE.search(text)
        return None if found is None else f"\\u{ord(found.group()):04x}"

    # Depth-first, in file order, without recursion (no depth can overflow the stack).
    stack: list[tuple[object, tuple[object, ...], int]] = [(record, (), 1)]
    while stack:
        value, where, depth = stack.pop()
        if isinstance(value, str):
            if (escape := surrogate(value)) is not None:
                raise error(
                    f"the text holds a lone surrogate ({escape}), which is not a character and "
                    "cannot be saved as UTF-8; fix the escape sequence or remove it",
                    where,
                )
        elif isinstance(value, float):
            if not math.isfinite(value):
                name = "NaN" if value != value else ("Infinity" if value > 0 else "-Infinity")
                raise error(
                    f"{name} is not a number results.json can hold (JSON has no NaN or "
                    'Infinity); write null, a number, or the value as text ("NaN")',
                    where,
                )
        elif isinstance(value, dict | list):
            if depth > MAX_NESTING:
                raise error(_too_deep(), where)
            items = value.items() if isinstance(value, dict) else enumerate(value)
            children = []
            for key, item in items:
                if isinstance(key, str) and (escape := surrogate(key)) is not None:
                    raise error(
                        f"a key holds a lone surrogate ({escape}), which is not a character and "
                        "cannot be saved as UTF-8; fix the escape sequence or remove it",
                        where,
                    )
                children.append((item, (*where, key), depth + 1))
            stack.extend(reversed(children))
        elif not (value is None or isinstance(value, int | datetime.date)):
            # YAML !!binary, !!set or !!omap; complex numbers from a pandas-style CSV cell.
            raise error(
                f"a value of type {type(value).__name__} cannot be saved in results.json; "
                "write it as text, a number, a list or an object",
                where,
            )


_TOO_MANY_DIGITS = "invalid JSON: a number has more than 4300 digits; write it as text"


def _too_deep() -> str:
    return (
        f"lists and objects are nested more than {MAX_NESTING} levels deep; "
        "flatten the data (e.g. keep it as text)"
    )


def record_fields(
    path: Path, record: Record, aliases: dict[str, str], names: Iterable[str] = ()
) -> tuple[dict[str, Any], dict[str, str]]:
    """The record's fields with null values dropped and aliases renamed; a key spelled as a
    header often spells one of `names` or an alias (`Question`, `Ground Truth`, `user-input`)
    is taken as it.

    Returns the fields and, for each renamed field, the name the file used.
    """
    data: dict[str, Any] = {}
    renamed: dict[str, str] = {}
    spelled = {*names, *aliases}
    for key, value in record.data.items():
        if value is None:
            continue
        name = key if key in spelled else _spelled_as(key, spelled)
        name = aliases.get(name, name)
        if name in data:
            other = renamed.get(name, name)
            alias = key if key != name else other
            raise CaseFileError(
                path,
                f"both '{other}' and '{key}' are given, but they are the same field "
                f"('{alias}' is the RAGAS name of '{name}'); keep only one",
                line=record.line,
                field=key,
            )
        if name != key:
            renamed[name] = key
        data[name] = value
    return data, renamed


def _spelled_as(key: str, names: set[str]) -> str:
    """`key` as the field of `names` it spells in another case or separator, else `key`."""
    plain = re.sub(r"[\s\-]+", "_", key.strip()).lower()
    return plain if plain in names else key


def normalize_common_fields(data: dict[str, Any]) -> None:
    """In place: a whole-number `id` becomes text, and a `history` given as plain strings
    becomes alternating user / assistant turns."""
    if isinstance(data.get("id"), int) and not isinstance(data["id"], bool):
        data["id"] = str(data["id"])
    history = data.get("history")
    if isinstance(history, list) and any(isinstance(t, str) for t in history):
        data["history"] = [
            {"role": "user" if i % 2 == 0 else "assistant", "content": t}
            if isinstance(t, str)
            else t
            for i, t in enumerate(history)
        ]


ModelT = TypeVar("ModelT", bound=BaseModel)


def validate_record(
    path: Path,
    record: Record,
    model: type[ModelT],
    data: dict[str, Any],
    renamed: dict[str, str] | None = None,
) -> ModelT:
    """Validate `data` (the fields of `record`) as `model`, or raise a located CaseFileError."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise _translate(path, record.line, model, exc, renamed or {}) from None


def _translate(
    path: Path, line: int, model: type[BaseModel], exc: ValidationError, renamed: dict[str, str]
) -> CaseFileError:
    errors = exc.errors(include_url=False)
    first = errors[0]
    loc = [str(p) for p in first["loc"]]
    if loc and loc[0] in renamed:
        loc[0] = renamed[loc[0]]
    field = ".".join(loc) or None
    more = ""
    if len(errors) > 1:
        more = f" (and {counted(len(errors) - 1, 'more problem')} in this record)"
    if first["type"] == "extra_forbidden":
        allowed = list(model.model_fields)
        close = difflib.get_close_matches(loc[-1], allowed, n=1)
        suggestion = f"did you mean '{close[0]}'? " if close else ""
        aliases = ", ".join(f"{k} for {v}" for k, v in CASE_ALIASES.items())
        message = (
            f"unknown field '{loc[-1]}'; {suggestion}allowed fields: {', '.join(allowed)} "
            f"(RAGAS names accepted: {aliases}); put anything else under 'metadata'"
        )
        return CaseFileError(path, message + more, line=line, field=field)
    hint = FIELD_HINTS.get(str(first["loc"][0]) if first["loc"] else "")
    if first["type"] == "missing":
        message = "missing required field" + (f"; {hint}" if hint else "")
        return CaseFileError(path, message + more, line=line, field=field)
    value = first.get("input")
    message = f"{first['msg'].rstrip('.')}, got {_kind(value)}"
    if isinstance(value, bool | int | float | datetime.date):
        shown = repr(value)  # a number may have thousands of digits: not all of them
        message += f" {shown if len(shown) <= 40 else shown[:40] + '…'}"
    if hint:
        message += f"; {hint}"
    if first["type"] == "string_type" and not isinstance(value, list | dict):
        message += " (quote the value so it stays text)"
    return CaseFileError(path, message + more, line=line, field=field)


def _kind(value: object) -> str:
    kinds = {
        dict: "an object",
        list: "a list",
        str: "a string",
        bool: "a boolean",
        int: "a number",
        float: "a number",
        type(None): "null",
    }
    return kinds.get(type(value), f"a {type(value).__name__}")


def _read_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise unreadable(path, exc) from None
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise not_utf8(path, data[exc.start], line) from None


def unreadable(path: Path, exc: OSError) -> CaseFileError:
    """The error for an input file that cannot be opened or read."""
    if isinstance(exc, FileNotFoundError):
        return CaseFileError(path, f"file not found; check the path (relative to {Path.cwd()})")
    if isinstance(exc, IsADirectoryError):
        return CaseFileError(path, "is a directory; give the path of a file")
    return CaseFileError(path, f"cannot read the file: {exc.strerror or exc}")


def not_utf8(path: Path, byte: int, line: int) -> CaseFileError:
    """The error for an input file whose `line` holds `byte`, the first one not UTF-8."""
    return CaseFileError(
        path,
        f"not valid UTF-8 (byte 0x{byte:02x}); save the file as UTF-8 (in Excel: 'CSV UTF-8')",
        line=line,
    )


class _DuplicateKeyError(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKeyError(key)
        result[key] = value
    return result


def _duplicate_key(path: Path, exc: _DuplicateKeyError, line: int) -> CaseFileError:
    return CaseFileError(
        path, f"key '{exc.key}' appears twice in one object; keep one", line=line, field=exc.key
    )


def _read_jsonl(path: Path, text: str) -> list[tuple[int, Any]]:
    return [
        (line, jsonl_value(path, line, raw))
        for line, raw in enumerate(text.split("\n"), start=1)
        if not jsonl_blank(raw)
    ]


def jsonl_blank(raw: str) -> bool:
    """Whether a line of a .jsonl file is blank, so skipped (it holds no record)."""
    return not raw.strip()


def jsonl_value(path: Path, line: int, raw: str) -> Any:
    """The JSON value on a non-blank `line` of a .jsonl file (`raw`, decoded), or the located
    CaseFileError: invalid JSON, a key twice in one object, too deep, too many digits."""
    try:
        return json.loads(raw, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise CaseFileError(
            path,
            f"invalid JSON: {exc.msg} (column {exc.colno}); each line of a .jsonl file "
            "must be one complete JSON object",
            line=line,
        ) from None
    except _DuplicateKeyError as exc:
        raise _duplicate_key(path, exc, line) from None
    except RecursionError:
        raise CaseFileError(path, _too_deep(), line=line) from None
    except ValueError:  # an integer of more than 4300 digits
        raise CaseFileError(path, _TOO_MANY_DIGITS, line=line) from None


_JSON_WS = re.compile(r"[ \t\n\r]*")


# Strings (skipped whole, so brackets in text do not count), brackets and newlines.
_JSON_NESTING_TOKENS = re.compile(r'"(?:[^"\\\n]|\\.)*"|[\[\]{}\n]')


def _deep_json_line(text: str) -> int | None:
    """The first line where the JSON `text` nests deeper than MAX_NESTING, to locate the
    RecursionError of a document too deep for the parser."""
    depth, line = 0, 1
    for match in _JSON_NESTING_TOKENS.finditer(text):
        token = match.group()
        if token == "\n":
            line += 1
        elif token in "[{":
            depth += 1
            if depth > MAX_NESTING:
                return line
        elif token in "]}":
            depth -= 1
    return None


def _read_json(path: Path, text: str) -> list[tuple[int, Any]]:
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        if not text.strip():
            return []
        raise CaseFileError(
            path, f"invalid JSON: {exc.msg} (column {exc.colno})", line=exc.lineno
        ) from None
    except RecursionError:
        raise CaseFileError(path, _too_deep(), line=_deep_json_line(text)) from None
    except ValueError:  # an integer of more than 4300 digits
        digits = re.search(r"\d{4301}", text)
        line = text.count("\n", 0, digits.start()) + 1 if digits else None
        raise CaseFileError(path, _TOO_MANY_DIGITS, line=line) from None
    # The text is valid JSON: walk it with raw_decode to learn where each record starts.
    decoder = json.JSONDecoder(object_pairs_hook=_no_duplicates)

    def skip(pos: int) -> int:
        return _JSON_WS.match(text, pos).end()  # type: ignore[union-attr]

    def line_at(pos: int) -> int:
        return text.count("\n", 0, pos) + 1

    def decode(pos: int) -> tuple[Any, int]:
        try:
            return decoder.raw_decode(text, pos)
        except _DuplicateKeyError as exc:
            raise _duplicate_key(path, exc, line_at(pos)) from None

    def items(pos: int) -> list[tuple[int, Any]]:  # pos is at "["
        found: list[tuple[int, Any]] = []
        pos = skip(pos + 1)
        while text[pos] != "]":
            value, end = decode(pos)
            found.append((line_at(pos), value))
            pos = skip(end)
            if text[pos] == ",":
                pos = skip(pos + 1)
        return found

    pos = skip(0)
    shape_error = 'the top level must be a list of cases, or an object with a "cases" list'
    if text[pos] == "[":
        return items(pos)
    if text[pos] != "{":
        raise CaseFileError(path, shape_error, line=line_at(pos))
    pos = skip(pos + 1)
    keys = []
    while text[pos] != "}":
        key, end = decoder.raw_decode(text, pos)
        pos = skip(skip(end) + 1)  # past ":"
        if key == "cases":
            if text[pos] != "[":
                raise CaseFileError(
                    path, '"cases" must be a list of cases', line=line_at(pos), field="cases"
                )
            return items(pos)
        keys.append(key)
        _, end = decode(pos)
        pos = skip(end)
        if text[pos] == ",":
            pos = skip(pos + 1)
    found = ", ".join(keys) or "none"
    raise CaseFileError(
        path, f'{shape_error}; the object has no "cases" key (keys: {found})', line=1
    )


class _RefusedYAML(Exception):
    """YAML that is valid but refused in an input file (an alias, too deep nesting)."""

    def __init__(self, message: str, line: int, where: list[object]) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        # Keys and indexes from the document root; the record's own fields follow the
        # top-level list index (and 'cases' above it, when the top level is a mapping).
        parts = [p for p in where if p is not None]
        if len(parts) > 1 and parts[0] == "cases" and isinstance(parts[1], int):
            parts = parts[2:]
        elif parts and isinstance(parts[0], int):
            parts = parts[1:]
        shown = [str(p) for p in parts]
        if len(shown) > 8:
            shown = [*shown[:6], "…"]
        self.field = ".".join(shown) or None


def _yaml_loader(text: str) -> Any:
    """A PyYAML SafeLoader that refuses aliases and bounds nesting while it composes the
    document, before anything is expanded (see the module docstring for why)."""
    import yaml

    class Loader(yaml.SafeLoader):
        def __init__(self, stream: str) -> None:
            super().__init__(stream)
            self.where: list[object] = []
            self.last_node: Any = None

        def compose_node(self, parent: Any, index: Any) -> Any:
            # `index` is the key node of a mapping value, the position of a sequence item,
            # or None for a key or the root.
            if isinstance(index, yaml.Node):
                index = index.value if isinstance(index, yaml.ScalarNode) else "?"
            self.where.append(index)
            try:
                if self.check_event(yaml.AliasEvent):
                    event = self.peek_event()
                    raise _RefusedYAML(
                        f"YAML alias '*{event.anchor}' refused: aliases can make a small file "
                        "expand to gigabytes; write the value out in each record",
                        event.start_mark.line + 1,
                        self.where,
                    )
                # Two levels above a record (the list, and 'cases'), one for a scalar.
                if len(self.where) > MAX_NESTING + 3:
                    raise _RefusedYAML(
                        _too_deep(), self.peek_event().start_mark.line + 1, self.where
                    )
                return super().compose_node(parent, index)
            finally:
                self.where.pop()

        def construct_object(self, node: Any, deep: bool = False) -> Any:
            self.last_node = node
            return super().construct_object(node, deep=deep)

    return Loader(text)


def _read_yaml(path: Path, text: str) -> list[tuple[int, Any]]:
    import yaml

    try:
        loader = _yaml_loader(text)  # checks every character first
    except yaml.reader.ReaderError as exc:
        # YAML allows no control character but tab and line breaks, not even quoted.
        line = text.count("\n", 0, exc.position) + 1
        raise CaseFileError(
            path,
            f"invalid YAML: control character U+{exc.character:04X} is not allowed in YAML; "
            "remove it, or write it as an escape (\\x1b) in a double-quoted string",
            line=line,
        ) from None
    try:
        node = loader.get_single_node()
        data: Any = loader.construct_document(node) if node is not None else None
    except _RefusedYAML as exc:
        raise CaseFileError(path, exc.message, line=exc.line, field=exc.field) from None
    except (ValueError, TypeError, AttributeError) as exc:
        # A scalar PyYAML fails to convert (`2024-13-45`, `!!int x`, 5000 digits).
        bad = loader.last_node
        value = str(getattr(bad, "value", ""))
        value = value if len(value) <= 40 else value[:40] + "…"
        raise CaseFileError(
            path,
            f"invalid YAML value {value!r} ({str(exc).split(';')[0][:200]}); "
            "quote it to keep it as text",
            line=bad.start_mark.line + 1 if bad is not None else None,
        ) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "syntax error"
        raise CaseFileError(
            path, f"invalid YAML: {problem}", line=mark.line + 1 if mark else None
        ) from None
    except yaml.YAMLError as exc:
        raise CaseFileError(path, f"invalid YAML: {exc}") from None
    finally:
        loader.dispose()
    if node is None:
        return []
    shape_error = "the top level must be a list of cases, or a mapping with a 'cases' list"
    if isinstance(node, yaml.MappingNode) and isinstance(data, dict):
        if "cases" not in data:
            keys = ", ".join(str(k) for k in data) or "none"
            raise CaseFileError(
                path, f"{shape_error}; no 'cases' key (keys: {keys})", line=node.start_mark.line + 1
            )
        value_node = next(v for k, v in node.value if getattr(k, "value", None) == "cases")
        if not isinstance(value_node, yaml.SequenceNode):
            raise CaseFileError(
                path,
                "'cases' must be a list of cases",
                line=value_node.start_mark.line + 1,
                field="cases",
            )
        node, data = value_node, data["cases"]
    if not isinstance(node, yaml.SequenceNode):
        raise CaseFileError(path, shape_error, line=node.start_mark.line + 1)
    records = []
    for item, value in zip(node.value, data, strict=True):
        if isinstance(item, yaml.MappingNode):
            seen: set[object] = set()
            for key_node, _ in item.value:
                key = getattr(key_node, "value", None)
                if key in seen:
                    raise CaseFileError(
                        path,
                        f"key '{key}' appears twice in one mapping; keep one",
                        line=key_node.start_mark.line + 1,
                        field=str(key),
                    )
                seen.add(key)
        records.append((item.start_mark.line + 1, value))
    return records


def _read_csv(path: Path, text: str, json_columns: frozenset[str]) -> list[tuple[int, Any]]:
    # A cell may be as long as the file (contexts of long documents): the csv module's own
    # limit, 128 KiB per cell, would end in an error of its own. Restored afterwards.
    limit = csv.field_size_limit(max(csv.field_size_limit(), len(text) + 1))
    try:
        return _read_csv_rows(path, text, json_columns)
    finally:
        csv.field_size_limit(limit)


def _read_csv_rows(path: Path, text: str, json_columns: frozenset[str]) -> list[tuple[int, Any]]:
    # strict: an unclosed quote or text after a closing quote is an error, not a cell that
    # silently takes in the rest of the file.
    delimiter = csv_delimiter(text)
    reader = csv.reader(io.StringIO(text, newline=""), strict=True, delimiter=delimiter)
    header: list[str] | None = None
    records: list[tuple[int, Any]] = []
    end = 0
    try:
        for row in reader:
            start, end = end + 1, reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            if header is None:
                header = [name.strip() for name in row]
                _check_header(path, header, start)
                continue
            extra = [cell for cell in row[len(header) :] if cell.strip()]
            if extra:
                raise CaseFileError(
                    path,
                    f"row has {len(row)} cells but the header has {len(header)} columns; "
                    'put cells that contain commas in double quotes ("a, b")',
                    line=start,
                )
            if len(row) < len(header):
                missing = header[len(row)]
                raise CaseFileError(
                    path,
                    f"row has {len(row)} cells but the header has {len(header)} columns "
                    f"(no cell for '{missing}'); write an empty cell (a trailing comma) for a "
                    "column with no value, and check the quotes of the cells before it",
                    line=start,
                    field=missing,
                )
            data: dict[str, Any] = {}
            for name, cell in zip(header, row, strict=False):
                if not cell.strip():
                    continue
                data[name] = _json_cell(path, cell, start, name) if name in json_columns else cell
            records.append((start, data))
    except csv.Error as exc:
        problem = str(exc)
        raise _csv_error(path, text, end + 1, reader.line_num, problem, header, delimiter) from None
    return records


def csv_delimiter(text: str) -> str:
    """The cell separator of a CSV text, told by its header: ',' unless the header has none
    and has ';' (spreadsheets in many locales) or a tab."""
    header = next((line for line in text.splitlines() if line.strip()), "")
    if "," not in header:
        for candidate in (";", "\t"):
            if candidate in header:
                return candidate
    return ","


def _csv_error(
    path: Path,
    text: str,
    start: int,
    line: int,
    problem: str,
    header: list[str] | None,
    delimiter: str = ",",
) -> CaseFileError:
    """The csv module's error for the record starting at line `start` (noticed at `line`),
    with the column of the cell at fault."""
    lines = io.StringIO(text, newline="").readlines()
    record = "".join(lines[start - 1 : line])

    def strict_error(part: str) -> str | None:
        try:
            list(csv.reader(io.StringIO(part, newline=""), strict=True, delimiter=delimiter))
        except csv.Error as exc:
            return str(exc)
        return None

    def cells(part: str) -> int:
        return len(next(csv.reader(io.StringIO(part, newline=""), delimiter=delimiter), []))

    if problem == "unexpected end of data":
        # The last cell opens a quote that never closes: it runs to the end of the file.
        column = cells(record) - 1
        message = (
            f"a quoted cell is never closed: its opening quote takes in every line to the end "
            f"of the file (line {line}), rows included; close the quote, and write a quote "
            'inside a quoted cell as two ("")'
        )
    else:
        # The shortest start of the record that fails the same way ends at the fault.
        low, high = 1, len(record)
        while low < high:
            middle = (low + high) // 2
            if strict_error(record[:middle]) == problem:
                high = middle
            else:
                low = middle + 1
        column = cells(record[:low]) - 1
        if problem.startswith(f"'{delimiter}' expected after"):
            problem = "text follows the closing quote of a quoted cell"
        noticed = record[:low].count("\n") + record[:low].count("\r") - record[:low].count("\r\n")
        where = f" (line {start + noticed})" if noticed else ""
        message = (
            f"invalid CSV: {problem}{where}; quote the whole cell and write a quote inside it "
            'as two ("")'
        )
    field = None
    if header is not None and column >= 0:
        field = header[column] if column < len(header) else f"column {column + 1}"
    return CaseFileError(path, message, line=start, field=field)


def _check_header(path: Path, header: list[str], line: int) -> None:
    if "" in header:
        raise CaseFileError(
            path,
            f"header column {header.index('') + 1} has no name; name every column",
            line=line,
        )
    for name in header:
        if header.count(name) > 1:
            raise CaseFileError(
                path,
                f"column '{name}' appears twice in the header; keep one",
                line=line,
                field=name,
            )


def _json_cell(path: Path, cell: str, line: int, name: str) -> Any:
    try:
        return json.loads(cell)
    except RecursionError:
        raise CaseFileError(path, _too_deep(), line=line, field=name) from None
    except json.JSONDecodeError as exc:
        message = exc.msg
        stripped = cell.strip()
        if stripped[:1] in "[{":
            # pandas writes list columns as Python literals (['a', 'b']): accept those too.
            try:
                value = ast.literal_eval(stripped)
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                value = None
            if isinstance(value, list | dict):
                return value
    except ValueError:  # an integer of more than 4300 digits
        message = "a number has more than 4300 digits; write it as text"
    raise CaseFileError(
        path,
        f"cell is not valid JSON ({message}); this column holds JSON text, "
        'e.g. ["first", "second"] for a list or {"key": "value"} for an object',
        line=line,
        field=name,
    ) from None
