"""The llama server's default threads: the cores nothing else is using when it starts."""

from __future__ import annotations

import pytest

from ragmeter.judges.llama.server import ServerOptions, idle_cores


@pytest.mark.parametrize(
    ("cores", "load", "threads"),
    [
        (2, 0.1, 2),  # an idle machine: every core
        (2, 0.4, 2),
        (2, 0.6, 1),  # one core busy elsewhere
        (2, 8.0, 1),  # a busy machine: one thread, never none
        (4, 1.2, 3),
        (1, 0.0, 1),
    ],
)
def test_threads_default_to_the_idle_cores(cores, load, threads):
    assert idle_cores(cores, load) == threads


def test_given_threads_are_kept():
    assert ServerOptions(threads=3).threads == 3
    assert ServerOptions().threads >= 1
