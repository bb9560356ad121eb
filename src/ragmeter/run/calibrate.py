"""Calibrate a judge against human labels: agreement per metric, stored by judge fingerprint.

:func:`calibrate` judges every labelled case and measures agreement; :func:`calibrate_run`
measures it on the cases of an existing run that people labelled, and adds a
prediction-powered estimate of each metric's mean. Calibrations are stored under the judge's
fingerprint key so later runs with the same judge can say how far to trust it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from .._exceptions import ConfigError, ResultsError
from .._util.paths import cache_root
from .._util.plural import counted
from .._version import __version__
from ..cases.labels import LabelKind, LabelledCase, label_kind, labelled_metrics
from ..judges.base import Judge, MinimalJudge, ensure_judge
from ..results import CalibrationNote, CaseResult, RunResult, read_json_file, write_atomic
from ..stats.agreement import (
    DEFAULT_RESAMPLES,
    Measure,
    auroc,
    binary_measures,
    graded_measures,
    paired_difference,
    spearman,
)
from ..stats.ppi import PPIEstimate, ppi_mean
from ..vocabulary import METRICS, JudgeFingerprint, MetricName, MetricResult

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
        configured = _graded_setting(self.judge)
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


def _graded_setting(judge: JudgeFingerprint) -> frozenset[str] | None:
    """The metrics the judge scores from verdict probabilities (its `graded` setting); None
    when its scores are not shares of verdicts (:attr:`JudgeTraits.graded`)."""
    graded = judge.traits.graded
    return None if graded is None else frozenset(graded)


def _supported_verdicts(result: MetricResult) -> list[tuple[bool, float | None]] | None:
    """(supported, P(supported)) for each claim of a faithfulness result or reference point of
    a context-recall one, in order (P None where the verdict carries no probability); None for
    the other metrics, whose scores are not shares of such verdicts."""
    if result.metric == "faithfulness":
        return [(c.verdict == "supported", c.confidence) for c in result.evidence.claims]
    if result.metric == "context_recall":
        return [(p.supported, p.confidence) for p in result.evidence.points]
    return None


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


def decision_threshold(judge: Judge, metric: MetricName, default: float | None = None) -> float:
    """The score at or above which `judge` says yes on `metric` (`decision_thresholds`)."""
    if default is not None:
        return default
    declared = judge.decision_thresholds
    if metric in declared:
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
    judge_fp: JudgeFingerprint | None = None,
) -> MetricCalibration:
    """Agreement on `metric` of judged cases with their human labels; with the judge's
    fingerprint, also how it scored the metric and, when every verdict carries P(supported),
    the agreement of the other scoring of the same verdicts."""
    scored = [(c, s, h) for c, h in results if (s := c.score(metric)) is not None]
    reasons: dict[str, int] = {}
    for case, _ in results:
        result = case.metrics.get(metric)
        if result is not None and result.score is None:
            reason = result.unscored_reason or "unscored"
            reasons[reason] = reasons.get(reason, 0) + 1
    kind = kind or label_kind(h for _, h in results)
    judge = [float(s) for _, s, _ in scored]
    human = [h for _, _, h in scored]

    def measures_of(scores: list[float]) -> list[Measure]:
        if kind == "graded":
            return graded_measures(scores, human, resamples=resamples)
        return binary_measures(scores, human, threshold=threshold, resamples=resamples)

    measures = measures_of(judge)
    scoring, other = (None, None) if judge_fp is None else _scorings(metric, scored, judge_fp)
    alternative = None
    if scoring in ("zero_one", "graded") and other is not None:
        statistic = spearman if kind == "graded" else auroc
        alternative = AlternativeScoring(
            scoring="graded" if scoring == "zero_one" else "zero_one",
            measures=measures_of(other),
            difference=paired_difference(
                f"{'Spearman' if kind == 'graded' else 'AUROC'} difference",
                statistic,
                other,
                judge,
                human,
                resamples=resamples,
            ),
        )
    ranked = sorted(scored, key=lambda t: -abs(float(t[1]) - t[2]))
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
                judge=float(s),
                question=_short(c.question, 160),
                answer=_short(c.answer, 200),
                reason=_reason(c.metrics[metric]),
            )
            for c, s, h in ranked[:worst]
            if abs(float(s) - h) > 1e-9
        ],
        scoring=scoring,
        alternative=alternative,
        labels_file=labels_file,
    )


def _scorings(
    metric: MetricName,
    scored: Sequence[tuple[CaseResult, float | None, float]],
    judge_fp: JudgeFingerprint,
) -> tuple[Scoring | Literal["mixed"] | None, list[float] | None]:
    """How the judge scored `metric` on the `scored` cases, and their scores the other way
    (None unless every verdict carries its P(supported)). Nothing is claimed when the judge
    has no such choice or a score is neither the share nor the mean of its verdicts."""
    configured = _graded_setting(judge_fp)
    if configured is None:
        return None, None
    ways: set[Scoring] = set()
    pairs: list[tuple[float, float | None]] = []  # (0/1 score, graded score) per case
    for case, score, _ in scored:
        verdicts = _supported_verdicts(case.metrics[metric])
        if verdicts is None or score is None:
            return None, None
        if not verdicts:  # settled without verdicts (nothing retrieved): the same either way
            pairs.append((score, score))
            continue
        zero_one = sum(ok for ok, _ in verdicts) / len(verdicts)
        probabilities = [p for _, p in verdicts if p is not None]
        graded = None
        if len(probabilities) == len(verdicts):
            graded = sum(probabilities) / len(verdicts)
        way: Scoring = "zero_one"
        expected = zero_one
        if metric in configured and graded is not None:
            way, expected = "graded", graded
        if abs(expected - score) > 1e-6:  # scored some other way: claim nothing
            return None, None
        ways.add(way)
        pairs.append((zero_one, graded))
    if not ways:
        return None, None
    if len(ways) > 1:
        return "mixed", None
    (used,) = ways
    other: list[float] = []
    for zero_one, graded in pairs:
        if graded is None:
            return used, None
        other.append(graded if used == "zero_one" else zero_one)
    return used, other


async def calibrate_async(
    cases: Sequence[LabelledCase],
    judge: Judge | MinimalJudge,
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
    from ..pipeline import PrecomputedPipeline
    from ._runner import evaluate_async

    judge = ensure_judge(judge)
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
            judge_fp=run.judge,
        )
    return calibration


def calibrate(
    cases: Sequence[LabelledCase], judge: Judge | MinimalJudge, **kwargs: Any
) -> Calibration:
    """:func:`calibrate_async` from synchronous code; closes the judge afterwards."""
    from .._util.sync import run_sync

    the_judge = ensure_judge(judge)
    return run_sync(calibrate_async(cases, the_judge, **kwargs), closing=(the_judge,))


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
            f"{counted(len(unknown), 'labelled id')} "
            f"{'is not a case' if len(unknown) == 1 else 'are not cases'} of the run "
            f"(first: '{unknown[0]}'); "
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
            judge_fp=run.judge,
        )
        labelled = [(s, h) for c, h in pairs if (s := c.score(metric)) is not None]
        rest = [
            s
            for c in run.cases
            if (s := c.score(metric)) is not None and metric not in labels.get(c.id, {})
        ]
        if len(labelled) >= 2 and rest:
            calibration.estimates[metric] = ppi_mean(
                [h for _, h in labelled],
                [float(s) for s, _ in labelled],
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
    from ..judges.local.reference import reference_headline

    return [CalibrationNote.model_validate(note) for note in reference_headline(fingerprint)]


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
    "AlternativeScoring",
    "Calibration",
    "Disagreement",
    "MetricCalibration",
    "Scoring",
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
