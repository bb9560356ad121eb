"""`ragmeter lint`'s report: the eval set's headline, then each finding by severity."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from .safe import printable

if TYPE_CHECKING:
    from rich.console import Console

    from ..cases.lint import LintReport

_STYLES = {"error": "bold red", "warning": "yellow", "info": "dim"}


def render_lint(report: LintReport, console: Console) -> None:
    """Print the headline and one line per finding, with up to six of its case ids. Ids,
    categories and the file name are the eval set's: shown literally, control characters as
    `\\xNN`, never read as markup."""
    console.print(printable(report.headline()), soft_wrap=True, markup=False)
    for finding in report.findings:
        ids = f" ({', '.join(finding.case_ids[:6])}{'…' if len(finding.case_ids) > 6 else ''})"
        ids = ids if finding.case_ids else ""
        console.print(
            Text.assemble(
                (finding.severity, _STYLES.get(finding.severity, "")),
                printable(f" {finding.code}: {finding.message}{ids}"),
            )
        )
