"""Counted nouns for every message ragmeter writes, the core's and the reports': `1 case`,
`2 cases` (never `case(s)`, never `1 cases`)."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`1 case`, `2 cases`, `1,204 cases`."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


__all__ = ["counted"]
