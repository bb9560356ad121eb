"""A bound on how long `ragmeter run` takes to exit once its work is done.

Python's exit waits for every non-daemon thread and every `concurrent.futures` worker, so a
user's pipeline that left one hanging (a `ThreadPoolExecutor` task that never returns, a
`threading.Thread` of its own) would keep a finished run from ever exiting, results written
and report printed. :func:`bounded_exit`
starts a daemon watchdog as the command ends: if the process is still there after
:data:`EXIT_GRACE_SECONDS`, it names the threads still running, flushes the output and ends
the process with the command's exit code. A process that exits in time never sees it, and
only the `ragmeter` command's own process is watched: a caller running the command in-process
(a test's CliRunner) is left alone.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar, cast

import typer

from .._util.plural import counted

EXIT_GRACE_SECONDS = 10.0
"""How long the process may take to exit after the command is done."""


F = TypeVar("F", bound=Callable[..., Any])


def exits_in_bounded_time(command: F) -> F:
    """A command run under :func:`bounded_exit` (put below `@app.command()`)."""

    @functools.wraps(command)
    def bounded(*args: Any, **kwargs: Any) -> Any:
        with bounded_exit():
            return command(*args, **kwargs)

    return cast(F, bounded)


@contextmanager
def bounded_exit(seconds: float = EXIT_GRACE_SECONDS) -> Iterator[None]:
    """Run the block; however it ends, the process then has `seconds` to exit (see the
    module docstring)."""
    code = 1
    try:
        yield
        code = 0
    except typer.Exit as exc:
        code = exc.exit_code
        raise
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
        raise
    except KeyboardInterrupt:
        code = 130
        raise
    finally:
        if Path(sys.argv[0]).stem == "ragmeter":
            watchdog = threading.Thread(
                target=_exit_after, args=(seconds, code), name="ragmeter-exit", daemon=True
            )
            watchdog.start()


def _exit_after(seconds: float, code: int) -> None:
    time.sleep(seconds)
    # Daemon threads too: one a pipeline thread starts is a daemon like its parent, and
    # concurrent.futures joins its workers at exit all the same.
    stuck = [
        thread.name
        for thread in threading.enumerate()
        if thread.is_alive()
        and thread not in (threading.main_thread(), threading.current_thread())
        and not thread.name.startswith("ragmeter-")
    ]
    shown = ", ".join(stuck[:5]) + (f" and {len(stuck) - 5} more" if len(stuck) > 5 else "")
    waited = f"the run ended {seconds:g} s ago"
    try:
        sys.stdout.flush()
        sys.stderr.write(
            f"warning: exiting without waiting for {counted(len(stuck), 'thread')} still "
            f"running, most likely started by the pipeline ({shown}); {waited}\n"
            if stuck
            else f"warning: exiting without waiting any longer; {waited}\n"
        )
        sys.stderr.flush()
    finally:
        os._exit(code)
