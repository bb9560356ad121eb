"""Printing helpers shared by commands."""

from __future__ import annotations

from rich.console import Console

from ..cases import Case
from ..config import Settings
from ..pipeline import Pipeline
from ..results import RunResult


def print_report(result: RunResult, *, max_failures: int = 10) -> None:
    """The terminal report on stdout."""
    from ..report.terminal import render_terminal

    render_terminal(result, Console(), max_failures=max_failures)


def print_dry_run(
    cases: list[Case], pipeline: Pipeline, settings: Settings, *, lang: str | None = None
) -> None:
    """Estimate the judge's calls, tokens and cost without calling anything."""
    from ..evaluation import estimate_run

    estimate = estimate_run(cases, pipeline, settings, lang=lang)
    Console().print(estimate)
