"""Name the pipeline stage to fix first: retrieval before generation.

Retrieval comes first because generation metrics are bounded by what was retrieved: a
generator cannot be faithful to, or answer from, chunks that were never found.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..config import DEFAULT_FLOORS
from ..vocabulary import METRICS, RETRIEVAL_METRICS, MetricName
from ._model import Diagnosis, Finding, RunSummary

DEFAULT_TARGETS: dict[MetricName, float] = {
    "context_recall": 0.75,
    "context_precision": 0.6,
    **DEFAULT_FLOORS,  # faithfulness 0.85, answer relevancy 0.80: the gate's default floors
}
"""Mean below which a metric is called weak (a run configured from a file uses its gate
floors where it sets no target: `Settings.mean_targets`)."""

_ADVICE: dict[MetricName, tuple[str, str]] = {
    "context_recall": (
        "retrieval misses facts the reference answers need",
        "revisit chunking (size, overlap, sentence boundaries), raise top-k, or add hybrid "
        "(BM25 + embedding) retrieval and query rewriting",
    ),
    "context_precision": (
        "useful chunks are not ranked first",
        "add a reranker (cross-encoder) or tighten top-k so noise does not crowd the prompt",
    ),
    "faithfulness": (
        "answers state things the retrieved chunks do not support",
        "tighten the prompt template (answer only from the context, cite it), lower the "
        "temperature, and check for leaking model knowledge",
    ),
    "answer_relevancy": (
        "answers do not address the question or evade it",
        "rewrite queries (resolve coreference in multi-turn, fix typos), and check the prompt "
        "does not push the model to refuse or ramble",
    ),
}


def diagnose(
    summary: RunSummary,
    targets: Mapping[MetricName, float] | None = None,
    indicative: Mapping[MetricName, str] | None = None,
) -> Diagnosis:
    """Compare each metric's mean with its target and pick the stage to fix first.

    A metric in `indicative` (its judge agrees with people near chance, with why in words:
    :func:`~ragmeter.results.indicative.indicative_metrics`) under its target is reported as
    such, but no stage is named to fix on it alone."""
    targets = {**DEFAULT_TARGETS, **(targets or {})}
    indicative = indicative or {}
    findings: list[Finding] = []
    weak: list[MetricName] = []
    doubtful: list[MetricName] = []
    for metric in METRICS:
        stats = summary.metrics.get(metric)
        if stats is None:
            continue
        stage = "retrieval" if metric in RETRIEVAL_METRICS else "generation"
        problem, advice = _ADVICE[metric]
        if stats.mean is None:
            findings.append(
                Finding(
                    stage=stage,
                    metric=metric,
                    severity="unknown",
                    message=f"{metric}: no case could be scored",
                )
            )
            continue
        target = targets[metric]
        caveat = f"; indicative only: {indicative[metric]}" if metric in indicative else ""
        if stats.mean < target and metric in indicative:
            doubtful.append(metric)
            findings.append(
                Finding(
                    stage=stage,
                    metric=metric,
                    severity="indicative",
                    message=f"{metric} {stats.mean:.2f} < target {target:.2f}{caveat}",
                )
            )
        elif stats.mean < target:
            weak.append(metric)
            findings.append(
                Finding(
                    stage=stage,
                    metric=metric,
                    severity="weak",
                    message=f"{metric} {stats.mean:.2f} < target {target:.2f}: {problem}",
                    advice=advice,
                )
            )
        else:
            findings.append(
                Finding(
                    stage=stage,
                    metric=metric,
                    severity="ok",
                    message=f"{metric} {stats.mean:.2f} ≥ target {target:.2f}{caveat}",
                )
            )
    unknown = [f.metric for f in findings if f.severity == "unknown"]
    not_measured = (
        f"Not measured: no case could be scored for {', '.join(unknown)} (see Unscored)."
        if unknown
        else ""
    )
    only_indicative = (
        f"{' and '.join(doubtful)} {'is' if len(doubtful) == 1 else 'are'} under target, but "
        "indicative only (the judge agrees with people near chance): check a few cases by hand "
        "before acting on it."
        if doubtful
        else ""
    )
    if not weak:
        if doubtful:
            headline = f"No stage to fix named: {only_indicative}"
            if not_measured:
                headline += f" {not_measured}"
        else:
            headline = not_measured or (
                f"All {'four' if len(findings) == 4 else len(findings)} metrics meet their "
                "targets; look at the failed cases below."
            )
        return Diagnosis(fix_first=None, headline=headline, findings=findings)
    first = weak[0]
    stage = "retrieval" if first in RETRIEVAL_METRICS else "generation"
    for finding in findings:
        if finding.metric == first:
            finding.severity = "fix-first"
    problem, advice = _ADVICE[first]
    headline = f"Fix {stage} first: {problem} ({first} {summary.metrics[first].mean:.2f})."
    if stage == "retrieval" and any(m not in RETRIEVAL_METRICS for m in weak):
        headline += " Generation metrics are also weak; re-measure them after retrieval improves."
    if only_indicative:
        headline += f" {only_indicative}"
    if not_measured:
        headline += f" {not_measured}"
    return Diagnosis(fix_first=stage, headline=headline, findings=findings)
