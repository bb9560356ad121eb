"""Find judges by name through the `ragmeter.judges` entry points (built-ins included).

An entry point names a factory ``create(settings: JudgeSettings) -> Judge``; third-party
packages add judges by declaring one in their own metadata. A factory that is a
:class:`~ragmeter.judges.options.JudgeKind` declares its options model: its settings are
checked against it before it builds (the built-in judges are). The factory's judge is returned
as it is: `ragmeter.api` (the door it comes in by) adapts one that does not subclass
:class:`~ragmeter.judges.base.JudgeBase`.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points
from typing import TYPE_CHECKING

from .._exceptions import ConfigError
from .options import JudgeKind

if TYPE_CHECKING:
    from pydantic import BaseModel

    from ..config import JudgeSettings
    from .base import Judge

GROUP = "ragmeter.judges"


def available_judges() -> list[str]:
    """Names of every installed judge."""
    return sorted({ep.name for ep in entry_points(group=GROUP)})


def judge_factory(kind: str) -> Callable[[JudgeSettings], Judge]:
    """The factory of the judge named `kind`; an unknown name is a :class:`ConfigError`
    naming the installed ones."""
    for ep in entry_points(group=GROUP):
        if ep.name == kind:
            factory: Callable[[JudgeSettings], Judge] = ep.load()
            return factory
    names = ", ".join(available_judges()) or "none installed"
    raise ConfigError(f"unknown judge '{kind}'; available: {names}")


def check_judge_settings(settings: JudgeSettings) -> BaseModel | None:
    """The judge's settings checked as building it checks them (so a command stops on a bad
    key before any work): its options, or None for a plugin that declares none."""
    factory = judge_factory(settings.kind)
    return factory.check(settings) if isinstance(factory, JudgeKind) else None


def create_judge(settings: JudgeSettings) -> Judge:
    """Build the judge `settings.kind` names (returned as it is: `ragmeter.api`, the door it
    comes in by, adapts it when it must be)."""
    return judge_factory(settings.kind)(settings)
