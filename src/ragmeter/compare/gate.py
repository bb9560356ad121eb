"""The gate: fail CI on a mean under its floor or a real regression, not on judge noise.

First, every metric must have been measured: a metric scored on fewer than `min_scored_share`
of the cases it applies to (the pipeline or the judge failed on the rest) fails the gate, as
does one scored on no case at all; a failure is never a pass. Then two kinds of check, each a
one-sided test whose null hypothesis is "the pipeline is fine", so noise alone fails the gate
with probability at most `alpha` across all checks together:

* **floor**: the metric's mean is not below its floor. Noise-aware (the default): fails only
  when the upper confidence bound of the mean lies below the floor; a mean under the floor but
  within noise passes with a warning. Literal (`literal`): any mean under its floor fails, as
  DeepEval's and promptfoo's thresholds do; that is no test, so noise alone can fail it (a
  pipeline whose true mean sits at its floor fails about every other run).
* **baseline** (regression against the baseline): fails when the drop is both *real* and
  *material*: a one-sided paired sign-flip permutation test finds the mean paired difference
  new − baseline significantly below 0 (the drop is not noise) and the estimated drop is larger
  than the margin (it matters). The permutation test keeps its level exactly on 50 cases with
  many tied differences, where the percentile bootstrap measured about 6% false alarms at 5%.
  Drops within the margin never fail. Requiring the bound itself to clear −margin (a strict
  non-inferiority test) was measured to detect a 0.10 drop on 50 cases less than half the time
  (see bench/gate_error_rates.py), so the margin applies to the estimate.

Bounds shown are percentile bootstrap bounds over cases; floor p-values are the matching
bootstrap p-values. All p-values are corrected with Holm's step-down procedure within each
family of checks: the floors, and the regressions against the baseline across the metrics
tested together (each family at error rate `alpha`). When cases were re-judged
(`--repeats K`) each case counts with the mean of its K judgements, which shrinks judge noise;
the resampling over cases carries what remains.
A threshold within two noise standard deviations of the estimate is reported as a warning.

The gate passes only on what it checked: a floor or a paired test with fewer than
`MIN_CHECKED` cases to test fails, saying so (unless `allow_unchecked` is set, when it is
skipped with a warning). A baseline of another eval set (`run.cases_digest` differs) is
refused like one of another judge; forced, or when a run predates the digest, a case is
paired only when its question and reference are the same in both runs.

A floor on an *indicative-only* metric (the run's judge agrees with people near chance on it:
:mod:`ragmeter.results.indicative`) that the mean is significantly under warns instead of failing,
unless `enforce_indicative` is set; baseline checks on it are unchanged.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, Field

from .._exceptions import ResultsError
from .._util.plural import counted
from ..config import GateSettings
from ..results import MetricHealth, RunResult
from ..results.health import DEFAULT_MIN_SCORED_SHARE, metric_health
from ..results.indicative import indicative_metrics
from ..stats import (
    bootstrap_p_below,
    bootstrap_upper,
    holm,
    holm_levels,
    mean,
    sign_flip_p_below,
)
from ..vocabulary import METRICS, MetricName
from . import comparability_problems, digest_note, pairable_ids, paired_scores
from .noise import NoiseSummary, case_scores, in_noise_band, measure_noise

Status = Literal["pass", "fail", "warn", "skip"]
"""`warn`: a failed floor (noise-aware or literal) on an indicative-only metric (its judge
agrees with people near chance) whose floor is not enforced: reported, not failed."""

_KIND_WORDS = {"measured": "measured", "floor": "floor", "baseline": "regression"}
"""How each kind of check is named to the user: the baseline check tests for a regression."""

MIN_CHECKED = 2
"""Fewest cases a floor or a paired test is run on; with fewer the check fails (or, with
`allow_unchecked`, is skipped with a warning)."""


class GateCheck(BaseModel):
    """One test of the gate."""

    metric: MetricName
    kind: Literal["measured", "floor", "baseline"]
    """`measured`: enough cases were scored; `floor`; `baseline`: no regression against the
    baseline (printed as `regression`)."""
    status: Status = "skip"
    n: int = 0
    """Cases used (paired cases for the baseline check)."""
    estimate: float | None = None
    """Mean (floor) or mean paired difference (baseline)."""
    threshold: float | None = None
    """The floor, or −margin."""
    tested: float | None = None
    """Value the bound is tested against: the floor, or 0 for the baseline check."""
    bound: float | None = None
    """One-sided upper confidence bound of the estimate."""
    level: float | None = None
    """Confidence of `bound` (Holm-corrected)."""
    p_value: float | None = None
    """Holm-adjusted p-value of "the estimate is below the threshold"."""
    significant: bool | None = None
    """Whether the drop (or the shortfall below the floor) is significant at the Holm level."""
    noise_sd: float | None = None
    """Standard deviation of the estimate due to judge noise, when measured."""
    reason: str = ""
    """Why it was skipped or could not be run, or why a `measured` check failed."""
    indicative: str = ""
    """Why the metric is indicative only (its judge agrees with people near chance), if it is:
    its floor then warns instead of failing unless `enforce_indicative`."""
    line: str = ""
    """The check in one line: status, kind, metric, what was measured against which bar, and
    the finding (`FAIL floor faithfulness: mean 0.600 … vs floor 0.85 (noise-aware) — …`)."""


class MetricVerdict(BaseModel):
    """The gate's verdict on one metric: the worst status of its checks, and their lines."""

    metric: MetricName
    status: Status
    lines: list[str]
    """One line per check (`GateCheck.line`), or one `SKIP` line when nothing was checked."""


class GateResult(BaseModel):
    """Outcome of the gate: passed, and one line per metric saying why."""

    passed: bool
    failed_kinds: list[str] = Field(default_factory=list)
    """Kinds of the failed checks (`measured`, `floor`, `baseline`, or `unchecked` for a
    floor or baseline check with too few cases to run), for the closing line."""
    alpha: float
    margin: float
    literal: bool = False
    """Whether the floors were literal (any mean under its floor fails) or noise-aware."""
    baseline: str | None = None
    """Where the baseline came from."""
    repeats: int = 1
    """Judgements per case averaged (max over the two runs)."""
    checks: list[GateCheck] = Field(default_factory=list)
    verdicts: list[MetricVerdict] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


def _noise_sd(noise: NoiseSummary | None, metric: MetricName) -> float:
    """SD of the run mean due to judge noise, for the mean of the repeats used."""
    if noise is None or metric not in noise.metrics:
        return 0.0
    stats = noise.metrics[metric]
    return stats.noise_floor / math.sqrt(max(1, stats.repeats))


def _too_few(check: GateCheck, allow: bool, what: str) -> None:
    """Fail `check`, which has too few cases to run (or skip it when `allow`)."""
    check.status = "skip" if allow else "fail"
    check.reason += f"; {what} needs at least {MIN_CHECKED}" + (
        " (allowed: allow_unchecked is set)" if allow else ""
    )


def _floor_check(
    run: RunResult,
    metric: MetricName,
    floor: float,
    noise: NoiseSummary | None,
    average: bool,
    allow: bool,
) -> tuple[GateCheck, list[float]]:
    values = list(case_scores(run, metric, average_repeats=average).values())
    check = GateCheck(metric=metric, kind="floor", threshold=floor, tested=floor, n=len(values))
    if len(values) < MIN_CHECKED:
        check.reason = f"only {counted(len(values), 'scored case')}"
        _too_few(check, allow, "a floor")
        return check, values
    check.estimate = mean(values)
    check.noise_sd = _noise_sd(noise, metric) or None
    return check, values


def _baseline_check(
    base: RunResult,
    new: RunResult,
    metric: MetricName,
    margin: float,
    noises: tuple[NoiseSummary | None, NoiseSummary | None],
    average: bool,
    ids: set[str],
    allow: bool,
) -> tuple[GateCheck, list[float]]:
    _, b, n = paired_scores(base, new, metric, ids=ids, average_repeats=average)
    diffs = [y - x for x, y in zip(b, n, strict=True)]
    check = GateCheck(metric=metric, kind="baseline", threshold=-margin, tested=0.0, n=len(diffs))
    if len(diffs) < MIN_CHECKED:
        check.reason = f"only {counted(len(diffs), 'case')} scored in both runs"
        # The new run has the cases, the baseline lacks them: never allowed.
        broken = len(case_scores(new, metric, average_repeats=False)) >= MIN_CHECKED
        if broken:
            check.reason += ": the baseline cannot be compared; promote a complete run"
        _too_few(check, allow and not broken, "a paired test")
        return check, diffs
    check.estimate = mean(diffs)
    noise = math.hypot(_noise_sd(noises[0], metric), _noise_sd(noises[1], metric))
    check.noise_sd = noise or None
    return check, diffs


def gate_run(
    new: RunResult,
    settings: GateSettings | None = None,
    *,
    baseline: RunResult | None = None,
    baseline_source: str | None = None,
    force: bool = False,
    metrics: tuple[MetricName, ...] = METRICS,
    min_scored_share: float = DEFAULT_MIN_SCORED_SHARE,
    with_floors: bool = True,
) -> GateResult:
    """Run every check on `new` (and against `baseline` when given); `with_floors=False` leaves
    the floors out (regressions against the baseline only, after the `measured` checks).

    Raises ResultsError when the baseline is not comparable (different judge, eval set or
    schema) and `force` is not set.
    """
    settings = settings or GateSettings()
    if baseline is not None:
        soft, hard = comparability_problems(baseline, new)
        if hard or (soft and not force):
            raise ResultsError("baseline not comparable: " + "; ".join(hard + soft))
    paired = pairable_ids(baseline, new) if baseline is not None else set()
    allow = settings.allow_unchecked
    noise_new = measure_noise(new)
    noise_base = measure_noise(baseline) if baseline is not None else None
    average = noise_new is not None or noise_base is not None
    repeats = max(n.repeats for n in (noise_new, noise_base) if n) if average else 1

    checks: list[GateCheck] = []
    samples: list[list[float]] = []
    for metric in metrics:
        health = metric_health(new.summary, metric, min_scored_share)
        if health is None or not health.ok:
            checks.append(_measured_check(metric, health))
            samples.append([])
            continue
        if with_floors and metric in settings.floors:
            check, values = _floor_check(
                new, metric, settings.floors[metric], noise_new, average, allow
            )
            checks.append(check)
            samples.append(values)
        if baseline is not None:
            noises = (noise_base, noise_new)
            check, values = _baseline_check(
                baseline, new, metric, settings.margin, noises, average, paired, allow
            )
            checks.append(check)
            samples.append(values)

    # Two families, each held at `alpha` with Holm: the floors (absolute requirements) and the
    # regressions against the baseline (the four metrics tested together).
    for kind in ("floor", "baseline"):
        active = [i for i, c in enumerate(checks) if not c.reason and c.kind == kind]
        if not active:
            continue
        if kind == "floor":
            raw = [bootstrap_p_below(samples[i], checks[i].tested or 0.0) for i in active]
        else:
            raw = [sign_flip_p_below(samples[i]) for i in active]
        rejected, adjusted = holm(raw, settings.alpha)
        levels = holm_levels(raw, settings.alpha)
        for j, i in enumerate(active):
            check = checks[i]
            check.level = 1 - levels[j]
            check.bound = bootstrap_upper(samples[i], check.level)
            check.p_value = adjusted[j]
            check.significant = rejected[j]
            if kind == "floor" and settings.literal:
                check.status = "fail" if _under(check) else "pass"
            else:
                material = kind == "floor" or (check.estimate or 0.0) < (check.threshold or 0.0)
                check.status = "fail" if rejected[j] and material else "pass"

    _soften_indicative_floors(checks, new, settings.enforce_indicative)
    result = GateResult(
        passed=not any(c.status == "fail" for c in checks),
        failed_kinds=sorted({_failed_kind(c) for c in checks if c.status == "fail"}),
        alpha=settings.alpha,
        margin=settings.margin,
        literal=settings.literal,
        baseline=baseline_source,
        repeats=repeats,
        checks=checks,
    )
    if baseline is not None and force:
        soft, _ = comparability_problems(baseline, new)
        result.warnings.extend(f"forced: {p}" for p in soft)
    if baseline is not None and (note := digest_note(baseline, new)):
        result.warnings.append(note)
    result.warnings.extend(
        f"{c.metric}: passed without its {_KIND_WORDS[c.kind]} check (allow_unchecked)"
        for c in checks
        if c.status == "skip" and c.kind != "measured"
    )
    for check in checks:
        if check.status == "warn":
            result.warnings.append(
                f"{check.metric}: mean {check.estimate:.3f} is below the floor "
                f"{check.threshold:.2f}, but the metric is indicative only ({check.indicative}); "
                "not failed: check a few cases by hand, or enforce the floor with "
                "--enforce-indicative ([gate] enforce_indicative = true)"
            )
        if check.kind == "floor" and check.status == "pass" and _under(check):
            result.warnings.append(
                f"{check.metric}: mean {check.estimate:.3f} is below the floor "
                f"{check.threshold:.2f}, but on {check.n} cases that is within noise, so the "
                "noise-aware floor passes it; add cases to tell, or make floors literal "
                "(--literal, [gate] literal = true) to fail any mean under its floor"
            )
        if (
            check.estimate is not None
            and check.threshold is not None
            and check.noise_sd
            and in_noise_band(check.estimate, check.threshold, check.noise_sd)
        ):
            what = "floor" if check.kind == "floor" else "baseline margin"
            result.warnings.append(
                f"{check.metric}: the {what} {check.threshold:+.2f} lies inside the judge's "
                f"noise band ({check.estimate:+.3f} ± {2 * check.noise_sd:.3f}); the verdict "
                "may change on a re-run: re-judge with more --repeats or add cases"
            )
    for check in checks:
        check.line = _line(check, settings.literal)
    for metric in metrics:
        mine = [c for c in checks if c.metric == metric]
        result.verdicts.append(_verdict(metric, mine))
    return result


def _under(check: GateCheck) -> bool:
    """Whether a floor check's mean lies under its floor (a mean that equals the floor up to
    floating-point rounding, e.g. 0.8499999999 for 0.85, is not under it)."""
    if check.estimate is None or check.threshold is None:
        return False
    return check.estimate < check.threshold - 1e-9


def _failed_kind(check: GateCheck) -> str:
    """The failed check's kind for the closing line; `unchecked` when it had too few cases."""
    return "unchecked" if check.kind != "measured" and check.bound is None else check.kind


def _soften_indicative_floors(checks: list[GateCheck], run: RunResult, enforce: bool) -> None:
    """Mark the floor checks of indicative-only metrics (`results.indicative`, read from
    the run's stored agreement with people); unless `enforce`, a failed one warns instead."""
    indicative = indicative_metrics(run.run.calibration)
    for check in checks:
        if check.kind != "floor" or check.metric not in indicative:
            continue
        check.indicative = indicative[check.metric]
        if check.status == "fail" and not enforce:
            check.status = "warn"


def _measured_check(metric: MetricName, health: MetricHealth | None) -> GateCheck:
    """A failed `measured` check: the metric was not judged, or on too few cases."""
    if health is None:  # the run left the metric out on purpose
        return GateCheck(metric=metric, kind="measured", reason="not judged in this run")
    reason = f"not measured: {health.n_scored} of {health.n_applicable} cases scored"
    if health.problem:
        reason += f"; cause: {health.problem}"
    return GateCheck(
        metric=metric, kind="measured", status="fail", n=health.n_scored, reason=reason
    )


def _line(check: GateCheck, literal: bool) -> str:
    """`STATUS kind metric: measured vs bar — finding`, the kind named as the user sets it."""
    status = check.status.upper()
    if check.kind == "measured":
        return f"{status} {check.metric}: {check.reason}"
    what = f"{_KIND_WORDS[check.kind]} {check.metric}"
    what += " vs baseline" if check.kind == "baseline" else ""
    if check.bound is None:  # too few cases to run the check
        hint = "" if check.status == "skip" else " (--allow-unchecked skips it)"
        return f"{status} {what}: not checked — {check.reason}{hint}"
    assert check.estimate is not None and check.level is not None
    conf = f"{100 * check.level:.1f}%"
    if check.kind == "floor":
        mode = "literal" if literal else "noise-aware"
        measured = (
            f"mean {check.estimate:.3f} (n={check.n}, {conf} upper bound {check.bound:.3f}) "
            f"vs floor {check.threshold:.2f} ({mode})"
        )
        return f"{status} {what}: {measured} — {_floor_finding(check, literal)}"
    margin = -(check.threshold or 0.0)
    measured = (
        f"change {check.estimate:+.3f} (n={check.n} paired, {conf} upper bound "
        f"{check.bound:+.3f}, p={check.p_value:.3f}), margin {margin:.2f}"
    )
    return f"{status} {what}: {measured} — {_regression_finding(check, margin)}"


def _floor_finding(check: GateCheck, literal: bool) -> str:
    if not _under(check):
        return "not below the floor"
    if check.significant:
        finding = "significantly below the floor"
    elif literal:
        finding = "below the floor (within noise, but literal floors fail any mean under them)"
    else:
        return "below the floor, but not significantly (within noise); --literal fails it"
    if check.status == "warn":
        return (
            f"{finding}, but the metric is indicative only (its judge agrees with people near "
            "chance), so it warns; --enforce-indicative fails it"
        )
    if check.indicative:
        return f"{finding} (enforced, though the metric is indicative only)"
    return finding


def _regression_finding(check: GateCheck, margin: float) -> str:
    if check.status == "fail":
        return "a significant drop beyond the margin: a real regression"
    if check.significant:
        return "a real drop, but within the margin"
    if (check.estimate or 0.0) < -margin:
        return "a drop larger than the margin, but within noise"
    return "no significant drop"


def _verdict(metric: MetricName, checks: list[GateCheck]) -> MetricVerdict:
    if not checks:
        line = f"SKIP {metric}: no floor set and no baseline given"
        return MetricVerdict(metric=metric, status="skip", lines=[line])
    if any(c.status == "fail" for c in checks):
        status: Status = "fail"
    elif any(c.status == "warn" for c in checks):
        status = "warn"
    elif any(c.status == "pass" for c in checks):
        status = "pass"
    else:
        status = "skip"
    return MetricVerdict(metric=metric, status=status, lines=[c.line for c in checks])


__all__ = ["GateCheck", "GateResult", "MetricVerdict", "gate_run"]
