"""Exit codes of the command line, in one place (imported by the CLI at start-up: keep light)."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """Exit codes of `ragmeter run`, `demo`, `gate` and the other commands."""

    OK = 0
    """Every metric was measured (run), or no regression (gate)."""
    FAILED = 1
    """The gate failed: a regression, a floor breach, a metric it could not measure, or a
    check with too few cases to run."""
    USAGE = 2
    """A file, option or configuration could not be used; nothing was written. For `gate`
    and `compare`: runs that cannot be compared (another judge or eval set, nothing paired)."""
    INCOMPLETE = 3
    """Results were written, but a metric has too few scored cases to count as measured."""
    BUDGET = 4
    """Results were written, but `--max-cost` left results unjudged."""
    JUDGE_UNAVAILABLE = 5
    """The judge refused the key or model, its quota is spent, it rate limits past the
    patience, or it could not be reached; nothing was written."""
    INTERRUPTED = 130
    """Stopped with Ctrl-C; nothing was written and earlier results are intact."""


EXIT_CODES_HELP = (
    "Exit codes: 0 every metric measured; 2 bad input or options (nothing written); "
    "3 a metric had too few scored cases (results written); 4 --max-cost left results "
    "unjudged (results written); 5 the judge refused the key or model, its quota is spent, it "
    "rate limits past --patience or was unreachable (nothing written); 130 interrupted "
    "(nothing written)."
)
