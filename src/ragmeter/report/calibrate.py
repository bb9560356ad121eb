"""`ragmeter calibrate`'s report: how well the judge agrees with people, per metric, the
prediction-powered estimate of each mean and the worst disagreements.

(`report.calibration` holds the lines every run report shows about a stored calibration.)"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.markup import escape
from rich.table import Table

from ..results.indicative import indicative_why, near_chance
from .safe import printable

if TYPE_CHECKING:
    from rich.console import Console

    from ..results.calibration import Calibration


def render_calibration(
    calibration: Calibration,
    console: Console,
    *,
    written: Path | None = None,
    stored: Path | None = None,
) -> None:
    """Print the readable calibration report, then where it was `written` and `stored` (under
    the judge's fingerprint) when given."""
    judge = calibration.judge
    console.print(
        f"[bold]ragmeter calibrate[/bold] · judge: {escape(printable(judge.kind))} "
        f"({escape(printable(judge.model))}) · {calibration.n_cases} labelled cases"
    )
    table = Table(title="Agreement with people (95% bootstrap interval)", title_justify="left")
    for column in ("metric", "labels", "n", "measure", "value", "95% CI", "unscored"):
        right = column in ("n", "value", "unscored")
        table.add_column(column, justify="right" if right else "left")
    for name, part in calibration.metrics.items():
        kind = part.kind if part.threshold is None else f"binary, judge ≥ {part.threshold:g}"
        for i, m in enumerate(part.measures):
            table.add_row(
                name if i == 0 else "",
                kind if i == 0 else "",
                str(part.n) if i == 0 else "",
                m.name,
                "—" if m.value is None else f"{m.value:.3f}",
                "—" if m.ci is None else f"[{m.ci[0]:.2f}, {m.ci[1]:.2f}]",
                str(part.n_unscored) if i == 0 else "",
            )
    console.print(table)
    for note in calibration.notes():
        if near_chance(note):
            console.print(
                f"{note.metric}: {indicative_why(note).removeprefix('its judge ')}: indicative "
                "only in runs with this judge (the diagnosis names no stage on it alone; the "
                "gate's floor on it warns unless enforced)",
                style="yellow",
                markup=False,
            )
    for name in calibration.metrics:
        for i, line in enumerate(calibration.scoring_lines(name)):
            console.print(("  " if i else "") + line, markup=False, soft_wrap=True)
    if calibration.estimates:
        est = Table(title="Prediction-powered estimate of each mean", title_justify="left")
        for column in ("metric", "judge mean", "PPI mean", "95% CI", "labels only", "n", "N"):
            est.add_column(column, justify="left" if column == "metric" else "right")
        for name, e in calibration.estimates.items():
            only = f"{e.labels_mean:.3f}"
            if e.labels_ci:
                only += f" [{e.labels_ci[0]:.2f}, {e.labels_ci[1]:.2f}]"
            est.add_row(
                name,
                f"{e.judge_mean:.3f}",
                f"{e.mean:.3f}",
                f"[{e.ci[0]:.3f}, {e.ci[1]:.3f}]",
                only,
                str(e.n_labelled),
                str(e.n_unlabelled),
            )
        console.print(est)
        console.print(
            "judge mean: raw, over every scored case · PPI mean: the judge's mean corrected by "
            "its bias on the labelled cases (n labelled, N unlabelled)",
            style="dim",
        )
    for name, part in calibration.metrics.items():
        if not part.disagreements:
            continue
        console.print(f"\n[bold]{name}[/bold]: worst disagreements (human vs judge)")
        for d in part.disagreements:
            console.print(
                printable(
                    f"  {d.case_id}: human {d.human:.2f} · judge {d.judge:.2f} · {d.question}"
                ),
                markup=False,
            )
            if d.reason:
                console.print(f"      {printable(d.reason)}", style="dim", markup=False)
    if written is not None:
        console.print(f"\ncalibration written to {written}", markup=False)
    if stored is not None:
        console.print(f"stored for judge {calibration.judge_key} at {stored}", markup=False)
