"""What a report shows besides the run itself, computed once by the caller.

Renderers only read a :class:`ReportInputs`: the judge noise and the comparison with a
baseline are measured here, once, so every format shows the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..compare import Comparison, compare_runs
from ..compare.noise import NoiseSummary, measure_noise
from ..results import RunResult

DEFAULT_MAX_FAILURES = 10
"""Failed cases a report lists unless told otherwise (`--limit`)."""


@dataclass(frozen=True)
class ReportInputs:
    """A run and what its report shows beside it; every renderer reads one of these."""

    run: RunResult
    noise: NoiseSummary | None = None
    """Judge noise of a re-judged run (`--repeats`); None when each case was judged once."""
    comparison: Comparison | None = None
    """The run compared with a baseline; None without one."""
    max_failures: int = DEFAULT_MAX_FAILURES
    """Failed cases to list, worst first."""


def report_inputs(
    run: RunResult,
    baseline: RunResult | None = None,
    *,
    max_failures: int = DEFAULT_MAX_FAILURES,
) -> ReportInputs:
    """Measure `run`'s noise and compare it with `baseline` for its report.

    The comparison is forced: a report asked for with a baseline shows the differences even
    when the judges or eval sets differ, and lists why they may not be comparable above them
    (`Comparison.problems`, with `forced` set). Runs with no case in common are not compared.
    """
    comparison = None if baseline is None else compare_runs(baseline, run, force=True)
    return ReportInputs(
        run=run, noise=measure_noise(run), comparison=comparison, max_failures=max_failures
    )


__all__ = ["DEFAULT_MAX_FAILURES", "ReportInputs", "report_inputs"]
