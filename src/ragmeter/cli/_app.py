"""The Typer application every command module registers on, and shared CLI helpers."""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn, TextIO

import typer
from rich.console import Console

from .._exceptions import (
    CaseFileError,
    ConfigError,
    JudgeUnavailable,
    OutputError,
    RagmeterError,
    RagmeterWarning,
    ResultsError,
    RunInterrupted,
)
from .._util.exit_codes import ExitCode
from .options import legacy_spelling


def _flags_without_type() -> None:
    """Typer 0.29 prints a type after every option in help, so flags read `--overwrite <bool>`
    as if they took a value (`--overwrite true` is refused). Flags show no type; every other
    option keeps Typer's."""
    option = getattr(typer.core, "TyperOption", None)
    shown = getattr(option, "display_type_rich", None)
    if option is None or shown is None:  # another Typer: its help stays as it is
        return

    def display_type_rich(self: typer.core.TyperOption, ctx: object) -> str | None:
        return None if self.is_flag else shown(self, ctx)

    option.display_type_rich = display_type_rich


_flags_without_type()


def _reflow_help_paragraphs() -> None:
    """Typer 0.29 keeps the single line breaks of a command's docstring in help, so each
    source line (wrapped at 95 columns) breaks again on an 80-column terminal. A paragraph's
    lines are joined for rich to wrap (one starting with \\b keeps its lines, as in click).
    Typer imports its rich help module only to print help, so the patch waits for that too."""
    command, group = (
        getattr(typer.core, "TyperCommand", None),
        getattr(typer.core, "TyperGroup", None),
    )
    if command is None or group is None:  # another Typer: its help stays as it is
        return

    def reflowed() -> None:
        from typer import rich_utils

        fix = getattr(rich_utils, "_fix_linebreaks", None)
        if fix is None or getattr(fix, "reflows", False):
            return

        def fix_linebreaks(paragraphs: list[str], markup_mode: Any) -> str:
            if markup_mode != "markdown":
                paragraphs = [p if p.startswith("\b") else p.replace("\n", " ") for p in paragraphs]
            return str(fix(paragraphs, markup_mode))

        fix_linebreaks.reflows = True  # type: ignore[attr-defined]
        rich_utils._fix_linebreaks = fix_linebreaks

    for cls in (command, group):
        shown = cls.format_help

        def format_help(self: Any, ctx: Any, formatter: Any, shown: Any = shown) -> None:
            reflowed()
            shown(self, ctx, formatter)

        cls.format_help = format_help


_reflow_help_paragraphs()

app = typer.Typer(
    name="ragmeter",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
    context_settings={"token_normalize_func": legacy_spelling},  # --max-failures is --limit
)

EXIT_LOAD_ERROR = int(ExitCode.USAGE)


def fail(message: str, code: int = EXIT_LOAD_ERROR) -> NoReturn:
    """Print one error line to stderr and exit; key-like tokens and URL passwords masked, line
    breaks (from a file or an endpoint) shown as escapes."""
    from .._util.redact import redact
    from ..report.safe import printable

    line = printable(redact(message)).replace("\n", "\\n")
    typer.echo(f"error: {line}", err=True)
    raise typer.Exit(code)


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn ragmeter's own errors, and Ctrl-C, into one-line messages and their exit codes,
    and its warnings into `warning: ...` lines on stderr."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always", RagmeterWarning)
            warnings.showwarning = _show_warning
            yield
    except (CaseFileError, ConfigError, ResultsError, OutputError) as exc:
        fail(str(exc))
    except JudgeUnavailable as exc:
        fail(f"{exc}; stopped, nothing written", ExitCode.JUDGE_UNAVAILABLE)
    except RunInterrupted as exc:
        fail(str(exc), ExitCode.INTERRUPTED)
    except KeyboardInterrupt:
        fail("interrupted; nothing written", ExitCode.INTERRUPTED)
    except RagmeterError as exc:
        fail(str(exc), ExitCode.FAILED)
    except OSError as exc:  # the environment (disk, permissions), where no check caught it
        where = f"{exc.filename}: " if exc.filename else ""
        fail(f"{where}{exc.strerror or exc}")


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    if issubclass(category, RagmeterWarning):
        typer.echo(f"warning: {message}", err=True)
    else:
        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def make_console() -> Console:
    """A stdout console as wide as the terminal, or as `COLUMNS` says when it is set (rich
    reads it); piped or captured output without `COLUMNS` gets 120 columns instead of 80."""
    console = Console()
    columns = os.environ.get("COLUMNS", "")
    if console.is_terminal or (columns.isdigit() and int(columns) > 0):
        return console
    return Console(width=120)


def _show_version(value: bool) -> None:
    if value:
        from .._version import __version__

        typer.echo(f"ragmeter {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: bool = typer.Option(
        False, "--version", callback=_show_version, is_eager=True, help="Show the version."
    ),
) -> None:
    """Measure a RAG pipeline: context recall and precision (retrieval), faithfulness and
    answer relevancy (generation), failed cases with evidence, and the stage to fix first."""
