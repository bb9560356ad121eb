"""Compare two runs of the same eval set case by case (:func:`compare_runs`); the package
also holds `gate` (`ragmeter gate`: every metric measured, floors, no regression) and `noise`
(what a difference within the judge's own noise is).

Only cases scored in both runs are paired (by case id). Differences are new − base, with a
paired bootstrap interval and a paired sign-flip test, per metric and per category. Runs
judged by different judges are not comparable unless forced: a score change could be the
judge's, not the pipeline's. Nor are runs whose eval sets' contents differ
(`run.cases_digest`): a case id names the same question only within one eval set. Forced, or
when a run predates the digest, a case is paired only when its question and reference are
the same in both runs.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from ..cases.digest import short
from ..results import CaseResult, RunResult
from ..results.explain import explain
from ..stats import mean, paired_bootstrap_ci, sign_flip_test
from ..vocabulary import METRICS, MetricName
from .noise import case_scores

MIN_OVERLAP = 0.5
"""Below this share of common cases the two runs are not the same eval set."""


class MetricDiff(BaseModel):
    """One metric, paired over the cases scored in both runs."""

    metric: MetricName
    n_paired: int
    base_mean: float | None
    """Base mean over the paired cases."""
    new_mean: float | None
    """New mean over the paired cases."""
    diff: float | None
    """Mean paired difference new − base."""
    ci: tuple[float, float] | None = None
    """Paired bootstrap interval of `diff`."""
    p_value: float | None = None
    """Two-sided paired sign-flip test of no difference."""
    significant: bool = False
    """p-value below 1 − confidence."""


class CaseChange(BaseModel):
    """A case whose score on one metric moved."""

    case_id: str
    category: str
    question: str
    metric: MetricName
    base: float
    new: float
    diff: float
    evidence: list[str] = Field(default_factory=list)
    """Why the new run scored as it did (for regressions) or the base did (improvements)."""
    evidence_from: Literal["base", "new"] = "new"
    """Whose evidence `evidence` is: the run with the lower score."""

    @property
    def evidence_title(self) -> str:
        """What the evidence explains, for a reader: which run scored it lower."""
        score = self.base if self.evidence_from == "base" else self.new
        return f"why the {self.evidence_from} run scored it {score:.2f}"


class ClaimChange(BaseModel):
    """A claim, found in both answers, whose faithfulness verdict changed."""

    case_id: str
    claim: str
    base_verdict: str
    new_verdict: str


class Comparison(BaseModel):
    """Everything `ragmeter compare` shows."""

    comparable: bool
    """False when the runs should not be compared (see problems) and force was not given."""
    forced: bool = False
    problems: list[str] = Field(default_factory=list)
    """Why the runs may not be comparable."""
    base_judge: str
    new_judge: str
    confidence: float
    metrics: dict[MetricName, MetricDiff] = Field(default_factory=dict)
    by_category: dict[str, dict[MetricName, MetricDiff]] = Field(default_factory=dict)
    regressed: list[CaseChange] = Field(default_factory=list)
    """Worst first."""
    improved: list[CaseChange] = Field(default_factory=list)
    """Largest gain first."""
    claim_changes: list[ClaimChange] = Field(default_factory=list)
    only_in_base: list[str] = Field(default_factory=list)
    only_in_new: list[str] = Field(default_factory=list)
    changed_cases: list[str] = Field(default_factory=list)
    """Ids present in both runs whose question or reference changed (not paired)."""
    notes: list[str] = Field(default_factory=list)
    """How the eval sets were matched, when not by their digests (a run predates them)."""
    nothing_paired: str = ""
    """Why no case was paired on any metric, when none was; empty otherwise."""


def comparability_problems(base: RunResult, new: RunResult) -> tuple[list[str], list[str]]:
    """(problems that --force may override, problems it may not)."""
    soft: list[str] = []
    hard: list[str] = []
    if base.judge.key() != new.judge.key():
        soft.append(
            f"judge differs: base {base.judge.kind}/{base.judge.model} "
            f"(prompts {base.judge.prompt_version}, key {base.judge.key()}) vs new "
            f"{new.judge.kind}/{new.judge.model} (prompts {new.judge.prompt_version}, "
            f"key {new.judge.key()}); re-judge both runs with one judge, or pass --force"
        )
    if base.schema_version != new.schema_version:
        soft.append(f"schema versions differ ({base.schema_version} vs {new.schema_version})")
    base_ids = {c.id for c in base.cases}
    new_ids = {c.id for c in new.cases}
    common = base_ids & new_ids
    digests = base.run.cases_digest, new.run.cases_digest
    if not common:
        hard.append("no case id in common: these are runs of different eval sets")
    elif not pairable_ids(base, new):
        hard.append(
            f"no case in common: all {len(common)} shared case ids hold another question or "
            "reference in each run: these are runs of different eval sets"
        )
    elif digests[0] and digests[1] and digests[0] != digests[1]:
        soft.append(
            f"eval set contents differ (digest {short(digests[0])} base vs {short(digests[1])} "
            "new): questions, references or reference contexts changed, or cases were added "
            "or removed; re-run the baseline on this eval set, or pass --force to pair only "
            "the cases whose question and reference are unchanged"
        )
    elif len(common) < MIN_OVERLAP * max(len(base_ids), len(new_ids)):
        soft.append(
            f"eval sets differ: only {len(common)} of {len(base_ids)} base and "
            f"{len(new_ids)} new cases in common"
        )
    return soft, hard


def digest_note(base: RunResult, new: RunResult) -> str | None:
    """What to say when a run carries no eval-set digest (written before ragmeter kept one):
    the contents are then checked case by case; None when both carry one."""
    missing = [name for name, run in (("base", base), ("new", new)) if not run.run.cases_digest]
    if not missing:
        return None
    who = "neither run carries an" if len(missing) == 2 else f"the {missing[0]} run carries no"
    return (
        f"{who} eval-set digest (written by an older ragmeter): whether both runs are of one "
        "eval set is unknown, so a case is paired only where its question and reference are "
        "the same in both"
    )


def _same_case(a: CaseResult, b: CaseResult) -> bool:
    return a.question.strip() == b.question.strip() and (
        a.ground_truth.strip() == b.ground_truth.strip()
    )


def pairable_ids(base: RunResult, new: RunResult) -> set[str]:
    """Ids in both runs whose question and reference are the same in both: the cases that
    may be paired."""
    base_by_id = {c.id: c for c in base.cases}
    return {c.id for c in new.cases if c.id in base_by_id and _same_case(base_by_id[c.id], c)}


def paired_scores(
    base: RunResult,
    new: RunResult,
    metric: MetricName,
    *,
    ids: set[str] | None = None,
    average_repeats: bool = True,
) -> tuple[list[str], list[float], list[float]]:
    """(ids, base scores, new scores) for the cases scored in both runs, new's order; a
    re-judged case with the mean of its judgements unless `average_repeats` is False."""
    b = case_scores(base, metric, average_repeats=average_repeats)
    n = case_scores(new, metric, average_repeats=average_repeats)
    keep = [i for i in n if i in b and (ids is None or i in ids)]
    return keep, [b[i] for i in keep], [n[i] for i in keep]


def diff_metric(
    base_scores: list[float],
    new_scores: list[float],
    metric: MetricName,
    *,
    confidence: float = 0.95,
) -> MetricDiff:
    """Paired difference of one metric from aligned score lists."""
    diffs = [n - b for b, n in zip(base_scores, new_scores, strict=True)]
    p = sign_flip_test(diffs) if diffs else None
    return MetricDiff(
        metric=metric,
        n_paired=len(diffs),
        base_mean=mean(base_scores),
        new_mean=mean(new_scores),
        diff=mean(diffs),
        ci=paired_bootstrap_ci(diffs, confidence=confidence),
        p_value=p,
        significant=p is not None and p < 1 - confidence,
    )


def claim_changes(base_case: CaseResult, new_case: CaseResult) -> list[ClaimChange]:
    """Claims present in both answers (matched by text) whose verdict changed."""

    def claims(case: CaseResult) -> dict[str, str]:
        result = case.metrics.get("faithfulness")
        if result is None:
            return {}
        return {" ".join(c.claim.lower().split()): c.verdict for c in result.evidence.claims}

    before = claims(base_case)
    after = claims(new_case)
    original = {}
    if (result := new_case.metrics.get("faithfulness")) is not None:
        original = {" ".join(c.claim.lower().split()): c.claim for c in result.evidence.claims}
    return [
        ClaimChange(
            case_id=new_case.id, claim=original[key], base_verdict=before[key], new_verdict=verdict
        )
        for key, verdict in after.items()
        if key in before and before[key] != verdict
    ]


def compare_runs(
    base: RunResult,
    new: RunResult,
    *,
    force: bool = False,
    confidence: float = 0.95,
    min_delta: float = 0.1,
    metrics: tuple[MetricName, ...] = METRICS,
) -> Comparison:
    """Compare `new` against `base`; `comparable` is False on a mismatch unless `force`.

    Cases whose score moved by at least `min_delta` are listed as regressed or improved.
    """
    soft, hard = comparability_problems(base, new)
    result = Comparison(
        comparable=not hard and (force or not soft),
        forced=force and bool(soft),
        problems=[*hard, *soft],
        base_judge=base.judge.key(),
        new_judge=new.judge.key(),
        confidence=confidence,
    )
    base_by_id = {c.id: c for c in base.cases}
    new_by_id = {c.id: c for c in new.cases}
    result.only_in_base = [i for i in base_by_id if i not in new_by_id]
    result.only_in_new = [i for i in new_by_id if i not in base_by_id]
    paired = pairable_ids(base, new)
    result.changed_cases = [i for i in new_by_id if i in base_by_id and i not in paired]
    if note := digest_note(base, new):
        result.notes.append(note)
    if not result.comparable:
        return result
    for metric in metrics:
        _, b, n = paired_scores(base, new, metric, ids=paired)
        result.metrics[metric] = diff_metric(b, n, metric, confidence=confidence)
    if not any(d.n_paired for d in result.metrics.values()):
        result.nothing_paired = (
            f"no case was scored in both runs on any of {', '.join(metrics)}: of the "
            f"{len(paired)} cases the runs share, none has a score on the same metric in both"
        )
    categories = sorted({new_by_id[i].category for i in paired})
    for category in categories:
        ids = {i for i in paired if new_by_id[i].category == category}
        result.by_category[category] = {}
        for metric in metrics:
            _, b, n = paired_scores(base, new, metric, ids=ids)
            result.by_category[category][metric] = diff_metric(b, n, metric, confidence=confidence)
    for case_id in (i for i in new_by_id if i in paired):
        old, cur = base_by_id[case_id], new_by_id[case_id]
        for metric in metrics:
            before, after = old.aggregate_score(metric), cur.aggregate_score(metric)
            if before is None or after is None or abs(after - before) < min_delta:
                continue
            worse = after < before
            change = CaseChange(
                case_id=case_id,
                category=cur.category,
                question=cur.question,
                metric=metric,
                base=before,
                new=after,
                diff=after - before,
                evidence=explain(cur if worse else old, metric),
                evidence_from="new" if worse else "base",
            )
            (result.regressed if worse else result.improved).append(change)
        result.claim_changes.extend(claim_changes(old, cur))
    order = {m: i for i, m in enumerate(METRICS)}
    result.regressed.sort(key=lambda c: (c.diff, order[c.metric], c.case_id))
    result.improved.sort(key=lambda c: (-c.diff, order[c.metric], c.case_id))
    return result


__all__ = [
    "CaseChange",
    "ClaimChange",
    "Comparison",
    "MetricDiff",
    "comparability_problems",
    "compare_runs",
    "diff_metric",
    "digest_note",
    "pairable_ids",
    "paired_scores",
]
