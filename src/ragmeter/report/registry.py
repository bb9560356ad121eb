"""Find report renderers by format name through the `ragmeter.renderers` entry points.

A renderer is ``render(run: RunResult, *, baseline: RunResult | None = None) -> str``;
built-ins and plugins are registered the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points
from typing import TYPE_CHECKING

from .._exceptions import ConfigError

if TYPE_CHECKING:
    from ..results import RunResult

    Renderer = Callable[..., str]

GROUP = "ragmeter.renderers"


def available_formats() -> list[str]:
    """Names of every installed report format."""
    return sorted({ep.name for ep in entry_points(group=GROUP)})


def get_renderer(name: str) -> Renderer:
    """The renderer registered as `name`."""
    for ep in entry_points(group=GROUP):
        if ep.name == name:
            return ep.load()
    raise ConfigError(
        f"unknown report format '{name}'; available: {', '.join(available_formats())}"
    )


def render(run: RunResult, name: str, *, baseline: RunResult | None = None) -> str:
    """Render `run` in format `name`."""
    return get_renderer(name)(run, baseline=baseline)
