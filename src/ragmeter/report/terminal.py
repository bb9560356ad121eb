"""Terminal report: metrics with intervals, per category, diagnosis, failed cases."""

from __future__ import annotations

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ..explain import short
from ..judges.base import METRICS, RETRIEVAL_METRICS
from ..results import MetricSummary, RunResult
from .calibration import calibration_lines
from .failures import worst_failures
from .safe import printable
from .words import counted, spend_line

_BARS = "▁▂▃▄▅▆▇█"
MAX_CATEGORIES = 30
"""Categories the category table shows (in the summary's order); the rest are counted."""


def sparkline(counts: list[int]) -> str:
    """Histogram counts as a row of block characters."""
    if not counts or max(counts) == 0:
        return ""
    top = max(counts)
    return "".join(
        " " if c == 0 else _BARS[min(len(_BARS) - 1, c * len(_BARS) // (top + 1))] for c in counts
    )


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _ci(stats: MetricSummary) -> str:
    return "—" if stats.ci is None else f"[{stats.ci[0]:.2f}, {stats.ci[1]:.2f}]"


def metrics_table(run: RunResult) -> Table:
    table = Table(title="Scores (95% bootstrap interval)", title_justify="left")
    for col in ("metric", "stage", "mean", "95% CI", "scored", "unscored", "failed", "0 → 1"):
        table.add_column(col, justify="left" if col in ("metric", "stage", "0 → 1") else "right")
    for metric in METRICS:
        stats = run.summary.metrics.get(metric)
        if stats is None:
            continue
        stage = "retrieval" if metric in RETRIEVAL_METRICS else "generation"
        table.add_row(
            metric,
            stage,
            _fmt(stats.mean),
            _ci(stats),
            str(stats.n_scored),
            str(stats.n_unscored),
            str(stats.n_failed),
            sparkline(stats.histogram),
        )
    return table


def unscored_table(run: RunResult) -> Table | None:
    """Unscored results grouped by cause (files from before grouping: by metric and reason)."""
    groups = run.summary.unscored_groups
    if groups:
        table = Table(title="Unscored (not counted in the means), by cause", title_justify="left")
        for column in ("cause", "metrics", "cases", "e.g."):
            table.add_column(column, justify="right" if column == "cases" else "left")
        for group in groups:
            metrics = "all" if len(group.metrics) == len(METRICS) else ", ".join(group.metrics)
            cause = group.cause + (" (by design)" if group.by_design else "")
            more = ", …" if group.n_cases > len(group.example_ids) else ""
            table.add_row(
                Text(short(cause, 80)),
                metrics,
                str(group.n_cases),
                Text(printable(", ".join(group.example_ids) + more)),
            )
        return table
    rows = [
        (metric, reason, count)
        for metric in METRICS
        if (stats := run.summary.metrics.get(metric))
        for reason, count in stats.unscored_reasons.items()
    ]
    if not rows:
        return None
    table = Table(title="Unscored (not counted in the means)", title_justify="left")
    table.add_column("metric")
    table.add_column("reason")
    table.add_column("cases", justify="right")
    for metric, reason, count in rows:
        table.add_row(metric, Text(short(reason, 90)), str(count))
    return table


def health_lines(run: RunResult) -> list[Text]:
    """Red lines when a metric was not measured on enough cases or the budget ran out."""
    health = run.health
    if health is None or health.ok:
        return []
    lines = [Text("Incomplete run: these numbers are not a full measurement", style="bold red")]
    lines.extend(Text(f"  • {printable(problem)}", style="red") for problem in health.problems)
    return lines


def category_table(run: RunResult) -> Table:
    table = Table(title="By category (mean, scored cases)", title_justify="left")
    table.add_column("category")
    judged = [m for m in METRICS if m in run.summary.metrics]  # `--metrics` may judge fewer
    for metric in judged:
        table.add_column(metric, justify="right")
    categories = list(run.summary.by_category.items())
    for category, per_metric in categories[:MAX_CATEGORIES]:
        cells = []
        for metric in judged:
            stats = per_metric.get(metric)
            cells.append(
                "—"
                if stats is None or stats.mean is None
                else f"{stats.mean:.2f} ({stats.n_scored})"
            )
        table.add_row(Text(printable(category)), *cells)
    if len(categories) > MAX_CATEGORIES:
        more = len(categories) - MAX_CATEGORIES
        table.add_row(Text(f"… {more} more categories (see results.json)", style="dim"))
    return table


def diagnosis_panel(run: RunResult) -> Panel:
    diag = run.diagnosis
    lines = [Text(diag.headline, style="bold")]
    styles = {"fix-first": "bold red", "weak": "yellow", "ok": "green", "unknown": "dim"}
    for finding in diag.findings:
        line = Text(f"  [{finding.stage}] ", style="dim")
        line.append(printable(finding.message), style=styles.get(finding.severity, ""))
        lines.append(line)
        if finding.advice and finding.severity in ("fix-first", "weak"):
            lines.append(Text(f"      → {finding.advice}", style="dim"))
    return Panel(Group(*lines), title="Diagnosis", title_align="left")


def failures_group(run: RunResult, limit: int) -> Group:
    failures, total = worst_failures(run, limit)
    head = Text(f"Failed cases: {total} (case × metric below threshold), worst first", style="bold")
    items: list[Text] = [head]
    for failure in failures:
        case = failure.case
        title = Text(f"\n{failure.score:.2f}  {failure.metric}  ", style="bold red")
        title.append(printable(f"{case.id} [{case.category}, {case.lang}] "), style="bold")
        title.append(short(case.question, 90))
        items.append(title)
        if failure.metric != "context_recall" and case.answer:
            items.append(Text(f"    answer: {short(case.answer, 140)}", style="dim"))
        for reason in failure.reasons[:4]:
            items.append(Text(f"    • {reason}"))
    if total > len(failures):
        items.append(
            Text(
                f"\n… {total - len(failures)} more; see results.json or --max-failures", style="dim"
            )
        )
    return Group(*items)


def render_terminal(
    run: RunResult, console: Console | None = None, *, max_failures: int = 10
) -> None:
    """Print the whole report to `console` (stdout by default)."""
    console = console or Console()
    info = run.run
    judge = run.judge
    header = Text("ragmeter", style="bold")
    header.append(
        printable(
            f" · {counted(run.summary.n_cases, 'case')} · pipeline: {info.pipeline or '—'} · "
            f"judge: {judge.kind} ({judge.model}) · "
            f"{'—' if info.seconds is None else info.seconds} s"
        )
    )
    console.print(header)
    spend = spend_line(run)
    if spend:
        console.print(spend, style="dim", markup=False)
    for warning in info.warnings:
        console.print(Text("warning: ", style="yellow") + Text(printable(warning)))
    for line in calibration_lines(run):
        console.print(line, style="dim", markup=False)
    if run.summary.n_pipeline_errors:
        console.print(
            f"[red]{run.summary.n_pipeline_errors:,} of {counted(run.summary.n_cases, 'case')} "
            "failed in the "
            "pipeline[/red] (unscored)"
        )
    for health in health_lines(run):
        console.print(health)
    console.print(metrics_table(run))
    unscored = unscored_table(run)
    if unscored is not None:
        console.print(unscored)
    console.print(category_table(run))
    console.print(diagnosis_panel(run))
    console.print(failures_group(run, max_failures))


def render_text(run: RunResult, *, baseline: RunResult | None = None, width: int = 120) -> str:
    """The terminal report as plain text (the `terminal` renderer)."""
    import io

    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=False, color_system=None)
    render_terminal(run, console)
    return buffer.getvalue()
