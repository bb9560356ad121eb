"""Prediction-powered means: coverage on synthetic data with a known true mean."""

from __future__ import annotations

import numpy as np
import pytest

from ragmeter.stats.ppi import ppi_mean


def population(rng, size):
    """Human labels Y ~ Bernoulli(p) and a lenient, noisy judge score f correlated with p."""
    p = rng.beta(4, 2, size)
    y = (rng.random(size) < p).astype(float)
    f = np.clip(p + 0.15 + rng.normal(0, 0.1, size), 0, 1)
    return y, f


TRUE_MEAN = 4 / 6  # mean of Beta(4, 2)


@pytest.mark.parametrize("tune", [True, False])
def test_interval_covers_the_true_mean_about_95_percent(tune):
    rng = np.random.default_rng(7)
    hits = 0
    runs = 400
    for _ in range(runs):
        y, f = population(rng, 1050)
        est = ppi_mean(y[:50], f[:50], f[50:], tune=tune)
        hits += est.ci[0] <= TRUE_MEAN <= est.ci[1]
    assert 0.90 <= hits / runs <= 0.99


def test_corrects_the_judges_bias():
    rng = np.random.default_rng(8)
    y, f = population(rng, 20_000)
    est = ppi_mean(y[:2000], f[:2000], f[2000:])
    assert est.judge_mean == pytest.approx(f.mean())
    assert est.judge_mean - TRUE_MEAN > 0.1  # the raw judge is lenient
    assert est.judge_bias == pytest.approx(f[:2000].mean() - y[:2000].mean())
    assert abs(est.mean - TRUE_MEAN) < 0.02


def test_good_judge_narrows_the_interval_and_noise_is_ignored():
    rng = np.random.default_rng(9)
    p = rng.random(2000)
    y = (rng.random(2000) < p).astype(float)
    good = ppi_mean(y[:100], p[:100], p[100:])
    assert good.ci[1] - good.ci[0] < good.labels_ci[1] - good.labels_ci[0]
    assert good.lam > 0.5
    noise = rng.random(2000)
    blind = ppi_mean(y[:100], noise[:100], noise[100:])
    assert blind.lam < 0.3
    assert blind.ci[1] - blind.ci[0] < 1.1 * (blind.labels_ci[1] - blind.labels_ci[0])


def test_needs_labels_and_unlabelled_scores():
    with pytest.raises(ValueError, match="two labelled"):
        ppi_mean([1.0], [1.0], [0.5])
    with pytest.raises(ValueError, match="unlabelled"):
        ppi_mean([1.0, 0.0], [1.0, 0.0], [])
