"""How far to trust the judge: the lines every report shows about its agreement with people."""

from __future__ import annotations

from ..results import RunResult
from ..vocabulary import METRICS

UNCALIBRATED = "uncalibrated judge: `ragmeter calibrate LABELS` measures its agreement with people"
PUBLIC_ONLY = (
    "(public set): measured on public data, not yours; `ragmeter calibrate LABELS` measures "
    "it on your own labels"
)


def calibration_lines(run: RunResult) -> list[str]:
    """One line per judged metric: the stored (or published) agreement of this judge with
    people, or that the metric's judge is uncalibrated."""
    from ..calibrate import note_line

    notes = {note.metric: note for note in run.run.calibration}
    if not notes:
        return [UNCALIBRATED]
    judged = [m for m in METRICS if m in run.summary.metrics]
    lines = [note_line(notes[m]) if m in notes else f"{m} judge: uncalibrated" for m in judged]
    if any(notes[m].reference for m in judged if m in notes):
        lines.append(PUBLIC_ONLY)
    return lines
