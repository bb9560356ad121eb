import random

import pytest

from ragmeter.stats import (
    bootstrap_ci,
    bootstrap_p_below,
    bootstrap_upper,
    holm,
    holm_levels,
    paired_bootstrap_ci,
    paired_differences,
    sign_flip_test,
)


def test_paired_differences_keep_only_common_ids_in_new_order():
    ids, diffs = paired_differences({"a": 0.5, "b": 1.0}, {"b": 0.5, "c": 1.0, "a": 1.0})
    assert ids == ["b", "a"]
    assert diffs == [-0.5, 0.5]


def test_paired_interval_excludes_zero_for_a_consistent_drop():
    rng = random.Random(1)
    diffs = [-0.1 + rng.uniform(-0.05, 0.05) for _ in range(40)]
    low, high = paired_bootstrap_ci(diffs)
    assert low < -0.1 < high < 0


def test_sign_flip_test_separates_shift_from_noise():
    rng = random.Random(2)
    raw = [rng.gauss(0, 0.2) for _ in range(50)]
    noise = [x - sum(raw) / len(raw) for x in raw]  # mean exactly 0
    assert sign_flip_test(noise) > 0.05
    assert sign_flip_test([x - 0.2 for x in noise]) < 0.001
    assert sign_flip_test([0.0] * 10) == 1.0


def test_sign_flip_exact_for_small_samples():
    # all 4 differences positive: only 2 of 16 sign patterns are as extreme
    assert sign_flip_test([0.1, 0.2, 0.3, 0.4]) == pytest.approx(2 / 16)


def test_p_value_agrees_with_upper_bound():
    values = [0.8, 0.9, 0.7, 1.0, 0.85, 0.75, 0.95, 0.6, 0.9, 0.88]
    for bound in (0.75, 0.82, 0.9, 0.95):
        p = bootstrap_p_below(values, bound)
        upper = bootstrap_upper(values, 0.95)
        assert (p < 0.05) == (upper < bound)


def test_upper_bound_is_above_the_mean_and_inside_two_sided_interval():
    values = [i / 20 for i in range(21)]
    upper = bootstrap_upper(values, 0.95)
    _low, high = bootstrap_ci(values, confidence=0.90)
    assert 0.5 < upper == pytest.approx(high, abs=1e-9)
    assert bootstrap_upper([0.5], 0.95) is None


def test_holm_steps_down_and_beats_bonferroni():
    pvalues = [0.01, 0.04, 0.03, 0.2]
    rejected, adjusted = holm(pvalues, 0.05)
    assert rejected == [True, False, False, False]
    assert adjusted[0] == pytest.approx(0.04)
    rejected, _ = holm([0.001, 0.013, 0.02], 0.05)
    assert rejected == [True, True, True]  # Bonferroni (0.0167) would keep the last
    assert holm_levels([0.001, 0.013, 0.02], 0.05) == pytest.approx([0.05 / 3, 0.025, 0.05])


def test_bootstrap_means_do_not_depend_on_the_block_size():
    from ragmeter.stats import _rng_means

    rng = random.Random(3)
    values = [rng.random() for _ in range(5000)]
    whole = _rng_means(values, 300, seed=7, block_indices=10**9)
    for block_indices in (1, 4999, 5001, 250_000):
        assert (_rng_means(values, 300, seed=7, block_indices=block_indices) == whole).all()
