"""Exceptions raised by ragmeter.

Every error a user can cause derives from one root, and its message says how to fix it::

    RagmeterError
    ├── CaseFileError      an eval-set or answers file cannot be loaded (file, line, field)
    ├── ConfigError        bad configuration or command-line options
    ├── PipelineError      the user's pipeline failed for a case (the case becomes unscored)
    ├── JudgeError         a judge could not produce a verdict (the metric becomes unscored)
    ├── JudgeUnavailable   the judge can produce no verdict at all (key rejected, model not
    │                      found, endpoint unreachable): the run stops at once
    ├── RunInterrupted     the user stopped the run (Ctrl-C); nothing was written
    ├── ResultsError       a results file is missing, corrupt or of an unknown schema version
    └── OutputError        a file cannot be written there (read-only, disk full, a directory
                           where a file belongs); also an OSError
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError


_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")


def _escape(match: re.Match[str]) -> str:
    return f"\\x{ord(match.group()):02x}"


class RagmeterError(Exception):
    """Root of every error ragmeter raises on purpose."""


class CaseFileError(RagmeterError):
    """An input file could not be loaded; names the file, line and field at fault."""

    def __init__(
        self,
        path: str | Path,
        message: str,
        *,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.path = str(path)
        self.line = line
        self.field = field
        self.message = message
        location = self.path
        if line is not None:
            location += f":{line}"
        if field is not None:
            location += f": field '{field}'"
        # One line, whatever the file holds: a key or value quoted from it may carry a line
        # break or an escape sequence.
        super().__init__(_CONTROL.sub(_escape, f"{location}: {message}"))


class ConfigError(RagmeterError):
    """Bad configuration or options."""


class PipelineError(RagmeterError):
    """The user's pipeline failed or returned something unusable for one case."""


class JudgeError(RagmeterError):
    """A judge could not produce a verdict."""


class JudgeUnavailable(RagmeterError):
    """The judge cannot judge anything (rejected key, unknown model, unreachable endpoint).

    Not a :class:`JudgeError`: a per-metric failure leaves one score unscored, this stops the
    whole run, since every further call would fail the same way and cost time or money."""


class RunInterrupted(RagmeterError):
    """The run was stopped by the user before it finished; no results were written."""


class ResultsError(RagmeterError):
    """A results file is missing, corrupt or of an unsupported schema version."""


class OutputError(RagmeterError, OSError):
    """A file could not be written (nothing was: the previous file, if any, is unchanged).

    Also an :class:`OSError`, as the error it replaces, for code that catches those."""


def describe_validation_error(exc: ValidationError) -> str:
    """The first problem of a pydantic error as `field 'a.b': message`."""
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    return f"field '{where}': {first['msg']}"
