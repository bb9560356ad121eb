"""Statistics over scores: bootstrap intervals for means.

Intervals use the percentile bootstrap with a fixed seed so a report is reproducible.
Submodules: `agreement` (a judge's agreement with human labels: AUROC, Spearman, ...) and
`ppi` (prediction-powered estimates of a mean). Pure numbers: nothing here reads a run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy itself is imported where it is used
    import numpy as np
    from numpy.typing import ArrayLike, NDArray

DEFAULT_RESAMPLES = 2000
DEFAULT_SEED = 20261202


def mean(values: Sequence[float]) -> float | None:
    """Arithmetic mean, None for no values (never NaN)."""
    return sum(values) / len(values) if values else None


def bootstrap_ci(
    values: Sequence[float],
    *,
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the mean; None with fewer than two values."""
    if len(values) < 2:
        return None
    import numpy as np

    means = _rng_means(values, resamples, seed)
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [alpha, 1.0 - alpha])
    return (float(low), float(high))


def histogram(values: Sequence[float], bins: int = 10) -> list[int]:
    """Counts of values in `bins` equal bins over [0, 1] (1.0 falls in the last bin)."""
    counts = [0] * bins
    for value in values:
        counts[min(int(value * bins), bins - 1)] += 1
    return counts


BLOCK_INDICES = 250_000
"""Indices drawn at once by the bootstrap: with their gathered values, 4 MB at a time."""


def _rng_means(
    data: ArrayLike, resamples: int, seed: int, block_indices: int = BLOCK_INDICES
) -> NDArray[np.float64]:
    """Bootstrap means of the rows of `data` (cases on the last axis), one per resample.

    Resamples are drawn in blocks of about `block_indices` indices so memory stays flat on
    large runs (a million at once, 16 MB with the values they gather, was the peak of a
    5,000-case run's end); the generator's stream is the same as one big draw, so results do
    not depend on the block size.
    """
    import numpy as np

    arr = np.asarray(data, dtype=float)
    n = arr.shape[-1]
    rng = np.random.default_rng(seed)
    block = max(1, block_indices // max(1, n))
    parts = []
    for start in range(0, resamples, block):
        idx = rng.integers(0, n, size=(min(block, resamples - start), n))
        parts.append(arr[..., idx].mean(axis=-1))
    return np.concatenate(parts, axis=-1)


def paired_differences(
    base: dict[str, float], new: dict[str, float]
) -> tuple[list[str], list[float]]:
    """Ids scored in both maps (in `new`'s order) and their differences new − base."""
    ids = [case_id for case_id in new if case_id in base]
    return ids, [new[i] - base[i] for i in ids]


def paired_bootstrap_ci(
    diffs: Sequence[float],
    *,
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> tuple[float, float] | None:
    """Percentile interval of the mean paired difference, resampling cases (pairs kept together).

    Resampling the per-case differences is the paired bootstrap: each resample draws whole
    cases, so the correlation between the two runs is preserved.
    """
    return bootstrap_ci(diffs, confidence=confidence, resamples=resamples, seed=seed)


def bootstrap_upper(
    values: Sequence[float],
    level: float,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> float | None:
    """One-sided upper bound of the mean at confidence `level` (e.g. 0.99); None if < 2 values."""
    if len(values) < 2:
        return None
    import numpy as np

    means = _rng_means(values, resamples, seed)
    return float(np.quantile(means, level))


def bootstrap_p_below(
    values: Sequence[float],
    bound: float,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> float:
    """One-sided bootstrap p-value for "the mean is below `bound`" (H0: mean ≥ bound).

    It is the share of bootstrap means at or above `bound`, so it is below a level `a`
    exactly when the percentile upper bound at 1 − a lies below `bound`.
    """
    if len(values) < 2:
        return 1.0
    import numpy as np

    means = np.asarray(_rng_means(values, resamples, seed))
    return float((np.count_nonzero(means >= bound) + 1) / (resamples + 1))


def sign_flip_test(
    diffs: Sequence[float],
    *,
    resamples: int = 10000,
    seed: int = DEFAULT_SEED,
) -> float:
    """Two-sided paired permutation (sign-flip) test of "mean difference is 0"; the p-value.

    Under the null, each case's difference is as likely to have either sign, so flipping
    signs at random gives the null distribution of the mean. Exact for up to 12 cases.
    """
    import numpy as np

    data = np.asarray(diffs, dtype=float)
    n = len(data)
    if n == 0 or not np.any(data):
        return 1.0
    observed = abs(data.mean())
    if n <= 12:
        signs = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1) * 2 - 1
        null = np.abs((signs * data).mean(axis=1))
        return float(np.mean(null >= observed - 1e-12))
    rng = np.random.default_rng(seed)
    signs = rng.choice(np.array([-1.0, 1.0]), size=(resamples, n))
    null = np.abs((signs * data).mean(axis=1))
    return float((np.count_nonzero(null >= observed - 1e-12) + 1) / (resamples + 1))


def sign_flip_p_below(
    diffs: Sequence[float],
    *,
    resamples: int = 10000,
    seed: int = DEFAULT_SEED,
) -> float:
    """One-sided paired permutation (sign-flip) p-value for "the mean difference is below 0".

    Under the null of no change each case's difference is symmetric about 0, so the share of
    sign-flipped means at or below the observed one is an exact-level p-value; unlike the
    percentile bootstrap it does not run optimistic on 50 cases with many tied differences.
    """
    import numpy as np

    data = np.asarray(diffs, dtype=float)
    n = len(data)
    if n == 0 or not np.any(data):
        return 1.0
    observed = data.mean()
    if n <= 12:
        signs = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1) * 2 - 1
        null = (signs * data).mean(axis=1)
        return float(np.mean(null <= observed + 1e-12))
    rng = np.random.default_rng(seed)
    signs = rng.choice(np.array([-1.0, 1.0]), size=(resamples, n))
    null = (signs * data).mean(axis=1)
    return float((np.count_nonzero(null <= observed + 1e-12) + 1) / (resamples + 1))


def holm(pvalues: Sequence[float], alpha: float) -> tuple[list[bool], list[float]]:
    """Holm's step-down procedure: (rejected, adjusted p-values), in the input order.

    Controls the family-wise error rate at `alpha` across the tests, and rejects at least
    what Bonferroni rejects.
    """
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return [p <= alpha for p in adjusted], adjusted


def holm_levels(pvalues: Sequence[float], alpha: float) -> list[float]:
    """The per-test significance level Holm compares each p-value with: alpha / (m − rank)."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    levels = [alpha / m] * m
    for rank, i in enumerate(order):
        levels[i] = alpha / (m - rank)
    return levels
