"""`ragmeter report`: render a stored run."""

from __future__ import annotations

from pathlib import Path

import typer

from ._app import app, make_console, user_errors
from .options import FailuresLimitOpt


@app.command()
def report(
    run_dir: Path = typer.Argument(..., help="Results directory (or its results.json)."),
    fmt: str = typer.Option(
        "terminal", "--format", "-f", help="terminal, md, html, junit or json."
    ),
    baseline: Path = typer.Option(
        None, "--baseline", "-b", help="Baseline run to compare against (md, html, json)."
    ),
    output: Path = typer.Option(
        None, "--out", "--output", "-o", help="Write to this file instead of standard output."
    ),
    max_failures: FailuresLimitOpt = 10,
    overwrite: bool = typer.Option(
        False, "--overwrite", help="Replace a run or a baseline at --out (refused otherwise)."
    ),
) -> None:
    """Show a stored run: terminal (default), Markdown, HTML, JUnit XML or JSON."""
    from ..report.inputs import report_inputs
    from ..report.registry import render
    from ..results import load_run, prepare_out_file, write_atomic

    with user_errors():
        if output is not None:
            example = {"md": "report.md", "html": "report.html", "junit": "junit.xml"}
            report_name = example.get(fmt, f"report.{fmt}")
            prepare_out_file(output, "--out", report_name, overwrite=overwrite)
        result = load_run(run_dir)
        base = load_run(baseline) if baseline else None
        inputs = report_inputs(result, base, max_failures=max_failures)
        if fmt == "terminal" and output is None:
            from ..report.terminal import render_terminal

            render_terminal(inputs, make_console())
            return
        text = render(inputs, fmt)
    if output is None:
        typer.echo(text, nl=False)
    else:
        with user_errors():  # a disk that filled up meanwhile
            write_atomic(output, text)
        typer.echo(f"wrote {output}", err=True)
