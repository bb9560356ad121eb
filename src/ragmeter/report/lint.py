"""`ragmeter lint`'s report: the eval set's headline, then each finding by severity."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from ..lint import LintReport

_STYLES = {"error": "bold red", "warning": "yellow", "info": "dim"}


def render_lint(report: LintReport, console: Console) -> None:
    """Print the headline and one line per finding, with up to six of its case ids."""
    console.print(report.headline(), soft_wrap=True)
    for finding in report.findings:
        ids = f" ({', '.join(finding.case_ids[:6])}{'…' if len(finding.case_ids) > 6 else ''})"
        ids = ids if finding.case_ids else ""
        style = _STYLES.get(finding.severity, "")
        console.print(
            f"[{style}]{finding.severity}[/{style}] {finding.code}: {finding.message}{ids}"
        )
