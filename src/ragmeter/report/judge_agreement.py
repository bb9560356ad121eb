"""How far to trust the judge: the lines every report shows about its agreement with people."""

from __future__ import annotations

from typing import Any

from ..results import CalibrationNote, RunResult
from ..results.calibration import note_line
from ..results.indicative import near_chance
from ..vocabulary import METRICS, MetricName

UNCALIBRATED = "uncalibrated judge: `ragmeter calibrate LABELS` measures its agreement with people"
INDICATIVE = (
    " — near chance: indicative only (the diagnosis names no stage on it alone; the gate's "
    "floor on it warns)"
)
PUBLIC_ONLY = (
    "(public set): measured on public data, not yours; `ragmeter calibrate LABELS` measures "
    "it on your own labels"
)


def _judged_notes(run: RunResult) -> dict[MetricName, CalibrationNote | None]:
    """Each judged metric with its stored (or published) calibration, None when it has none."""
    notes = {note.metric: note for note in run.run.calibration}
    return {m: notes.get(m) for m in METRICS if m in run.summary.metrics}


def calibration_lines(run: RunResult) -> list[str]:
    """One line per judged metric: the stored (or published) agreement of this judge with
    people, marked indicative only when it is near chance, or that the metric's judge is
    uncalibrated."""
    if not run.run.calibration:
        return [UNCALIBRATED]
    judged = _judged_notes(run)
    lines = [
        f"{m} judge: uncalibrated"
        if note is None
        else note_line(note) + (INDICATIVE if near_chance(note) else "")
        for m, note in judged.items()
    ]
    if any(note is not None and note.reference for note in judged.values()):
        lines.append(PUBLIC_ONLY)
    return lines


def calibration_dict(run: RunResult) -> dict[str, Any]:
    """What `calibration_lines` says, as data: per judged metric `calibrated` false, or true
    with the measure, its value and interval, the number of labelled cases and where the labels
    came from (`reference`, the public set's name, with `public_set` true, or `labels_file`),
    and `indicative_only` when that agreement is near chance (`results.indicative`)."""
    metrics: dict[str, Any] = {}
    for metric, note in _judged_notes(run).items():
        if note is None:
            metrics[metric] = {"calibrated": False}
            continue
        metrics[metric] = {
            "calibrated": True,
            "measure": note.measure,
            "value": note.value,
            "ci": None if note.ci is None else list(note.ci),
            "n": note.n,
            "public_set": bool(note.reference),
            "reference": note.reference,
            "labels_file": note.labels_file,
            "indicative_only": near_chance(note),
        }
    return {"metrics": metrics, "lines": calibration_lines(run)}
