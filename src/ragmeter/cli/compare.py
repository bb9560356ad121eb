"""`ragmeter compare BASE NEW`: paired differences, regressed and improved cases."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ..report.comparison import ci_label, diff_rows
from ..report.safe import printable
from ..report.words import counted
from ._app import app, fail, make_console, user_errors
from .options import FormatOpt, LegacyJsonOpt, OutputFormat, wants_json


def _print_comparison(comparison: object, console: Console, limit: int) -> None:
    from ..compare import Comparison

    assert isinstance(comparison, Comparison)
    for problem in comparison.problems:
        console.print(f"[yellow]warning:[/yellow] {escape(printable(problem))}")
    conf = f"{100 * comparison.confidence:.0f}%"
    table = Table(
        title=f"new − base, paired over cases scored in both ({conf} paired bootstrap interval)",
        title_justify="left",
    )
    for col in ("metric", "n", "base", "new", "diff", ci_label(comparison), "p", "significant"):
        table.add_column(col, justify="left" if col in ("metric", "significant") else "right")
    styles = {"worse": "red", "better": "green", None: ""}
    for row in diff_rows(comparison):
        table.add_row(
            row.metric,
            row.paired,
            row.base,
            row.new,
            row.diff,
            row.ci,
            row.p,
            "yes" if row.significant else "no",
            style=styles[row.change],
        )
    console.print(table)
    if comparison.by_category:
        cats = Table(title="By category (diff, n paired)", title_justify="left")
        cats.add_column("category")
        metrics = list(comparison.metrics)
        for metric in metrics:
            cats.add_column(metric, justify="right")
        for category, per_metric in comparison.by_category.items():
            cells = []
            for metric in metrics:
                d = per_metric[metric]
                mark = "*" if d.significant else ""
                cells.append("—" if d.diff is None else f"{d.diff:+.2f}{mark} ({d.n_paired})")
            cats.add_row(Text(printable(category)), *cells)
        console.print(cats)
        console.print("[dim]* significant at the interval's level[/dim]")
    for title, changes, style in (
        ("Regressed", comparison.regressed, "red"),
        ("Improved", comparison.improved, "green"),
    ):
        console.print(f"\n[bold]{title} cases: {len(changes)}[/bold]")
        for change in changes[:limit]:
            console.print(
                f"[{style}]{change.diff:+.2f}[/{style}] {change.metric} {change.base:.2f} → "
                f"{change.new:.2f}  [bold]{escape(printable(change.case_id))}[/bold] "
                f"{escape(printable('[' + change.category + ']'))} "
                f"{escape(printable(change.question[:90]))}",
                markup=True,
                highlight=False,
            )
            for line in change.evidence[:3]:
                console.print(f"    • {printable(line)}", markup=False, highlight=False)
        if len(changes) > limit:
            console.print(f"[dim]… {len(changes) - limit} more (--limit, --format json)[/dim]")
    if comparison.claim_changes:
        console.print(f"\n[bold]Claims whose verdict changed: {len(comparison.claim_changes)}")
        for claim in comparison.claim_changes[:limit]:
            console.print(
                printable(
                    f"  {claim.case_id}: «{claim.claim[:100]}» {claim.base_verdict} → "
                    f"{claim.new_verdict}"
                ),
                markup=False,
                highlight=False,
            )
        if len(comparison.claim_changes) > limit:
            more = len(comparison.claim_changes) - limit
            console.print(f"[dim]… {more} more (--limit, --format json)[/dim]")
    for label, ids in (
        ("only in base", comparison.only_in_base),
        ("only in new", comparison.only_in_new),
        ("changed question or reference (not paired)", comparison.changed_cases),
    ):
        if ids:
            shown = ", ".join(ids[:limit]) + (" …" if len(ids) > limit else "")
            console.print(
                f"[yellow]{counted(len(ids), 'case')} {label}:[/yellow] {escape(printable(shown))}",
                highlight=False,
            )


@app.command()
def compare(
    base: Path = typer.Argument(..., help="Baseline results directory (or results.json)."),
    new: Path = typer.Argument(..., help="New results directory (or results.json)."),
    force: bool = typer.Option(
        False, "--force", help="Compare even when the judges or eval sets differ."
    ),
    min_delta: float = typer.Option(
        0.1, "--min-delta", help="List cases whose score moved at least this much."
    ),
    limit: int = typer.Option(10, "--limit", min=0, help="Cases to show in each list."),
    output_format: FormatOpt = OutputFormat.text,
    legacy_json: LegacyJsonOpt = False,
) -> None:
    """Compare two runs of the same eval set case by case (new − base).

    Shows each metric's paired difference with a bootstrap interval and a sign-flip test, per
    category, the regressed and improved cases worst first with the judge's evidence, and
    claims whose verdict changed. Exit code 0; 2 when the runs cannot be loaded or compared.
    """
    as_json = wants_json(output_format, legacy_json)
    from ..compare import compare_runs
    from ..results import load_run

    with user_errors():
        base_run = load_run(base)
        new_run = load_run(new)
    comparison = compare_runs(base_run, new_run, force=force, min_delta=min_delta)
    if as_json:
        typer.echo(json.dumps(comparison.model_dump(mode="json"), ensure_ascii=False, indent=2))
    if not comparison.comparable:
        fail("runs not comparable: " + "; ".join(comparison.problems))
    if not as_json:
        _print_comparison(comparison, make_console(), limit)
