"""A window of a chunk: the unit the local judge aligns a statement with."""

from __future__ import annotations

from dataclasses import dataclass

from ...text.numbers import NumberMention


@dataclass(frozen=True)
class Window:
    """One or two consecutive sentences of a chunk."""

    chunk: int
    start: int
    end: int
    text: str
    parts: tuple[str, ...]
    """The sentences it is made of."""
    part_spans: tuple[tuple[int, int], ...]
    """Their offsets in the chunk."""
    keys: frozenset[str]
    numbers: tuple[NumberMention, ...]
