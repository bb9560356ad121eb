"""The progress bar draws on a terminal and writes nothing at all anywhere else."""

import io
import sys

import pytest

from ragmeter.cli.progress import run_progress


class _Judge:
    def stats(self) -> dict:
        return {}


def _run_bar(monkeypatch: pytest.MonkeyPatch, **env: str) -> str:
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "TERM"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    with run_progress(3, _Judge()) as advance:  # type: ignore[arg-type]
        for _ in range(3):
            advance(None)  # type: ignore[arg-type]
    return err.getvalue()


def test_no_bar_and_no_stray_empty_line_when_stderr_is_not_a_terminal(monkeypatch):
    assert _run_bar(monkeypatch) == ""  # rich's Progress ended a file with "\n"


def test_a_terminal_gets_the_bar(monkeypatch):
    drawn = _run_bar(monkeypatch, TTY_COMPATIBLE="1", TTY_INTERACTIVE="1", TERM="xterm")
    assert "judging" in drawn and "3/3" in drawn
