"""Context precision: are the chunks useful for the reference answer ranked first?"""

from __future__ import annotations

from ..base import ChunkVerdict, Evidence, MetricName, MetricResult
from ..rules import PREVIEW_CHARS, average_precision, precheck
from .alignment import align
from .features import numbers, statement_keys
from .view import SampleView


def score_context_precision(view: SampleView) -> MetricResult:
    """Judge each ranked chunk useful or not against the ground truth, then average precision."""
    metric: MetricName = "context_precision"
    if (early := precheck(view.sample, metric)) is not None:
        return early
    contexts = view.sample.contexts
    settings = view.settings
    index = view.index
    gt = view.sample.ground_truth
    keys = statement_keys(gt, view.lang)
    gt_numbers = {n.value for n in numbers(gt)}
    verdicts = []
    for k, chunk in enumerate(contexts):
        start, end = index.table.chunk_range(k)
        windows = index.windows[start:end]
        found = {key for w in windows for key in keys & w.keys}
        found_numbers = gt_numbers & {m.value for w in windows for m in w.numbers}
        total = len(keys) + len(gt_numbers)
        overall = (len(found) + len(found_numbers)) / total if total else 0.0
        best_point, best_support = "", 0.0
        for point in view.points:
            aligned = align(point, index, settings, chunk=k)
            support = aligned.support if aligned.label == "supported" else aligned.support / 2
            if support > best_support:
                best_point, best_support = point, support
        usefulness = max(overall, best_support)
        useful = usefulness >= settings.useful_threshold
        if best_support >= overall and best_point:
            reason = f"{'supports' if useful else 'barely relates to'} '{_short(best_point)}'"
        else:
            reason = f"covers {overall:.0%} of the reference answer's key words"
        verdicts.append(
            ChunkVerdict(
                index=k,
                useful=useful,
                score=round(usefulness, 4),
                reason=reason,
                preview=chunk[:PREVIEW_CHARS],
            )
        )
    score = average_precision([v.useful for v in verdicts])
    notes = [] if any(v.useful for v in verdicts) else ["no retrieved chunk is useful"]
    return MetricResult(metric=metric, score=score, evidence=Evidence(chunks=verdicts, notes=notes))


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
