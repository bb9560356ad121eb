"""Printing helpers shared by commands."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import typer

from ..cases import Case
from ..config import Settings
from ..pipeline import Pipeline
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
    pipeline: Pipeline,
    settings: Settings,
    *,
    lang: Lang | None = None,
    metrics: tuple[MetricName, ...] = METRICS,
) -> None:
    """Estimate the judge's calls, tokens and cost without calling anything."""
    from rich.table import Table

    from ..evaluation import estimate_run

    console = make_console()
    estimate = estimate_run(
        cases,
        pipeline,
        settings,
        lang=lang,
        metrics=metrics,
    )
    if estimate is None:
        console.print(
            f"judge '{settings.judge.kind}' makes no paid calls: {len(cases)} cases cost nothing"
        )
        return
    table = Table(title=f"Dry run: {estimate.cases} cases, judge {estimate.model}")
    for column in ("metric", "calls", "prompt tokens", "completion tokens"):
        table.add_column(column, justify="left" if column == "metric" else "right")
    for metric, part in estimate.by_metric.items():
        table.add_row(
            metric, f"{part.calls:,}", f"{part.prompt_tokens:,}", f"{part.completion_tokens:,}"
        )
    table.add_row(
        "total",
        f"{estimate.calls:,}",
        f"{estimate.prompt_tokens:,}",
        f"{estimate.completion_tokens:,}",
        style="bold",
    )
    console.print(table)
    cost = "unknown (no price for this model; add one under [judge.prices])"
    if estimate.cost is not None:
        cost = f"${estimate.cost:.4f}" + (" at batch prices" if estimate.batch else "")
    console.print(f"estimated cost: {cost} · tokens counted by {estimate.tokenizer}")
