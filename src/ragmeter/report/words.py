"""Wording every report shares: counted nouns and what the judge spent."""

from __future__ import annotations

from ..results import RunResult


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`1 case`, `2 cases`, `1,204 cases`."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def spend_line(run: RunResult) -> str:
    """What the judge spent: calls, tokens, cost and the budget when one was set ('' when the
    judge made no calls, as the local judge)."""
    stats = run.run.judge_stats
    if not stats.get("calls") and not stats.get("cached_calls"):
        return ""
    tokens = stats.get("prompt_tokens", 0) + stats.get("completion_tokens", 0)
    line = f"judge spent: {counted(stats.get('calls', 0), 'call')}"
    line += f" ({stats.get('cached_calls', 0):,} cached), {counted(tokens, 'token')}"
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
