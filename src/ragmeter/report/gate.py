"""`ragmeter gate`'s verdict as text: the header, one line per check, warnings, the outcome."""

from __future__ import annotations

from ..gate import GateResult
from .safe import printable

_FAILURE_WORDS = {
    "measured": "a metric was not measured",
    "floor": "below a floor",
    "baseline": "a real regression against the baseline",
    "unchecked": "a check had too few cases to run",
}


def render_gate(result: GateResult, run: str) -> str:
    """The gate's verdict on `run` (as the user named it), one line each, ending in PASSED or
    FAILED and why."""
    against = f" against {result.baseline}" if result.baseline else " (no baseline)"
    lines = [
        f"ragmeter gate: {run}{against} · alpha {result.alpha} (Holm) · margin {result.margin}"
        + (f" · mean of {result.repeats} judgements" if result.repeats > 1 else "")
    ]
    lines += [printable(verdict.line) for verdict in result.verdicts]
    lines += [f"warning: {printable(warning)}" for warning in result.warnings]
    lines.append(_closing_line(result))
    return "\n".join(lines) + "\n"


def _closing_line(result: GateResult) -> str:
    if result.passed:
        return "PASSED with warnings (see above)" if result.warnings else "PASSED"
    return "FAILED: " + "; ".join(_FAILURE_WORDS[k] for k in result.failed_kinds) + " (see above)"
