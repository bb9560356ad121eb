"""Build RunResult objects with known scores for tests of compare, gate, noise and reports."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ragmeter.cases.digest import eval_set_digest
from ragmeter.judges.base import (
    METRICS,
    ChunkVerdict,
    ClaimVerdict,
    Evidence,
    JudgeFingerprint,
    MetricResult,
    PointVerdict,
)
from ragmeter.judges.local.settings import LocalSettings
from ragmeter.results import CaseResult, RunInfo, RunResult
from ragmeter.results.diagnosis import diagnose
from ragmeter.results.summary import DEFAULT_FAIL_THRESHOLDS, summarize_run

Score = float | str | None
"""A score, an unscored reason (str), or None for a metric not judged."""


def judge(kind: str = "local", model: str = "lexical-v1", version: str = "1") -> JudgeFingerprint:
    return JudgeFingerprint(kind=kind, model=model, prompt_version=version)


def metric_result(
    metric: str, value: float | str, claims: Sequence[tuple[str, str]] = ()
) -> MetricResult:
    if isinstance(value, str):
        return MetricResult.unscored(metric, value)  # type: ignore[arg-type]
    evidence = Evidence()
    if metric == "faithfulness":
        evidence.claims = [
            ClaimVerdict(claim=text, verdict=verdict, chunk_index=0, evidence="ctx", reason="r")  # type: ignore[arg-type]
            for text, verdict in claims
        ]
    elif metric == "context_precision":
        evidence.chunks = [
            ChunkVerdict(index=0, useful=value >= 0.5, preview="first chunk", reason="matches"),
            ChunkVerdict(index=1, useful=False, preview="second chunk", reason="off topic"),
        ]
    elif metric == "context_recall":
        evidence.points = [
            PointVerdict(point="the main fact", supported=value >= 0.5, chunk_index=0),
        ]
    return MetricResult(metric=metric, score=value, evidence=evidence)  # type: ignore[arg-type]


def case(
    cid: str,
    scores: Mapping[str, Score],
    *,
    category: str = "normal",
    question: str | None = None,
    contexts: Sequence[str] = ("Refunds are issued within 14 days.", "Other text."),
    answer: str = "Refunds take 14 days.",
    claims: Sequence[tuple[str, str]] = (),
    repeats: Mapping[str, Sequence[float | None]] | None = None,
) -> CaseResult:
    metrics = {m: metric_result(m, v, claims) for m, v in scores.items() if v is not None}
    return CaseResult(
        id=cid,
        question=question if question is not None else f"question {cid}?",
        ground_truth=f"truth {cid}",
        category=category,
        contexts=list(contexts),
        answer=answer,
        metrics=metrics,  # type: ignore[arg-type]
        repeats={k: list(v) for k, v in (repeats or {}).items()},  # type: ignore[misc]
    )


def run(
    cases: Sequence[CaseResult], *, judge_fp: JudgeFingerprint | None = None, pipeline: str = "test"
) -> RunResult:
    """A complete RunResult whose summary and diagnosis are computed as the runner does."""
    thresholds = dict(DEFAULT_FAIL_THRESHOLDS)
    judged = tuple(m for m in METRICS if any(m in c.metrics for c in cases))
    summary = summarize_run(list(cases), judged, thresholds=thresholds)  # type: ignore[arg-type]
    return RunResult(
        judge=judge_fp or judge(),
        run=RunInfo(pipeline=pipeline, thresholds=thresholds),  # type: ignore[arg-type]
        summary=summary,
        diagnosis=diagnose(summary),
        cases=list(cases),
    )


def stamped(result: RunResult) -> RunResult:
    """`result` with the eval-set digest a run records (:func:`run` leaves it out, as files
    written before ragmeter kept one)."""
    result.run.cases_digest = eval_set_digest(result.cases)
    return result


def uniform_run(
    n: int,
    scores: Mapping[str, float | Sequence[float]],
    *,
    categories: Sequence[str] = ("normal",),
    judge_fp: JudgeFingerprint | None = None,
) -> RunResult:
    """`n` cases; each metric either a constant or a per-case sequence of scores."""
    cases = []
    for i in range(n):
        row = {m: (v if isinstance(v, float | int) else v[i]) for m, v in scores.items()}
        cases.append(case(f"c{i:03d}", row, category=categories[i % len(categories)]))
    return run(cases, judge_fp=judge_fp)


# Two answered cases in RAGAS's column names (one faithful, one not).
RAGAS_ROWS = [
    {
        "user_input": "How long are deleted notes kept?",
        "retrieved_contexts": [
            "Deleted notes stay in the trash for 30 days, then they are erased."
        ],
        "response": "Deleted notes stay in the trash for 30 days.",
        "reference": "Deleted notes are kept in the trash for 30 days.",
    },
    {
        "user_input": "Can I export notes to PDF?",
        "retrieved_contexts": ["Notes can be exported as Markdown or HTML files."],
        "response": "Yes, notes can be exported to PDF and Word.",
        "reference": "No: notes export as Markdown or HTML only.",
    },
]

_LOCAL = LocalSettings()
RAGAS_INVENTED_FAITHFULNESS = round(
    _LOCAL.unplaced_support * _LOCAL.unsupported_credit / _LOCAL.support_threshold, 6
)
"""The local judge's faithfulness of RAGAS_ROWS' second answer: its words are there but 'PDF'
is never mentioned, so its support (0.72) is capped at the unplaced support and scaled under
the unsupported credit."""
