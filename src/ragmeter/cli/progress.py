"""A rich progress bar for runs, showing judge calls, tokens and cost when there are any."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from ..judges.base import JudgeBase
from ..results import CaseResult


def _judge_line(stats: dict[str, Any]) -> str:
    if not stats or (not stats.get("calls") and not stats.get("cached_calls")):
        return ""
    parts = [f"calls {stats.get('calls', 0)}"]
    if stats.get("cached_calls"):
        parts.append(f"cached {stats['cached_calls']}")
    tokens = stats.get("prompt_tokens", 0) + stats.get("completion_tokens", 0)
    parts.append(f"tokens {tokens:,}")
    if stats.get("cost"):
        parts.append(f"cost {stats['cost']:.4f}")
    return " · ".join(parts)


@contextmanager
def run_progress(
    total: int, judge: JudgeBase, *, enabled: bool = True
) -> Iterator[Callable[[CaseResult], None]]:
    """Yield a per-case callback that advances a progress bar on stderr, when stderr is an
    interactive terminal; elsewhere (a file, a CI log) nothing is written."""
    console = Console(stderr=True)
    # A transient bar draws nothing where it cannot redraw, but rich's Progress still ends
    # such a console with an empty line.
    if not enabled or not console.is_interactive:
        yield lambda _case: None
        return
    progress = Progress(
        TextColumn("[bold]judging"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        TextColumn("{task.fields[judge]}"),
        console=console,
        transient=True,
    )
    with progress:
        task = progress.add_task("cases", total=total, judge="")

        def advance(_case: CaseResult) -> None:
            line = _judge_line(judge.stats())
            progress.update(task, advance=1, judge=line)

        yield advance
