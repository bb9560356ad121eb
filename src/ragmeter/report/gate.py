"""`ragmeter gate`'s verdict as text: the header (with the floors' mode), one line per check
naming its kind, the warnings, the outcome."""

from __future__ import annotations

from ..compare.gate import GateResult
from .safe import printable

_FAILURE_WORDS = {
    "measured": "a metric was not measured",
    "floor": "a mean significantly below its floor",
    "literal floor": "a mean below its floor (literal floors)",
    "baseline": "a real regression against the baseline",
    "unchecked": "a check had too few cases to run",
}


def render_gate(result: GateResult, run: str) -> str:
    """The gate's verdict on `run` (as the user named it), one line each, ending in PASSED or
    FAILED and why."""
    against = f" against {result.baseline}" if result.baseline else " (no baseline)"
    floors = "literal" if result.literal else "noise-aware"
    lines = [
        f"ragmeter gate: {run}{against} · floors {floors} · alpha {result.alpha} (Holm) · "
        f"margin {result.margin}"
        + (f" · mean of {result.repeats} judgements" if result.repeats > 1 else "")
    ]
    lines += [printable(line) for verdict in result.verdicts for line in verdict.lines]
    lines += [f"warning: {printable(warning)}" for warning in result.warnings]
    lines.append(_closing_line(result))
    return "\n".join(lines) + "\n"


def _closing_line(result: GateResult) -> str:
    if result.passed:
        return "PASSED with warnings (see above)" if result.warnings else "PASSED"
    kinds = ["literal floor" if k == "floor" and result.literal else k for k in result.failed_kinds]
    return "FAILED: " + "; ".join(_FAILURE_WORDS[k] for k in kinds) + " (see above)"
