"""Read JSON from a judge: a whole reply body fast, or the JSON object in free-text reply."""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.S)


def decode_json(data: str | bytes) -> Any:
    """`data` decoded by orjson, or by the standard library for what orjson refuses but some
    servers write (-Infinity, NaN). Raises ``ValueError`` when it is not JSON."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return json.loads(data)


def extract_json(text: str) -> object:
    """The JSON object in ``text``: the whole text, a fenced ```json block, or the first
    balanced ``{...}`` block that parses. Raises ``ValueError`` saying what was wrong."""
    stripped = text.strip()
    if not stripped:
        raise ValueError("empty reply, expected a JSON object")
    try:
        return json.loads(stripped)  # the common case: scanning for blocks costs more
    except json.JSONDecodeError as exc:
        error = exc
    blocks, closed = balanced_blocks(text)
    for candidate in [*(m.group(1).strip() for m in _FENCE.finditer(text)), *blocks]:
        try:
            return json.loads(candidate)
        except json.JSONDecodeError as exc:
            error = exc
    if not closed:
        raise ValueError("the JSON object is not closed (reply truncated?)")
    raise ValueError(f"reply is not valid JSON: {error}")


def balanced_blocks(text: str) -> tuple[list[str], bool]:
    """Top-level ``{...}`` substrings whose braces balance (braces in strings ignored), and
    whether every opened block was closed."""
    blocks: list[str] = []
    depth = 0
    start = -1
    in_string = escaped = False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"' and depth > 0:
            in_string = True
        elif ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                blocks.append(text[start : i + 1])
    return blocks, depth == 0
