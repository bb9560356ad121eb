import pytest

from factories import case, run
from ragmeter.compare.noise import case_noise, case_scores, in_noise_band, measure_noise


def test_run_without_repeats_has_no_noise_summary():
    assert measure_noise(run([case("a", {"faithfulness": 1.0})])) is None


def test_spread_flips_and_noise_floor():
    cases = [
        # threshold for faithfulness is 0.7: 0.8 → 0.6 flips once in two
        case("a", {"faithfulness": 0.8}, repeats={"faithfulness": [0.8, 0.6, 0.8]}),
        case("b", {"faithfulness": 1.0}, repeats={"faithfulness": [1.0, 1.0, 1.0]}),
        case("c", {"faithfulness": 0.2}, repeats={"faithfulness": [0.2, None, 0.4]}),
    ]
    noise = measure_noise(run(cases))
    assert noise is not None and noise.repeats == 3
    f = noise.metrics["faithfulness"]
    assert f.n_cases == 3
    assert f.flip_rate == pytest.approx(1 / 3)
    assert f.flipping == ["a"]
    assert f.max_spread == pytest.approx(0.2)
    sd_a = case_noise(cases[0], "faithfulness", 0.7).sd
    sd_c = case_noise(cases[2], "faithfulness", 0.7).sd
    assert f.noise_floor == pytest.approx((sd_a**2 + sd_c**2) ** 0.5 / 3)
    assert [c.case_id for c in noise.cases] == ["a", "c"]
    a = case_noise(cases[0], "faithfulness", 0.7)
    assert a.flip_rate == 0.5 and a.spread == pytest.approx(0.2)


def test_case_scores_average_repeats_only_when_asked():
    r = run([case("a", {"faithfulness": 0.8}, repeats={"faithfulness": [0.8, 0.6, 1.0]})])
    assert case_scores(r, "faithfulness", average_repeats=False) == {"a": 0.8}
    assert case_scores(r, "faithfulness", average_repeats=True)["a"] == pytest.approx(0.8)


def test_noise_band():
    assert in_noise_band(0.86, 0.85, 0.01)
    assert not in_noise_band(0.90, 0.85, 0.01)
    assert not in_noise_band(0.85, 0.85, 0.0)
