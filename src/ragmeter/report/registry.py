"""Find report renderers by format name through the `ragmeter.renderers` entry points.

A renderer is ``render(report: ReportInputs) -> str``: it lays out what the caller computed
(:func:`ragmeter.report.inputs.report_inputs`) and computes nothing itself. Built-ins and
plugins are registered the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points
from typing import TYPE_CHECKING

from .._exceptions import ConfigError

if TYPE_CHECKING:
    from .inputs import ReportInputs

Renderer = Callable[["ReportInputs"], str]

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


def render(report: ReportInputs, name: str) -> str:
    """Render `report` in format `name`."""
    return get_renderer(name)(report)
