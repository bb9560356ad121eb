"""`ragmeter run --dry-run`'s report: the judge's expected calls, tokens and cost."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table

if TYPE_CHECKING:
    from rich.console import Console

    from ..clients.cost import Estimate


def render_dry_run(estimate: Estimate | None, console: Console, *, judge: str, cases: int) -> None:
    """Print the estimate per metric and in total, with its cost; `estimate` None says that
    `judge` makes no paid calls for the `cases`."""
    if estimate is None:
        console.print(f"judge '{judge}' makes no paid calls: {cases} cases cost nothing")
        return
    table = Table(title=f"Dry run: {estimate.cases} cases, judge {estimate.model}")
    for column in ("metric", "calls", "prompt tokens", "completion tokens"):
        table.add_column(column, justify="left" if column == "metric" else "right")
    for metric, part in estimate.by_metric.items():
        table.add_row(
            metric, f"{part.calls:,}", f"{part.prompt_tokens:,}", f"{part.completion_tokens:,}"
        )
    table.add_row(
        "total",
        f"{estimate.calls:,}",
        f"{estimate.prompt_tokens:,}",
        f"{estimate.completion_tokens:,}",
        style="bold",
    )
    console.print(table)
    cost = "unknown (no price for this model; add one under [judge.prices])"
    if estimate.cost is not None:
        cost = f"${estimate.cost:.4f}" + (" at batch prices" if estimate.batch else "")
    # markup=False: "[judge.prices]" is text to type, not a rich style tag
    console.print(f"estimated cost: {cost} · tokens counted by {estimate.tokenizer}", markup=False)
