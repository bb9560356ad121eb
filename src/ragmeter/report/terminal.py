"""Terminal report: metrics with intervals, per category, diagnosis, failed cases; and
`ragmeter compare`'s comparison of two runs.

Every part fits the console's width (the terminal's, or `COLUMNS`): a table too wide for it
leaves out its least useful columns (the score table's stage, then its distribution) or puts
its headers on two lines (the category table), long cells wrap inside their column, and the
failed cases' lines wrap under their own text, not back at the left margin."""

from __future__ import annotations

import io

from rich.cells import cell_len
from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.measure import Measurement
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ..compare import Comparison
from ..results import MetricSummary, RunResult
from ..results.explain import short
from ..vocabulary import METRICS, RETRIEVAL_METRICS
from .comparison import ci_label, diff_rows
from .failures import worst_failures
from .inputs import ReportInputs
from .judge_agreement import calibration_lines
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


def natural_width(renderable: RenderableType) -> int:
    """The columns `renderable` takes when nothing has to wrap."""
    console = Console(width=10_000, file=io.StringIO(), color_system=None)
    return Measurement.get(console, console.options, renderable).maximum


SCORE_COLUMNS = ("metric", "stage", "mean", "95% CI", "scored", "unscored", "failed", "0 → 1")
NARROW_DROPS = ("stage", "0 → 1")
"""Score-table columns left out, in this order, while the table is wider than the console:
the stage is in the diagnosis too, and the distribution is a picture of the numbers."""


def _metrics_table(run: RunResult, columns: tuple[str, ...], *, wrap: bool = False) -> Table:
    table = Table(title="Scores (95% bootstrap interval)", title_justify="left")
    for col in columns:
        table.add_column(
            col,
            justify="left" if col in ("metric", "stage", "0 → 1") else "right",
            no_wrap=not wrap and col != "stage",
            overflow="fold",
        )
    for metric in METRICS:
        stats = run.summary.metrics.get(metric)
        if stats is None:
            continue
        cells = {
            "metric": metric.replace("_", " ") if wrap else metric,  # wraps between words
            "stage": "retrieval" if metric in RETRIEVAL_METRICS else "generation",
            "mean": _fmt(stats.mean),
            "95% CI": _ci(stats),
            "scored": str(stats.n_scored),
            "unscored": str(stats.n_unscored),
            "failed": str(stats.n_failed),
            "0 → 1": sparkline(stats.histogram),
        }
        table.add_row(*(cells[col] for col in columns))
    return table


def metrics_table(run: RunResult, width: int | None = None) -> Table:
    """Each metric's mean, interval, counts and distribution. Within `width` columns the
    stage and then the distribution are left out (a caption says so), so that down to 80
    columns no metric name or figure is cut or wrapped; narrower still, cells wrap (metric
    names between their words) rather than end in "…"."""
    columns: tuple[str, ...] = SCORE_COLUMNS
    table = _metrics_table(run, columns)
    for drop in NARROW_DROPS:
        if width is None or natural_width(table) <= width:
            break
        columns = tuple(col for col in columns if col != drop)
        table = _metrics_table(run, columns)
    if width is not None and natural_width(table) > width:  # under ~72 columns: fold, not "…"
        table = _metrics_table(run, columns, wrap=True)
    left_out = [col for col in SCORE_COLUMNS if col not in columns]
    if left_out:
        names = " and ".join("distribution" if col == "0 → 1" else col for col in left_out)
        table.caption = f"{names} left out at this width"
        table.caption_justify = "left"
    return table


def unscored_table(run: RunResult) -> Table | None:
    """Unscored results grouped by cause (files from before grouping: by metric and reason)."""
    groups = run.summary.unscored_groups
    if groups:
        table = Table(title="Unscored (not counted in the means), by cause", title_justify="left")
        for column in ("cause", "metrics", "cases", "e.g."):
            table.add_column(
                column, justify="right" if column == "cases" else "left", overflow="fold"
            )
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


def _two_lines(metric: str) -> str:
    """`context_precision` as `context` over `precision`: a header half as wide."""
    head, _, tail = metric.partition("_")
    return f"{head}\n{tail}" if tail else metric


def category_table(run: RunResult, width: int | None = None) -> Table:
    """Means per category; within `width` columns, the metric headers go on two lines, and a
    long category name wraps in its column."""
    table = _category_table(run, two_line_heads=False)
    if width is not None and natural_width(table) > width:
        table = _category_table(run, two_line_heads=True)
    return table


def _category_table(run: RunResult, *, two_line_heads: bool) -> Table:
    table = Table(title="By category (mean, scored cases)", title_justify="left")
    table.add_column("category", overflow="fold")
    judged = [m for m in METRICS if m in run.summary.metrics]  # `--metrics` may judge fewer
    for metric in judged:
        table.add_column(
            _two_lines(metric) if two_line_heads else metric, justify="right", no_wrap=True
        )
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
    lines: list[RenderableType] = [Text(diag.headline, style="bold")]
    styles = {
        "fix-first": "bold red",
        "weak": "yellow",
        "ok": "green",
        "unknown": "dim",
        "indicative": "dim yellow",
    }
    for finding in diag.findings:
        message = Text(printable(finding.message), style=styles.get(finding.severity, ""))
        lines.append(_hanging(f"  [{finding.stage}] ", message, "dim"))
        if finding.advice and finding.severity in ("fix-first", "weak"):
            lines.append(_hanging("      → ", Text(finding.advice, style="dim"), "dim"))
    return Panel(Group(*lines), title="Diagnosis", title_align="left")


def _hanging(lead: str, body: Text, style: str = "") -> Table:
    """`lead` then `body`, whose wrapped lines start under its first character."""
    grid = Table.grid()
    grid.add_column(width=cell_len(lead), no_wrap=True, style=style)
    grid.add_column(overflow="fold")
    grid.add_row(Text(lead), body)  # a Text: "[retrieval]" is not markup
    return grid


def failures_group(run: RunResult, limit: int) -> Group:
    failures, total = worst_failures(run, limit)
    head = Text(
        f"Failed cases: {total} (case × metric under its pass mark), worst first", style="bold"
    )
    items: list[RenderableType] = [head]
    for failure in failures:
        case = failure.case
        title = Text(f"{failure.metric} {failure.mark}  ", style="bold red")
        title.append(printable(f"{case.id} [{case.category}, {case.lang}] "), style="bold")
        title.append(short(case.question, 90))
        items += [Text(""), _hanging(f"{failure.score:.2f}  ", title, "bold red")]
        if failure.metric != "context_recall" and case.answer:
            answer = Text(f"answer: {short(case.answer, 140)}", style="dim")
            items.append(_hanging("    ", answer))
        for reason in failure.reasons[:4]:
            items.append(_hanging("    • ", Text(reason)))
    if total > len(failures):
        items.append(
            Text(f"\n… {total - len(failures)} more; see results.json or --limit", style="dim")
        )
    return Group(*items)


def render_terminal(report: ReportInputs, console: Console | None = None) -> None:
    """Print the whole report to `console` (stdout by default)."""
    run = report.run
    console = console or Console()
    width = console.width
    info = run.run
    judge = run.judge
    header = Text("ragmeter", style="bold")
    pipeline = printable(f"pipeline: {info.pipeline or '—'}")
    rest = printable(
        f"judge: {judge.kind} ({judge.model}) · {'—' if info.seconds is None else info.seconds} s"
    )
    cases = counted(run.summary.n_cases, "case")
    if cell_len(f"ragmeter · {cases} · {pipeline} · {rest}") <= width:
        header.append(f" · {cases} · {pipeline} · {rest}")
        console.print(header)
    else:  # the pipeline's description (often long) on lines of its own
        header.append(f" · {cases} · {rest}")
        console.print(header)
        console.print(_hanging("  ", Text(pipeline)))
    console.print(spend_line(run), style="dim", markup=False)
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
    console.print(metrics_table(run, width))
    unscored = unscored_table(run)
    if unscored is not None:
        console.print(unscored)
    console.print(category_table(run, width))
    console.print(diagnosis_panel(run))
    console.print(failures_group(run, report.max_failures))


def render_text(report: ReportInputs, *, width: int = 120) -> str:
    """The terminal report as plain text (the `terminal` renderer)."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=False, color_system=None)
    render_terminal(report, console)
    return buffer.getvalue()


def render_comparison(comparison: Comparison, console: Console, *, limit: int = 10) -> None:
    """Print `ragmeter compare`'s report: each metric's paired difference, per category,
    the regressed and improved cases (at most `limit` of each), claims whose verdict changed
    and the cases not paired."""
    for problem in comparison.problems:
        console.print(f"[yellow]warning:[/yellow] {escape(printable(problem))}")
    for note in comparison.notes:
        console.print(f"note: {escape(printable(note))}")
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
            if change.evidence:
                console.print(f"    {change.evidence_title}:", style="dim", highlight=False)
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
