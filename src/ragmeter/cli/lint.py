"""`ragmeter lint`: what an eval set lacks."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console

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
    from ..cases import load_cases
    from ..lint import lint_cases

    with user_errors():
        cases = load_cases(file)
    report = lint_cases(cases, source=str(file))
    if as_json:
        typer.echo(json.dumps(report.model_dump(mode="json"), ensure_ascii=False, indent=2))
    else:
        _print_report(report, make_console())
    raise typer.Exit(report.exit_code)


def _print_report(report: object, console: Console) -> None:
    from ..lint import LintReport

    assert isinstance(report, LintReport)
    styles = {"error": "bold red", "warning": "yellow", "info": "dim"}
    console.print(report.headline(), soft_wrap=True)
    for finding in report.findings:
        ids = f" ({', '.join(finding.case_ids[:6])}{'…' if len(finding.case_ids) > 6 else ''})"
        ids = ids if finding.case_ids else ""
        style = styles.get(finding.severity, "")
        console.print(
            f"[{style}]{finding.severity}[/{style}] {finding.code}: {finding.message}{ids}"
        )
