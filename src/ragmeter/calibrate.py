"""Calibrate a judge against human labels: agreement per metric, stored by judge fingerprint.

:func:`calibrate` judges every labelled case and measures agreement; :func:`calibrate_run`
measures it on the cases of an existing run that people labelled, and adds a
prediction-powered estimate of each metric's mean. Calibrations are stored under the judge's
fingerprint key so later runs with the same judge can say how far to trust it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from ._exceptions import ConfigError, ResultsError
from ._version import __version__
from .agreement import DEFAULT_RESAMPLES, Measure, binary_measures, graded_measures
from .judges.base import METRICS, Judge, JudgeFingerprint, MetricName, MetricResult
from .labels import LabelKind, LabelledCase, label_kind, labelled_metrics
from .paths import cache_root
from .ppi import PPIEstimate, ppi_mean
from .results import CalibrationNote, CaseResult, RunResult, read_json_file, write_atomic

CALIBRATION_VERSION = 1
CALIBRATION_FILE = "calibration.json"
DEFAULT_THRESHOLD = 0.5


class Disagreement(BaseModel):
    """A case where the judge and people disagree most."""

    case_id: str
    human: float
    judge: float
    question: str = ""
    answer: str = ""
    reason: str = ""
    """What the judge based its score on (first failing claim, note...)."""


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


def decision_threshold(judge: object, metric: MetricName, default: float | None = None) -> float:
    """The score at or above which `judge` says yes on `metric` (`decision_thresholds`)."""
    if default is not None:
        return default
    declared = getattr(judge, "decision_thresholds", None)
    if isinstance(declared, dict) and metric in declared:
        return float(declared[metric])
    return DEFAULT_THRESHOLD


def measure_metric(
    metric: MetricName,
    results: Sequence[tuple[CaseResult, float]],
    *,
    kind: LabelKind | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    worst: int = 5,
    resamples: int = DEFAULT_RESAMPLES,
    labels_file: str = "",
) -> MetricCalibration:
    """Agreement on `metric` of judged cases with their human labels."""
    scored = [(c, c.score(metric), h) for c, h in results if c.score(metric) is not None]
    reasons: dict[str, int] = {}
    for case, _ in results:
        result = case.metrics.get(metric)
        if result is not None and result.score is None:
            reason = result.unscored_reason or "unscored"
            reasons[reason] = reasons.get(reason, 0) + 1
    kind = kind or label_kind(h for _, h in results)
    judge = [float(s) for _, s, _ in scored]  # type: ignore[arg-type]
    human = [h for _, _, h in scored]
    if kind == "graded":
        measures = graded_measures(judge, human, resamples=resamples)
    else:
        measures = binary_measures(judge, human, threshold=threshold, resamples=resamples)
    ranked = sorted(scored, key=lambda t: -abs(float(t[1]) - t[2]))  # type: ignore[arg-type]
    return MetricCalibration(
        metric=metric,
        kind=kind,
        n=len(scored),
        n_unscored=len(results) - len(scored),
        unscored_reasons=reasons,
        threshold=threshold if kind == "binary" else None,
        measures=measures,
        disagreements=[
            Disagreement(
                case_id=c.id,
                human=h,
                judge=float(s),  # type: ignore[arg-type]
                question=_short(c.question, 160),
                answer=_short(c.answer, 200),
                reason=_reason(c.metrics[metric]),
            )
            for c, s, h in ranked[:worst]
            if abs(float(s) - h) > 1e-9  # type: ignore[arg-type]
        ],
        labels_file=labels_file,
    )


async def calibrate_async(
    cases: Sequence[LabelledCase],
    judge: Judge,
    *,
    metrics: Sequence[MetricName] | None = None,
    concurrency: int = 4,
    threshold: float | None = None,
    worst: int = 5,
    resamples: int = DEFAULT_RESAMPLES,
    labels_file: str = "",
    on_case: Callable[[CaseResult], None] | None = None,
) -> Calibration:
    """Judge every labelled case on the metrics it has labels for and measure agreement."""
    from .pipeline import PrecomputedPipeline
    from .runner import evaluate_async

    wanted = tuple(metrics) if metrics else labelled_metrics(cases)
    if not wanted:
        raise ConfigError("the labelled cases have no labels for the requested metrics")
    run = await evaluate_async(
        [c.to_case() for c in cases],
        PrecomputedPipeline(),
        judge,
        metrics=wanted,
        concurrency=concurrency,
        on_case=on_case,
    )
    labels = {c.id: c.labels for c in cases}
    calibration = Calibration(judge=run.judge, judge_key=run.judge.key(), n_cases=len(cases))
    for metric in wanted:
        pairs = [(r, labels[r.id][metric]) for r in run.cases if metric in labels[r.id]]
        if not pairs:
            continue
        calibration.metrics[metric] = measure_metric(
            metric,
            pairs,
            threshold=decision_threshold(judge, metric, threshold),
            worst=worst,
            resamples=resamples,
            labels_file=labels_file,
        )
    return calibration


def calibrate(cases: Sequence[LabelledCase], judge: Judge, **kwargs: object) -> Calibration:
    """Synchronous wrapper of :func:`calibrate_async` (closes the judge afterwards)."""

    async def go() -> Calibration:
        try:
            return await calibrate_async(cases, judge, **kwargs)  # type: ignore[arg-type]
        finally:
            close = getattr(judge, "aclose", None)
            if callable(close):
                await close()

    return asyncio.run(go())


def calibrate_run(
    run: RunResult,
    labels: dict[str, dict[MetricName, float]],
    *,
    threshold: float | None = None,
    worst: int = 5,
    resamples: int = DEFAULT_RESAMPLES,
    labels_file: str = "",
    confidence: float = 0.95,
) -> Calibration:
    """Agreement on the run's cases that people labelled, and a prediction-powered mean per
    metric (judge scores on every case, corrected by the labelled ones)."""
    by_id = {c.id: c for c in run.cases}
    unknown = [case_id for case_id in labels if case_id not in by_id]
    if unknown:
        raise ConfigError(
            f"{len(unknown)} labelled id(s) are not cases of the run (first: '{unknown[0]}'); "
            "label cases of the same eval set, by their id"
        )
    calibration = Calibration(judge=run.judge, judge_key=run.judge.key(), n_cases=len(labels))
    for metric in METRICS:
        pairs = [(by_id[i], lab[metric]) for i, lab in labels.items() if metric in lab]
        if not pairs:
            continue
        calibration.metrics[metric] = measure_metric(
            metric,
            pairs,
            threshold=threshold if threshold is not None else DEFAULT_THRESHOLD,
            worst=worst,
            resamples=resamples,
            labels_file=labels_file,
        )
        labelled = [(c.score(metric), h) for c, h in pairs if c.score(metric) is not None]
        rest = [
            s
            for c in run.cases
            if (s := c.score(metric)) is not None and metric not in labels.get(c.id, {})
        ]
        if len(labelled) >= 2 and rest:
            calibration.estimates[metric] = ppi_mean(
                [h for _, h in labelled],
                [float(s) for s, _ in labelled],  # type: ignore[arg-type]
                rest,
                confidence=confidence,
            )
    return calibration


# --- storage ------------------------------------------------------------------------------


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


def calibration_notes(
    fingerprint: JudgeFingerprint, root: str | Path | None = None
) -> list[CalibrationNote]:
    """Headline agreement per metric of the stored calibration; without one, the judge's
    published agreement on public labelled sets (the local judge ships it); [] when neither
    matches this exact judge configuration."""
    found = find_calibration(fingerprint, root)
    if found:
        return found.notes()
    from .judges.local.reference import reference_notes

    return reference_notes(fingerprint)


def _reason(result: MetricResult) -> str:
    if result.score is None:
        return result.unscored_reason or ""
    evidence = result.evidence
    for claim in evidence.claims:
        if claim.verdict != "supported":
            return _short(f"{claim.verdict}: {claim.claim} ({claim.reason})", 200)
    if evidence.notes:
        return _short(evidence.notes[0], 200)
    return ""


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


__all__ = [
    "CALIBRATION_FILE",
    "Calibration",
    "Disagreement",
    "MetricCalibration",
    "calibrate",
    "calibrate_async",
    "calibrate_run",
    "calibration_notes",
    "calibrations_dir",
    "decision_threshold",
    "find_calibration",
    "load_calibration",
    "measure_metric",
    "note_line",
    "save_calibration",
    "store_calibration",
]
