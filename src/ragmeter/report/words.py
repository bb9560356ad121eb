"""Wording every report shares: counted nouns (from :mod:`ragmeter._util.plural`, where core modules
can use them too), readable times and what the judge spent."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from .._util.plural import counted
from ..results import RunResult

__all__ = ["counted", "readable_time", "spend_dict", "spend_line"]

LOCAL_SPEND = "nothing (the local judge makes no calls)"
"""What a judge that makes no calls (:attr:`JudgeTraits.makes_calls`) spent: the local one."""
UNREPORTED_SPEND = "not reported (the judge kept no counters)"
_NOTHING = {"calls": 0, "cached_calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost": 0.0}


def spend_dict(run: RunResult) -> dict[str, Any]:
    """What the judge spent, as data (`judge_spend` in the JSON report): the run's counters, zero
    counters for the local judge (it keeps none, having nothing to count), none when another
    judge kept none; `line` is the sentence the other reports print."""
    stats = run.run.judge_stats
    if not _counted_calls(stats) and not run.judge.traits.makes_calls:
        stats = {**_NOTHING, **stats}
    return {**stats, "line": spend_line(run)}


def _no_calls(kind: str) -> str:
    return LOCAL_SPEND.replace("local", kind, 1)


def _counted_calls(stats: dict[str, Any]) -> bool:
    return "calls" in stats or "cached_calls" in stats


def spend_line(run: RunResult) -> str:
    """What the judge spent: calls, tokens, cost and the budget when one was set; 'nothing' for
    the local judge, 'not reported' for a judge that kept no counters."""
    stats = run.run.judge_stats
    if not _counted_calls(stats):
        nothing = not run.judge.traits.makes_calls
        return f"judge spent: {_no_calls(run.judge.kind) if nothing else UNREPORTED_SPEND}"
    tokens = stats.get("prompt_tokens", 0) + stats.get("completion_tokens", 0)
    line = f"judge spent: {counted(stats.get('calls', 0), 'call')}"
    line += f" ({stats.get('cached_calls', 0):,} cached), {counted(tokens, 'token')}"
    if stats.get("reused_results"):  # kept from an earlier run of the same judge on the case
        line += f", {counted(stats['reused_results'], 'result')} reused"
    if stats.get("cost") is not None:
        line += f", ${stats['cost']:.4f}"
    if stats.get("batch_calls"):
        line += f" ({counted(stats['batch_calls'], 'call')} through the batch API at batch prices"
        if stats.get("batch_saving"):
            line += f", ${stats['batch_saving']:.4f} saved"
        line += ")"
    if stats.get("max_cost") is not None:
        line += f" of a ${stats['max_cost']:g} budget"
        if stats.get("budget_refused_calls"):
            line += f" (stopped: {counted(stats['budget_refused_calls'], 'call')} not sent)"
    return line


def readable_time(iso: str) -> str:
    """`2026-12-03 18:15 UTC` for an ISO timestamp with a zone (`2026-12-03 18:15` without one);
    other text as it is, '—' for none."""
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        return iso or "—"
    if moment.tzinfo is None:
        return f"{moment:%Y-%m-%d %H:%M}"
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M} UTC"
