"""Find judges by name through the `ragmeter.judges` entry points (built-ins included).

An entry point names a factory ``create(settings: JudgeSettings) -> Judge``; third-party
packages add judges by declaring one in their own metadata. The factory's judge is returned as
it is: `ragmeter.api` (the door it comes in by) adapts one that does not subclass
:class:`~ragmeter.judges.base.JudgeBase`.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import TYPE_CHECKING

from .._exceptions import ConfigError

if TYPE_CHECKING:
    from ..config import JudgeSettings
    from .base import Judge

GROUP = "ragmeter.judges"


def available_judges() -> list[str]:
    """Names of every installed judge."""
    return sorted({ep.name for ep in entry_points(group=GROUP)})


def create_judge(settings: JudgeSettings) -> Judge:
    """Build the judge `settings.kind` names."""
    for ep in entry_points(group=GROUP):
        if ep.name == settings.kind:
            return ep.load()(settings)  # adapted at the door (ragmeter.api) when it must be
    names = ", ".join(available_judges()) or "none installed"
    raise ConfigError(f"unknown judge '{settings.kind}'; available: {names}")
