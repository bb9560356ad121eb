"""The Typer application every command module registers on, and shared CLI helpers."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import typer
from rich.console import Console

from .._exceptions import (
    CaseFileError,
    ConfigError,
    JudgeUnavailable,
    OutputError,
    RagmeterError,
    ResultsError,
    RunInterrupted,
)
from ..exit_codes import ExitCode
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
    from ..redact import redact
    from ..report.safe import printable

    line = printable(redact(message)).replace("\n", "\\n")
    typer.echo(f"error: {line}", err=True)
    raise typer.Exit(code)


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn ragmeter's own errors, and Ctrl-C, into one-line messages and their exit codes."""
    try:
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
