"""`ragmeter vary`'s report (the varied set written) and `ragmeter vary check`'s (which
expected moves held and which broke)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich import box
from rich.table import Table
from rich.text import Text

from ..vary.check import DIRECTION_LABELS, reasons
from .safe import printable
from .words import counted

if TYPE_CHECKING:
    from rich.console import Console

    from ..vary import Variation
    from ..vary.check import PairOutcome, Status, VaryCheck

_SHOWN = 6
_SHOWN_PAIRS = 3
_NOT_JUDGED: tuple[tuple[Status, str], ...] = (
    ("unscored", "unscored"),
    ("not_checked", "not checked"),
)


def render_variation(variation: Variation, out: Path, console: Console) -> None:
    """Print what was written to `out` (originals and variants of each kind), the cases not
    varied and why, and the command to run next."""
    made = ", ".join(f"{kind} {n}" for kind, n in variation.made.items())
    originals = len(variation.cases) - variation.n_variants
    console.print(
        printable(
            f"wrote {len(variation.cases)} cases to {out}: {originals} originals and "
            f"{variation.n_variants} variants ({made})"
        ),
        soft_wrap=True,
        markup=False,
    )
    if variation.skipped:
        console.print("not varied:", markup=False)
    for skipped in variation.skipped:
        ids = ", ".join(skipped.case_ids[:_SHOWN])
        more = f", … ({len(skipped.case_ids)} in all)" if len(skipped.case_ids) > _SHOWN else ""
        console.print(
            printable(
                f"  {skipped.kind}: {counted(len(skipped.case_ids), 'case')}, {skipped.reason} "
                f"({ids}{more})"
            ),
            soft_wrap=True,
            markup=False,
        )
    fixed = all(case.answer is not None for case in variation.cases)
    how = "" if fixed else " --pipeline MODULE:FUNCTION (or --endpoint URL)"
    console.print(
        printable(f"next: ragmeter run --cases {out}{how} --out DIR, then ragmeter vary check DIR"),
        soft_wrap=True,
        markup=False,
    )


def render_vary_check(result: VaryCheck, console: Console, *, max_broken: int = 20) -> None:
    """Print the table of variant kind x metric, the broken pairs (largest move first, at
    most `max_broken`) and the reasons pairs were unscored or not checked."""
    console.print(
        printable(
            f"{result.source}: {result.variants} variants; 'same' within ±{result.tolerance:g}"
        ),
        soft_wrap=True,
        markup=False,
    )
    table = Table(
        title="Expected moves of each variant against its origin",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        collapse_padding=True,
    )
    table.add_column("kind / metric", no_wrap=True)
    table.add_column("expected", no_wrap=True)
    for name in ("pairs", "held", "broke", "unscored", "not checked"):
        table.add_column(name, justify="right")
    kind = None
    for row in result.rows:
        if row.kind != kind:
            kind = row.kind
            table.add_row(Text(printable(kind), style="bold"))
        table.add_row(
            f"  {row.metric}",
            DIRECTION_LABELS[row.expected],
            str(row.pairs),
            str(row.held),
            f"[bold red]{row.broke}[/bold red]" if row.broke else "0",
            str(row.unscored),
            str(row.not_checked),
        )
    console.print(table)
    broken = sorted(result.broken, key=_size_of_break, reverse=True)
    if broken:
        console.print(f"\nbroken ({len(broken)}), largest move first:", markup=False)
    for outcome in broken[:max_broken]:
        console.print(printable(f"  {_describe(outcome)}"), soft_wrap=True, markup=False)
    if len(broken) > max_broken:
        console.print(f"  … and {len(broken) - max_broken} more (--limit)", markup=False)
    for status, title in _NOT_JUDGED:
        found = reasons(result.outcomes, status)
        if found:
            console.print(f"\n{title}:", markup=False)
        for reason, n, ids in found:
            more = f", … ({len(ids)} variants)" if len(ids) > _SHOWN_PAIRS else ""
            console.print(
                printable(
                    f"  {counted(n, 'pair')}: {reason} ({', '.join(ids[:_SHOWN_PAIRS])}{more})"
                ),
                soft_wrap=True,
                markup=False,
            )


def _size_of_break(outcome: PairOutcome) -> float:
    after = outcome.variant_score or 0.0
    before = outcome.predicted if outcome.predicted is not None else outcome.origin_score
    return abs(after - (1.0 if before is None else before))


def _describe(outcome: PairOutcome) -> str:
    expected = DIRECTION_LABELS[outcome.expected]
    after = f"{outcome.variant_score:.2f}"
    if outcome.expected == "abstain":
        return f"{outcome.variant} {outcome.metric}: expected {expected}, scored {after} (answered)"
    before = f"{outcome.origin_score:.2f}" if outcome.origin_score is not None else "?"
    line = f"{outcome.variant} {outcome.metric}: expected {expected}, {before} → {after}"
    if outcome.predicted is not None:
        line += f" (the chunks' verdicts predict {outcome.predicted:.2f})"
    return line + f" [origin {outcome.origin}]"
