"""Printing helpers shared by commands."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import typer

from ..cases import Case
from ..config import Settings
from ..pipeline import PipelineBase
from ..results import RunResult
from ..vocabulary import METRICS, Lang, MetricName
from ._app import make_console


def print_report(result: RunResult, *, max_failures: int = 10) -> None:
    """The terminal report on stdout."""
    from ..report.inputs import report_inputs
    from ..report.terminal import render_terminal

    render_terminal(report_inputs(result, max_failures=max_failures), make_console())


def finish_run(result: RunResult, results_path: Path) -> None:
    """Say where the results are; for an incomplete run, say why on stderr and exit with its
    code (3, or 4 when the budget ran out)."""
    typer.echo(f"\nresults written to {results_path}")
    health = result.health
    if health is None or health.ok:
        return
    from ..report.safe import printable

    for problem in health.problems:
        typer.echo(f"error: {printable(problem)}", err=True)
    typer.echo(
        f"error: incomplete run (exit {health.exit_code}): not every metric was measured; "
        "see Unscored above",
        err=True,
    )
    raise typer.Exit(health.exit_code)


def print_dry_run(
    cases: Sequence[Case],
    pipeline: PipelineBase,
    settings: Settings,
    *,
    lang: Lang | None = None,
    metrics: tuple[MetricName, ...] = METRICS,
) -> None:
    """Estimate the judge's calls, tokens and cost without calling anything, and print it."""
    from ..api import estimate_run
    from ..report.dry_run import render_dry_run

    estimate = estimate_run(cases, pipeline, settings, lang=lang, metrics=metrics)
    render_dry_run(estimate, make_console(), judge=settings.judge.kind, cases=len(cases))
