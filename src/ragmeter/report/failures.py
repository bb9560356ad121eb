"""Select failed cases and explain them from the judge's evidence (no rescoring)."""

from __future__ import annotations

from dataclasses import dataclass

from ..judges.base import METRICS, MetricName
from ..results import CaseResult, RunResult
from .safe import printable


@dataclass(frozen=True)
class Failure:
    """One case failing one metric, with the lines of evidence that show why."""

    case: CaseResult
    metric: MetricName
    score: float
    reasons: list[str]


def _short(text: str, limit: int = 110) -> str:
    """`text` on one line, printable, cut to `limit` characters."""
    text = printable(" ".join(text.split()))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def explain(case: CaseResult, metric: MetricName) -> list[str]:
    """Human-readable evidence lines for why `case` scored as it did on `metric`."""
    result = case.metrics[metric]
    evidence = result.evidence
    lines: list[str] = []
    if metric == "faithfulness":
        for claim in evidence.claims:
            if claim.verdict == "supported":
                continue
            where = (
                f" (closest: chunk {claim.chunk_index + 1}" if claim.chunk_index is not None else ""
            )
            if where and claim.evidence:
                where += f" «{_short(claim.evidence, 80)}»)"
            elif where:
                where += ")"
            reason = f": {claim.reason}" if claim.reason else ""
            lines.append(
                f"{claim.verdict.replace('_', ' ')}: «{_short(claim.claim)}»{where}{reason}"
            )
    elif metric == "context_recall":
        for point in evidence.points:
            if not point.supported:
                reason = f": {point.reason}" if point.reason else ""
                lines.append(f"missing from contexts: «{_short(point.point)}»{reason}")
    elif metric == "context_precision":
        for chunk in evidence.chunks:
            if not chunk.useful:
                reason = f": {chunk.reason}" if chunk.reason else ""
                lines.append(
                    f"chunk {chunk.index + 1} not useful «{_short(chunk.preview, 80)}»{reason}"
                )
    lines.extend(evidence.notes)
    return lines


def collect_failures(run: RunResult, metrics: tuple[MetricName, ...] = METRICS) -> list[Failure]:
    """Every (case, metric) scored below the run's threshold, worst first."""
    failures: list[Failure] = []
    for case in run.cases:
        for metric in metrics:
            result = case.metrics.get(metric)
            threshold = run.run.thresholds.get(metric)
            if result is None or result.score is None or threshold is None:
                continue
            if result.score < threshold:
                failures.append(Failure(case, metric, result.score, explain(case, metric)))
    order = {m: i for i, m in enumerate(METRICS)}
    failures.sort(key=lambda f: (f.score, order[f.metric], f.case.id))
    return failures
