"""Renderers of one results model; they read a RunResult and never recompute scores."""

from .failures import Failure, collect_failures, explain
from .inputs import ReportInputs, report_inputs
from .terminal import render_terminal

__all__ = [
    "Failure",
    "ReportInputs",
    "collect_failures",
    "explain",
    "render_terminal",
    "report_inputs",
]
