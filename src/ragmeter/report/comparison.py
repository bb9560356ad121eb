"""The comparison table's figures, written once for every format that shows them.

`ragmeter compare`, the Markdown report and the HTML report each lay out the table their own
way (a rich table, Markdown, HTML) from these rows, so they cannot show different numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..compare import Comparison, MetricDiff
from ..vocabulary import MetricName


@dataclass(frozen=True)
class DiffRow:
    """One metric's line of the comparison table, its figures as text."""

    metric: MetricName
    paired: str
    """Cases paired (scored in both runs)."""
    base: str
    """Base mean over the paired cases."""
    new: str
    """New mean over the paired cases."""
    diff: str
    """Mean paired difference new − base, signed."""
    ci: str
    """The difference's interval, or — without one."""
    p: str
    """The sign-flip test's p-value, or — without one."""
    significant: bool
    change: Literal["worse", "better"] | None
    """Which way a significant difference goes; None when it is not significant."""


def _num(value: float | None, *, signed: bool = False) -> str:
    if value is None:
        return "—"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def ci_label(comparison: Comparison) -> str:
    """The interval column's header, `95% CI` at the default confidence."""
    return f"{100 * comparison.confidence:.0f}% CI"


def diff_row(d: MetricDiff) -> DiffRow:
    """One metric's figures."""
    change: Literal["worse", "better"] | None = None
    if d.significant and d.diff is not None:
        change = "worse" if d.diff < 0 else "better"
    return DiffRow(
        metric=d.metric,
        paired=str(d.n_paired),
        base=_num(d.base_mean),
        new=_num(d.new_mean),
        diff=_num(d.diff, signed=True),
        ci="—" if d.ci is None else f"[{d.ci[0]:+.3f}, {d.ci[1]:+.3f}]",
        p="—" if d.p_value is None else f"{d.p_value:.3f}",
        significant=d.significant,
        change=change,
    )


def diff_rows(comparison: Comparison) -> list[DiffRow]:
    """Each compared metric's figures, in the comparison's order."""
    return [diff_row(d) for d in comparison.metrics.values()]


__all__ = ["DiffRow", "ci_label", "diff_row", "diff_rows"]
