"""`ragmeter compare BASE NEW`: paired differences, regressed and improved cases."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from ._app import app, fail, make_console, user_errors
from .options import FormatOpt, LegacyJsonOpt, OutputFormat, wants_json


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
    claims whose verdict changed. Runs of eval sets whose contents differ (their digests) are
    refused unless --force; forced, only cases whose question and reference are unchanged are
    paired. Exit code 0; 2 when the runs cannot be loaded or compared, or no case could be
    paired.
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
    if comparison.nothing_paired:
        fail("nothing could be paired: " + comparison.nothing_paired)
    if not as_json:
        from ..report.terminal import render_comparison

        render_comparison(comparison, make_console(), limit=limit)
