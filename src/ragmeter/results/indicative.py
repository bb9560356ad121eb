"""Which metrics the run's judge measures no better than chance: those are indicative only.

A judge's agreement with people on a metric (`RunInfo.calibration`: the user's own calibration,
or the figure the judge publishes on a public labelled set, such as the local judge's
`weights/reference_agreement.json`) is **near chance** when the lower bound of its 95% interval
is at most :data:`NEAR_CHANCE` above chance, on the rank-correlation scale: Spearman, Kendall
and kappa as they are (chance 0), AUROC and balanced accuracy as 2·(value − 0.5) (Somers' D).
Without an interval, the value itself must be at most twice that above chance. So the local
judge's answer relevancy (Spearman −0.03 [−0.15, 0.07] on MTRAG) is near chance and its
faithfulness (Spearman 0.56 [0.46, 0.63]) is not; a judge calibrated on too few labels to tell
it from chance is near chance too. A metric with no figure at all is not flagged (reports say
it is uncalibrated).

An indicative metric is still measured and shown; but the diagnosis names no stage to fix on it
alone, and the gate's absolute floor on it warns instead of failing unless asked to enforce it
(`[gate] enforce_indicative`, `ragmeter gate --enforce-indicative`, pytest
`--ragmeter-enforce-indicative`). Regressions against a baseline still fail.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..vocabulary import MetricName
from ._model import CalibrationNote

NEAR_CHANCE = 0.1
"""Largest lower bound above chance (rank-correlation scale) that still counts as near chance."""

_HALF_CHANCE = frozenset({"AUROC", "balanced accuracy"})
"""Measures whose chance level is 0.5 (the others': 0)."""


def above_chance(measure: str, value: float) -> float:
    """`value` of `measure` as distance above chance on the rank-correlation scale."""
    return 2 * (value - 0.5) if measure in _HALF_CHANCE else value


def near_chance(note: CalibrationNote) -> bool:
    """Whether the agreement `note` records is near chance (see the module docstring)."""
    if note.value is None:
        return False
    if note.ci is not None:
        return above_chance(note.measure, note.ci[0]) <= NEAR_CHANCE
    return above_chance(note.measure, note.value) <= 2 * NEAR_CHANCE


def indicative_why(note: CalibrationNote) -> str:
    """`its judge agrees with people near chance (Spearman -0.03 [-0.15, 0.07], n=309)`."""
    value = "—" if note.value is None else f"{note.value:.2f}"
    ci = f" [{note.ci[0]:.2f}, {note.ci[1]:.2f}]" if note.ci else ""
    return f"its judge agrees with people near chance ({note.measure} {value}{ci}, n={note.n})"


def indicative_metrics(notes: Iterable[CalibrationNote]) -> dict[MetricName, str]:
    """Each metric whose judge agrees with people near chance, with why in words."""
    return {note.metric: indicative_why(note) for note in notes if near_chance(note)}


__all__ = ["NEAR_CHANCE", "above_chance", "indicative_metrics", "indicative_why", "near_chance"]
