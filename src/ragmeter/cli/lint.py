"""`ragmeter lint`: what an eval set lacks."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from ._app import app, make_console, user_errors
from .options import FormatOpt, LegacyJsonOpt, OutputFormat, wants_json


@app.command()
def lint(
    file: Path = typer.Argument(..., help="Eval set: JSONL, JSON, YAML or CSV."),
    output_format: FormatOpt = OutputFormat.text,
    legacy_json: LegacyJsonOpt = False,
) -> None:
    """Check an eval set: size, category coverage, duplicates, empty ground truths.

    Exit code 0 when clean or only warnings, 1 when it finds errors, 2 when the file
    cannot be loaded.
    """
    as_json = wants_json(output_format, legacy_json)
    from ..cases import open_cases
    from ..cases.lint import lint_cases

    with user_errors():
        cases = open_cases(file)  # .jsonl: read case by case, as `run` reads it
        report = lint_cases(cases, source=str(file))
    if as_json:
        from .._util.safe_text import json_escaped

        text = json.dumps(report.model_dump(mode="json"), ensure_ascii=False, indent=2)
        typer.echo(json_escaped(text))
    else:
        from ..report.lint import render_lint

        render_lint(report, make_console())
    raise typer.Exit(report.exit_code)
