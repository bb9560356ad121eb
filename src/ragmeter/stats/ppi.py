"""Prediction-powered inference (PPI) of a mean: judge scores on many cases, corrected by
human labels on a few.

With human labels ``Y`` and judge scores ``f`` on ``n`` labelled cases and judge scores on
``N`` unlabelled cases, the estimate is ``λ·mean(f_unlabelled) + mean(Y − λ·f_labelled)``: the
judge's mean with its bias (measured on the labelled cases) removed. Its variance is
``λ²·var(f_u)/N + var(Y − λ·f_l)/n``, giving a normal interval (Angelopoulos et al., 2023,
"Prediction-powered inference"; the rectifier as in ARES). With ``tune=True`` λ is chosen to
minimise that variance (PPI++, Angelopoulos et al., 2024), so the interval is never much wider
than the labels-only one even when the judge is poor; ``λ = 1`` is classic PPI.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import NormalDist

from pydantic import BaseModel


class PPIEstimate(BaseModel):
    """A bias-corrected mean beside the judge's raw mean and the labels-only mean."""

    mean: float
    """Prediction-powered estimate of the mean human label."""
    ci: tuple[float, float]
    """Its interval (normal approximation)."""
    judge_mean: float
    """Raw mean of the judge's scores over all cases (labelled and unlabelled)."""
    judge_bias: float
    """Mean of judge − human on the labelled cases (positive: the judge is lenient)."""
    labels_mean: float
    """Mean of the human labels alone (classical estimate)."""
    labels_ci: tuple[float, float] | None
    """Its normal interval; None with fewer than two labels."""
    n_labelled: int
    """Cases with both a human label and a judge score."""
    n_unlabelled: int
    """Cases with a judge score only."""
    lam: float
    """Weight of the judge's scores (1 = classic PPI, 0 = labels only)."""
    confidence: float = 0.95


def _var(values: Sequence[float], mean: float) -> float:
    if len(values) < 2:
        return 0.0
    return sum((v - mean) ** 2 for v in values) / (len(values) - 1)


def ppi_mean(
    labels: Sequence[float],
    judged_labelled: Sequence[float],
    judged_unlabelled: Sequence[float],
    *,
    confidence: float = 0.95,
    tune: bool = True,
) -> PPIEstimate:
    """Prediction-powered mean of the human label and its interval.

    `labels[i]` and `judged_labelled[i]` belong to the same case; `judged_unlabelled` are the
    judge's scores on the cases nobody labelled (drawn from the same eval set).
    """
    n, big_n = len(labels), len(judged_unlabelled)
    if n != len(judged_labelled):
        raise ValueError("labels and judged_labelled must have the same length")
    if n < 2:
        raise ValueError("a prediction-powered estimate needs at least two labelled cases")
    if big_n < 1:
        raise ValueError("a prediction-powered estimate needs judge scores on unlabelled cases")
    y, f, fu = list(map(float, labels)), list(map(float, judged_labelled)), list(judged_unlabelled)
    mean_y, mean_f, mean_fu = sum(y) / n, sum(f) / n, sum(fu) / big_n
    lam = 1.0
    if tune:
        # λ* = cov(Y, f) / ((1 + n/N) var(f)), clipped to [0, 1]
        pooled = f + fu
        pooled_mean = sum(pooled) / len(pooled)
        var_f = _var(pooled, pooled_mean)
        cov = sum((a - mean_y) * (b - mean_f) for a, b in zip(y, f, strict=True)) / (n - 1)
        lam = 0.0 if var_f <= 1e-12 else min(1.0, max(0.0, cov / ((1 + n / big_n) * var_f)))
    rectifier = [a - lam * b for a, b in zip(y, f, strict=True)]
    mean_r = sum(rectifier) / n
    estimate = lam * mean_fu + mean_r
    se = (lam**2 * _var(fu, mean_fu) / big_n + _var(rectifier, mean_r) / n) ** 0.5
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    se_y = (_var(y, mean_y) / n) ** 0.5
    return PPIEstimate(
        mean=estimate,
        ci=(estimate - z * se, estimate + z * se),
        judge_mean=(sum(f) + sum(fu)) / (n + big_n),
        judge_bias=mean_f - mean_y,
        labels_mean=mean_y,
        labels_ci=(mean_y - z * se_y, mean_y + z * se_y),
        n_labelled=n,
        n_unlabelled=big_n,
        lam=lam,
        confidence=confidence,
    )


__all__ = ["PPIEstimate", "ppi_mean"]
