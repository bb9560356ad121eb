"""A judge's calibration against human labels, as stored: agreement per metric
(:class:`MetricCalibration`), the cases where judge and people disagree most, the other scoring
an LLM judge could use, and the prediction-powered estimate of each mean; kept under the
judge's fingerprint key (:func:`store_calibration`, :func:`find_calibration`) so later runs with
the same judge can say how far to trust it. Measuring it is :mod:`ragmeter.run.calibrate`'s job.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from .._exceptions import ResultsError
from .._util.paths import cache_root
from .._version import __version__
from ..cases.labels import LabelKind
from ..stats.agreement import Measure
from ..stats.ppi import PPIEstimate
from ..vocabulary import METRICS, JudgeFingerprint, MetricName
from ._files import write_atomic
from ._model import CalibrationNote
from .store import read_json_file

CALIBRATION_VERSION = 1


CALIBRATION_FILE = "calibration.json"


class Disagreement(BaseModel):
    """A case where the judge and people disagree most."""

    case_id: str
    human: float
    judge: float
    question: str = ""
    answer: str = ""
    reason: str = ""
    """What the judge based its score on (first failing claim, note...)."""


Scoring = Literal["zero_one", "graded"]
"""How an LLM judge turns a metric's binary verdicts into a case's score: the share of claims
(or reference points) judged supported, or the mean of their P(supported)."""


SCORING_NAME: dict[str, str] = {"zero_one": "0/1", "graded": "graded"}


SCORING_TEXT: dict[tuple[str, str], str] = {
    ("faithfulness", "zero_one"): "share of supported claims",
    ("faithfulness", "graded"): "mean P(supported) over the claims",
    ("context_recall", "zero_one"): "share of supported reference points",
    ("context_recall", "graded"): "mean P(supported) over the reference points",
}


class AlternativeScoring(BaseModel):
    """The metric scored the other way from the same verdicts (no extra calls), measured on
    the same cases."""

    scoring: Scoring
    """`graded` when the judge scored 0/1, `zero_one` when it scored graded."""
    measures: list[Measure] = Field(default_factory=list)
    """The same measures as the metric's, on the alternative scores."""
    difference: Measure | None = None
    """The headline measure (Spearman or AUROC) of the alternative minus as scored, with a
    paired bootstrap interval (the same resampled cases for both)."""


class MetricCalibration(BaseModel):
    """Agreement of a judge with people on one metric."""

    metric: MetricName
    kind: LabelKind
    """`binary` (0/1 labels) or `graded`."""
    n: int
    """Labelled cases the judge scored (the agreement is measured on these)."""
    n_unscored: int = 0
    """Labelled cases the judge left unscored (left out of the agreement)."""
    unscored_reasons: dict[str, int] = Field(default_factory=dict)
    threshold: float | None = None
    """Binary labels: the judge's decision threshold (score ≥ threshold means positive)."""
    measures: list[Measure] = Field(default_factory=list)
    """Spearman and Kendall (graded), or AUROC, balanced accuracy and kappa (binary)."""
    disagreements: list[Disagreement] = Field(default_factory=list)
    """The worst disagreements, largest gap first."""
    scoring: Scoring | Literal["mixed"] | None = None
    """How the judge scored the cases (LLM judges' faithfulness and context recall): `graded`,
    `zero_one`, or `mixed` (graded where the reply gave probabilities, else 0/1); None when
    the judge has no such choice (other metrics and judges)."""
    alternative: AlternativeScoring | None = None
    """The other scoring of the same verdicts, when every verdict carries its P(supported)."""
    labels_file: str = ""
    created_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat())

    @property
    def headline(self) -> Measure | None:
        """Spearman for graded labels, AUROC for binary ones."""
        wanted = "Spearman" if self.kind == "graded" else "AUROC"
        return next((m for m in self.measures if m.name == wanted), None)

    def line(self) -> str:
        """`faithfulness judge: Spearman 0.62 [0.55, 0.69] vs people on 200 cases`."""
        return note_line(self.note())

    def note(self) -> CalibrationNote:
        head = self.headline
        return CalibrationNote(
            metric=self.metric,
            measure=head.name if head else ("Spearman" if self.kind == "graded" else "AUROC"),
            value=head.value if head else None,
            ci=head.ci if head else None,
            n=self.n,
            labels_file=self.labels_file,
        )


class Calibration(BaseModel):
    """A judge's agreement with human labels (`calibration.json`)."""

    version: int = CALIBRATION_VERSION
    judge: JudgeFingerprint
    """The judge that was calibrated."""
    judge_key: str
    """`judge.key()`: where the calibration is stored."""
    ragmeter_version: str = __version__
    n_cases: int = 0
    """Labelled cases."""
    metrics: dict[MetricName, MetricCalibration] = Field(default_factory=dict)
    estimates: dict[MetricName, PPIEstimate] = Field(default_factory=dict)
    """Prediction-powered means of a run (only when calibrated on a run's cases)."""

    def notes(self) -> list[CalibrationNote]:
        return [self.metrics[m].note() for m in METRICS if m in self.metrics]

    def scoring_lines(self, metric: MetricName) -> list[str]:
        """How the judge scored `metric`, and how the other scoring of the same verdicts agrees
        with people (and what to set to use it); [] when the judge has no such choice."""
        part = self.metrics.get(metric)
        if part is None or part.scoring is None:
            return []
        if part.scoring == "mixed":
            return [
                f"{metric}: scored as {_scoring_text(metric, 'graded')} where the reply gave "
                f"probabilities, else as {_scoring_text(metric, 'zero_one')}"
            ]
        line = f"{metric}: scored as {_scoring_text(metric, part.scoring)}"
        configured = graded_setting(self.judge)
        if part.scoring == "zero_one" and configured is not None and metric in configured:
            line += "; graded is set, but no verdict carried a probability"
        lines = [line]
        if part.alternative is not None:
            lines.append(_alternative_line(metric, part, part.alternative, configured))
        return lines


def _scoring_text(metric: MetricName, scoring: Scoring) -> str:
    """`share of supported claims (0/1)`."""
    return f"{SCORING_TEXT[metric, scoring]} ({SCORING_NAME[scoring]})"


def _alternative_line(
    metric: MetricName,
    part: MetricCalibration,
    alt: AlternativeScoring,
    configured: frozenset[str] | None,
) -> str:
    """`graded (mean P(supported) over the claims) instead: AUROC 0.71 [0.55, 0.85] vs 0.64
    as scored, difference +0.07 [-0.05, 0.20] — set graded = [...] under [judge] to use it`."""
    head = part.headline
    name = head.name if head else ("Spearman" if part.kind == "graded" else "AUROC")
    other = next((m for m in alt.measures if m.name == name), None)
    text = f"{SCORING_NAME[alt.scoring]} ({SCORING_TEXT[metric, alt.scoring]}) instead: {name} "
    text += "—" if other is None or other.value is None else f"{other.value:.2f}"
    if other is not None and other.ci:
        text += f" [{other.ci[0]:.2f}, {other.ci[1]:.2f}]"
    text += " vs " + ("—" if head is None or head.value is None else f"{head.value:.2f}")
    text += " as scored"
    diff = alt.difference
    if diff is None or diff.value is None:
        return text + " — not comparable on these labels"
    text += f", difference {diff.value:+.2f}"
    if diff.ci:
        text += f" [{diff.ci[0]:+.2f}, {diff.ci[1]:+.2f}]"
    noise = diff.ci is None or diff.ci[0] <= 0.0 <= diff.ci[1]
    if abs(diff.value) < 5e-3:
        return text + " — the same; keep the current scoring"
    if diff.value < 0:
        return text + f" — worse{' (within noise)' if noise else ''}; keep the current scoring"
    wanted = set(configured or ())
    if alt.scoring == "graded":
        wanted.add(metric)
    else:
        wanted.discard(metric)
    setting = f"graded = {json.dumps(sorted(wanted))} under [judge]"
    return text + f" — better{' (within noise)' if noise else ''}; set {setting} to use it"


def note_line(note: CalibrationNote) -> str:
    """One readable line for a stored calibration of one metric."""
    value = "—" if note.value is None else f"{note.value:.2f}"
    ci = f" [{note.ci[0]:.2f}, {note.ci[1]:.2f}]" if note.ci else ""
    if note.reference:
        return (
            f"{note.metric} judge: {note.measure} {value}{ci} vs people on {note.n} "
            f"{note.reference} cases (public set)"
        )
    return f"{note.metric} judge: {note.measure} {value}{ci} vs people on {note.n} cases"


def calibrations_dir() -> Path:
    """``$RAGMETER_CACHE_DIR/calibrations``, else ``~/.cache/ragmeter/calibrations``."""
    return cache_root() / "calibrations"


def save_calibration(calibration: Calibration, out_dir: str | Path) -> Path:
    """Write `out_dir/calibration.json` atomically; return its path."""
    path = Path(out_dir) / CALIBRATION_FILE
    write_atomic(path, calibration.model_dump_json(indent=2))
    return path


def load_calibration(path: str | Path) -> Calibration:
    """Read a calibration file (or `DIR/calibration.json`)."""
    path, data = read_json_file(
        path, CALIBRATION_FILE, "no calibration; run `ragmeter calibrate` first"
    )
    version = data.get("version") if isinstance(data, dict) else None
    if isinstance(version, int) and version > CALIBRATION_VERSION:
        raise ResultsError(f"{path}: calibration version is newer; upgrade ragmeter")
    try:
        return Calibration.model_validate(data)
    except ValidationError as exc:
        raise ResultsError(f"{path}: not a valid calibration ({exc.errors()[0]['msg']})") from exc


def store_calibration(calibration: Calibration, root: str | Path | None = None) -> Path:
    """Store under the judge's key; metrics calibrated before and absent now are kept."""
    path = Path(root or calibrations_dir()) / f"{calibration.judge_key}.json"
    merged = calibration.model_copy(deep=True)
    if path.exists():
        try:
            previous = load_calibration(path)
        except ResultsError:
            previous = None
        if previous is not None:
            merged.metrics = {**previous.metrics, **calibration.metrics}
            merged.estimates = {}
    else:
        merged.estimates = {}
    write_atomic(path, merged.model_dump_json(indent=2))
    return path


def find_calibration(
    fingerprint: JudgeFingerprint, root: str | Path | None = None
) -> Calibration | None:
    """The stored calibration of exactly this judge configuration, if any."""
    path = Path(root or calibrations_dir()) / f"{fingerprint.key()}.json"
    if not path.is_file():
        return None
    try:
        found = load_calibration(path)
    except ResultsError:
        return None
    return found if found.judge.key() == fingerprint.key() else None


def graded_setting(judge: JudgeFingerprint) -> frozenset[str] | None:
    """The metrics the judge scores from verdict probabilities (its `graded` setting); None
    when its scores are not shares of verdicts (:attr:`JudgeTraits.graded`)."""
    graded = judge.traits.graded
    return None if graded is None else frozenset(graded)


__all__ = [
    "CALIBRATION_FILE",
    "AlternativeScoring",
    "Calibration",
    "Disagreement",
    "MetricCalibration",
    "Scoring",
    "calibrations_dir",
    "find_calibration",
    "graded_setting",
    "load_calibration",
    "note_line",
    "save_calibration",
    "store_calibration",
]
