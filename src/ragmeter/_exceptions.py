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

and one warning category, shown by the command line as `warning: ...`::

    RagmeterWarning
    └── CaseFileWarning    an input file loaded, with something the user should know (fields
                           kept under metadata)
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
        self.more: list[CaseFileError] = []
        """The file's further problems found in the same pass (at most :data:`MAX_LISTED`)."""
        self.more_count = 0
        """How many further problems there were, listed or not."""
        # One line, whatever the file holds: a key or value quoted from it may carry a line
        # break or an escape sequence.
        super().__init__(_CONTROL.sub(_escape, f"{location}: {message}"))

    @classmethod
    def of_many(cls, problems: list[CaseFileError], count: int) -> CaseFileError:
        """One error for `count` problems of a file, the first of `problems` leading and the
        rest listed after it (`count` may exceed the problems kept)."""
        first = problems[0]
        if count == 1:
            return first
        error = cls(first.path, first.message, line=first.line, field=first.field)
        error.more, error.more_count = problems[1:], count - 1
        listed = "; ".join(_without_path(p) for p in error.more)
        rest = count - len(problems)
        tail = f"; and {rest} more" if rest else ""
        noun = "problem" if count == 2 else "problems"
        error.args = (f"{error.args[0]} (and {count - 1} more {noun}: {listed}{tail})",)
        return error


MAX_LISTED = 10
"""Problems of one file an error lists (it counts the rest)."""


def _without_path(error: CaseFileError) -> str:
    return str(error).removeprefix(error.path).removeprefix(":").strip()


class RagmeterWarning(UserWarning):
    """Root of the warnings ragmeter issues (the command line prints them as `warning: ...`)."""


class CaseFileWarning(RagmeterWarning):
    """An input file loaded, with something the user should know (e.g. fields kept under
    metadata)."""


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
