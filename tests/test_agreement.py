"""Agreement statistics against hand-computed and brute-force values."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ragmeter.stats.agreement import (
    auroc,
    balanced_accuracy,
    binary_measures,
    bootstrap_interval,
    cohen_kappa,
    graded_measures,
    kendall_tau_b,
    paired_difference,
    rankdata,
    spearman,
)


def test_rankdata_averages_ties():
    assert rankdata([10, 20, 20, 5]).tolist() == [2.0, 3.5, 3.5, 1.0]


def test_spearman_known_values():
    assert spearman([1, 2, 3, 4, 5], [5, 6, 7, 8, 7]) == pytest.approx(0.8207826816681233)
    assert spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 1, 1], [1, 2, 3]) is None
    assert spearman([1], [1]) is None


def brute_tau_b(x, y):
    concordant = discordant = tied_x = tied_y = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        dx, dy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
        if dx == 0 and dy == 0:
            continue
        if dx == 0:
            tied_x += 1
        elif dy == 0:
            tied_y += 1
        elif dx == dy:
            concordant += 1
        else:
            discordant += 1
    n0 = concordant + discordant
    return (concordant - discordant) / np.sqrt((n0 + tied_x) * (n0 + tied_y))


def test_kendall_tau_b_with_ties():
    assert kendall_tau_b([12, 2, 1, 12, 2], [1, 4, 7, 1, 0]) == pytest.approx(-0.47140452079103173)
    rng = np.random.default_rng(1)
    x, y = rng.integers(0, 4, 60).astype(float), rng.integers(0, 5, 60).astype(float)
    assert kendall_tau_b(x, y) == pytest.approx(brute_tau_b(x, y))
    assert kendall_tau_b([1, 1], [1, 2]) is None


def test_auroc_matches_pairwise_count():
    rng = np.random.default_rng(2)
    labels = rng.integers(0, 2, 80)
    scores = np.round(rng.random(80) + 0.3 * labels, 1)  # rounding makes ties
    pos, neg = scores[labels == 1], scores[labels == 0]
    wins = sum((p > q) + 0.5 * (p == q) for p in pos for q in neg)
    assert auroc(scores, labels) == pytest.approx(wins / (len(pos) * len(neg)))
    assert auroc([0.1, 0.9], [1, 1]) is None


def test_balanced_accuracy_and_kappa_at_threshold():
    scores = [0.9, 0.8, 0.3, 0.6, 0.1, 0.2]
    labels = [1, 1, 1, 0, 0, 0]
    # at 0.5: recall on positives 2/3, on negatives 2/3
    assert balanced_accuracy(scores, labels) == pytest.approx(2 / 3)
    assert balanced_accuracy(scores, labels, threshold=0.25) == pytest.approx((1 + 2 / 3) / 2)
    # observed agreement 4/6, expected 0.5 -> kappa (4/6 - 1/2) / (1/2)
    assert cohen_kappa(scores, labels) == pytest.approx(1 / 3)
    assert cohen_kappa([1, 1], [1, 1]) is None


def test_bootstrap_interval_contains_value_and_narrows():
    rng = np.random.default_rng(3)

    def sample(n):
        x = rng.random(n)
        return x, x + rng.normal(0, 0.3, n)

    small = bootstrap_interval(spearman, *sample(40), resamples=300)
    large = bootstrap_interval(spearman, *sample(400), resamples=300)
    assert small is not None and large is not None
    assert large[1] - large[0] < small[1] - small[0]
    x, y = sample(100)
    value = spearman(x, y)
    low, high = bootstrap_interval(spearman, x, y, resamples=300)
    assert low < value < high


def test_measure_sets():
    judge = [0.9, 0.7, 0.4, 0.2, 0.8, 0.1]
    graded = graded_measures(judge, [1.0, 0.67, 0.33, 0.0, 1.0, 0.33], resamples=100)
    assert [m.name for m in graded] == ["Spearman", "Kendall"]
    assert all(m.n == 6 and m.value is not None and m.value > 0.7 for m in graded)
    binary = binary_measures(judge, [1, 1, 0, 0, 1, 0], threshold=0.5, resamples=100)
    assert [m.name for m in binary] == ["AUROC", "balanced accuracy", "Cohen's kappa"]
    assert [m.value for m in binary] == [1.0, 1.0, 1.0]


def test_paired_difference_resamples_both_scorings_together():
    rng = np.random.default_rng(3)
    labels = (rng.random(80) < 0.5).astype(float)
    sharp = labels * 0.6 + rng.random(80) * 0.5
    blunt = labels * 0.2 + rng.random(80) * 0.5
    diff = paired_difference("AUROC difference", auroc, sharp, blunt, labels, resamples=300)
    assert diff.value == pytest.approx(auroc(sharp, labels) - auroc(blunt, labels))
    assert diff.ci is not None and 0 < diff.ci[0] <= diff.value <= diff.ci[1]
    same = paired_difference("AUROC difference", auroc, sharp, sharp, labels, resamples=50)
    assert same.value == 0 and same.ci == (0.0, 0.0)  # one resample of the cases for both
