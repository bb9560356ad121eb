"""Agreement between a judge's scores and human labels, with bootstrap intervals.

Rank correlations (Spearman, Kendall tau-b) for graded labels; AUROC, balanced accuracy and
Cohen's kappa for binary ones. Numpy only. Every statistic returns None where it is undefined
(fewer than two cases, one class only, a constant input), never NaN.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel

if TYPE_CHECKING:
    import numpy as np

    Array = np.ndarray

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 20261202

Statistic = Callable[["Array", "Array"], "float | None"]


class Measure(BaseModel):
    """One agreement statistic with its 95% bootstrap interval."""

    name: str
    """`Spearman`, `Kendall`, `AUROC`, `balanced accuracy` or `Cohen's kappa`."""
    value: float | None
    """The statistic on all cases; None when undefined."""
    ci: tuple[float, float] | None = None
    """Percentile bootstrap interval (cases resampled)."""
    n: int
    """Cases it was computed on."""


def rankdata(values: Sequence[float] | Array) -> Array:
    """Average ranks (1-based), ties sharing the mean of their ranks."""
    import numpy as np

    x = np.asarray(values, dtype=float)
    order = np.argsort(x, kind="mergesort")
    sorted_x = x[order]
    ranks = np.empty(len(x), dtype=float)
    # boundaries of runs of equal values
    starts = np.flatnonzero(np.r_[True, sorted_x[1:] != sorted_x[:-1]])
    ends = np.r_[starts[1:], len(x)]
    averaged = (starts + ends + 1) / 2.0  # mean of 1-based ranks start+1 .. end
    ranks[order] = np.repeat(averaged, ends - starts)
    return ranks


def pearson(x: Sequence[float] | Array, y: Sequence[float] | Array) -> float | None:
    """Pearson correlation; None when either side is constant or n < 2."""
    import numpy as np

    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(a) < 2:
        return None
    a, b = a - a.mean(), b - b.mean()
    denom = float(np.sqrt((a * a).sum() * (b * b).sum()))
    if denom <= 1e-12:
        return None
    return float((a * b).sum() / denom)


def spearman(x: Sequence[float] | Array, y: Sequence[float] | Array) -> float | None:
    """Spearman rank correlation (Pearson on average ranks)."""
    if len(x) < 2:
        return None
    return pearson(rankdata(x), rankdata(y))


def kendall_tau_b(x: Sequence[float] | Array, y: Sequence[float] | Array) -> float | None:
    """Kendall tau-b, which corrects for ties on both sides (O(n²) memory in blocks)."""
    import numpy as np

    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n = len(a)
    if n < 2:
        return None
    concordance = untied_a = untied_b = 0.0
    block = max(1, 2_000_000 // n)
    for start in range(0, n, block):
        stop = min(n, start + block)
        sa = np.sign(a[start:stop, None] - a[None, :])
        sb = np.sign(b[start:stop, None] - b[None, :])
        concordance += float((sa * sb).sum())
        untied_a += float(np.count_nonzero(sa))
        untied_b += float(np.count_nonzero(sb))
    denom = np.sqrt(untied_a * untied_b)  # each pair counted twice on every side: cancels
    if denom == 0:
        return None
    return float(concordance / denom)


def auroc(scores: Sequence[float] | Array, labels: Sequence[float] | Array) -> float | None:
    """Area under the ROC curve of `scores` for binary `labels` (ties count one half)."""
    import numpy as np

    s, y = np.asarray(scores, dtype=float), np.asarray(labels, dtype=float)
    positives = int((y == 1).sum())
    negatives = len(y) - positives
    if positives == 0 or negatives == 0:
        return None
    ranks = rankdata(s)
    u = ranks[y == 1].sum() - positives * (positives + 1) / 2.0
    return float(u / (positives * negatives))


def balanced_accuracy(
    scores: Sequence[float] | Array, labels: Sequence[float] | Array, threshold: float = 0.5
) -> float | None:
    """Mean of the recall on each class when a score ≥ `threshold` means positive."""
    import numpy as np

    s, y = np.asarray(scores, dtype=float), np.asarray(labels, dtype=float)
    pred = s >= threshold
    pos, neg = y == 1, y != 1
    if not pos.any() or not neg.any():
        return None
    return float((pred[pos].mean() + (~pred[neg]).mean()) / 2.0)


def cohen_kappa(
    scores: Sequence[float] | Array, labels: Sequence[float] | Array, threshold: float = 0.5
) -> float | None:
    """Cohen's kappa between the judge's decisions (score ≥ `threshold`) and binary labels."""
    import numpy as np

    pred = np.asarray(scores, dtype=float) >= threshold
    y = np.asarray(labels, dtype=float) == 1
    if len(y) < 2:
        return None
    observed = float((pred == y).mean())
    p_pred, p_y = float(pred.mean()), float(y.mean())
    expected = p_pred * p_y + (1 - p_pred) * (1 - p_y)
    if expected >= 1.0 - 1e-12:
        return None
    return (observed - expected) / (1.0 - expected)


def bootstrap_interval(
    statistic: Statistic,
    x: Sequence[float] | Array,
    y: Sequence[float] | Array,
    *,
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> tuple[float, float] | None:
    """Percentile interval of `statistic(x, y)` over resampled cases (pairs kept together).

    Resamples where the statistic is undefined are skipped; None if most of them are.
    """
    import numpy as np

    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(a) < 2:
        return None
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(resamples):
        idx = rng.integers(0, len(a), size=len(a))
        value = statistic(a[idx], b[idx])
        if value is not None:
            values.append(value)
    if len(values) < resamples / 2:
        return None
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(np.asarray(values), [alpha, 1.0 - alpha])
    return (float(low), float(high))


def measure(
    name: str,
    statistic: Statistic,
    x: Sequence[float] | Array,
    y: Sequence[float] | Array,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> Measure:
    """`statistic` on all cases with its bootstrap interval."""
    import numpy as np

    # A statistic is given arrays, as in the resamples of `bootstrap_interval`.
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    value = statistic(a, b) if len(a) else None
    ci = None
    if value is not None and resamples > 0:
        ci = bootstrap_interval(statistic, a, b, resamples=resamples, seed=seed)
    return Measure(name=name, value=value, ci=ci, n=len(a))


def paired_difference(
    name: str,
    statistic: Statistic,
    first: Sequence[float],
    second: Sequence[float],
    y: Sequence[float],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> Measure:
    """`statistic(first, y) - statistic(second, y)`: two scorings of the same cases against the
    same labels, its interval from resampling the cases once for both (the resamples of
    :func:`measure` with the same seed)."""
    import numpy as np

    a, b = np.asarray(first, dtype=float), np.asarray(second, dtype=float)

    def difference(index: Array, labels: Array) -> float | None:
        rows = index.astype(int)
        one, two = statistic(a[rows], labels), statistic(b[rows], labels)
        return None if one is None or two is None else one - two

    return measure(
        name, difference, np.arange(len(a), dtype=float), y, resamples=resamples, seed=seed
    )


def graded_measures(
    judge: Sequence[float], human: Sequence[float], *, resamples: int = DEFAULT_RESAMPLES
) -> list[Measure]:
    """Spearman and Kendall tau-b of judge scores against graded human labels."""
    # Kendall's O(n²) bootstrap is the slow part: fewer resamples for large sets.
    kendall_resamples = resamples if len(judge) <= 600 else max(200, resamples // 4)
    return [
        measure("Spearman", spearman, judge, human, resamples=resamples),
        measure("Kendall", kendall_tau_b, judge, human, resamples=kendall_resamples),
    ]


def binary_measures(
    judge: Sequence[float],
    human: Sequence[float],
    *,
    threshold: float = 0.5,
    resamples: int = DEFAULT_RESAMPLES,
) -> list[Measure]:
    """AUROC, balanced accuracy and Cohen's kappa at `threshold` against binary labels."""

    def bal(s: Array, y: Array) -> float | None:
        return balanced_accuracy(s, y, threshold)

    def kappa(s: Array, y: Array) -> float | None:
        return cohen_kappa(s, y, threshold)

    return [
        measure("AUROC", auroc, judge, human, resamples=resamples),
        measure("balanced accuracy", bal, judge, human, resamples=resamples),
        measure("Cohen's kappa", kappa, judge, human, resamples=resamples),
    ]


__all__ = [
    "Measure",
    "auroc",
    "balanced_accuracy",
    "binary_measures",
    "bootstrap_interval",
    "cohen_kappa",
    "graded_measures",
    "kendall_tau_b",
    "measure",
    "paired_difference",
    "pearson",
    "rankdata",
    "spearman",
]
