"""`ragmeter generate`'s report: what was written, from what, and what was left out."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .safe import printable
from .words import counted

if TYPE_CHECKING:
    from rich.console import Console

    from ..generate import Generated, SkippedFile

_SHOWN = 4


def render_generated(
    result: Generated, out: Path, n: int, skipped_files: Sequence[SkippedFile], console: Console
) -> None:
    """Print the cases written to `out` by category and language, the shortfall against the
    `n` asked for, the files skipped and the chunks or questions left out."""
    cats = ", ".join(f"{name} {count}" for name, count in result.by_category.items())
    langs = ", ".join(f"{name} {count}" for name, count in result.by_lang.items())
    console.print(
        printable(
            f"wrote {counted(len(result.cases), 'case')} to {out} ({cats}; {langs}) from "
            f"{counted(result.documents, 'document')}, {counted(result.chunks, 'chunk')} "
            f"({result.mode} mode"
            + (f", {counted(result.calls, 'call')}" if result.mode == "llm" else "")
            + ")"
        ),
        soft_wrap=True,
        markup=False,
    )
    if len(result.cases) < n:
        console.print(
            f"  {n - len(result.cases)} fewer than --n {n}: the documents gave no more "
            "distinct questions",
            soft_wrap=True,
            markup=False,
        )
    for line in skipped_lines(skipped_files):
        console.print(line, soft_wrap=True, markup=False)
    if result.sentences_skipped:
        console.print(
            f"  of {counted(result.sentences, 'sentence')} read, "
            f"{sum(result.sentences_skipped.values())} made no question:",
            soft_wrap=True,
            markup=False,
        )
    for reason, count in result.sentences_skipped.items():
        console.print(f"    {count}: {reason}", soft_wrap=True, markup=False)
    for reason, items in result.skipped.items():
        shown = ", ".join(items[:_SHOWN])
        more = f", … ({len(items)} in all)" if len(items) > _SHOWN else ""
        console.print(
            printable(f"  left out {len(items)}: {reason} ({shown}{more})"),
            soft_wrap=True,
            markup=False,
        )
    console.print(
        printable(f"next: review {out}, then ragmeter lint {out}"), soft_wrap=True, markup=False
    )


def skipped_lines(skipped_files: Sequence[SkippedFile]) -> list[str]:
    """A line per reason files were skipped: forty PDFs without pypdf make one, not forty."""
    by_reason: dict[str, list[str]] = {}
    for skipped in skipped_files:
        by_reason.setdefault(skipped.reason, []).append(skipped.path)
    lines = []
    for reason, paths in by_reason.items():
        shown = ", ".join(paths[:_SHOWN]) + (
            f", … ({len(paths)} in all)" if len(paths) > _SHOWN else ""
        )
        what = f"{len(paths)} files ({shown})" if len(paths) > 1 else shown
        lines.append(printable(f"  skipped {what}: {reason}"))
    return lines
