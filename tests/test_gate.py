import random

import pytest
from typer.testing import CliRunner

from factories import judge, uniform_run
from ragmeter._exceptions import ResultsError
from ragmeter.cli import app
from ragmeter.compare.gate import gate_run
from ragmeter.config import GateSettings
from ragmeter.results import load_run, save_run


def _noisy(n, mean, seed, sd=0.15):
    rng = random.Random(seed)
    return [min(1.0, max(0.0, rng.gauss(mean, sd))) for _ in range(n)]


BASE = {
    "context_recall": _noisy(50, 0.85, 1),
    "context_precision": _noisy(50, 0.75, 2),
    "faithfulness": _noisy(50, 0.95, 3, 0.05),
    "answer_relevancy": _noisy(50, 0.9, 4, 0.05),
}


def _shifted(metric, delta, noise_seed=None):
    scores = {m: list(v) for m, v in BASE.items()}
    rng = random.Random(noise_seed)
    scores[metric] = [
        min(1.0, max(0.0, s + delta + (rng.gauss(0, 0.03) if noise_seed else 0.0)))
        for s in scores[metric]
    ]
    return uniform_run(50, scores)


def _status(result):
    return {v.metric: v.status for v in result.verdicts}


def test_floors_only_without_baseline():
    result = gate_run(uniform_run(50, BASE))
    assert result.passed
    assert _status(result) == {
        "context_recall": "skip",
        "context_precision": "skip",
        "faithfulness": "pass",
        "answer_relevancy": "pass",
    }
    assert result.verdicts[0].lines == ["SKIP context_recall: no floor set and no baseline given"]


def test_real_drop_fails_and_names_the_metric():
    result = gate_run(_shifted("context_recall", -0.2), baseline=uniform_run(50, BASE))
    assert not result.passed
    assert _status(result)["context_recall"] == "fail"
    assert _status(result)["faithfulness"] == "pass"
    (line,) = next(v.lines for v in result.verdicts if v.metric == "context_recall")
    assert line.startswith("FAIL regression context_recall vs baseline: change -0.200 (n=50 paired")
    assert line.endswith("margin 0.05 — a significant drop beyond the margin: a real regression")


def test_small_noisy_change_passes():
    new = _shifted("context_recall", -0.01, noise_seed=9)
    result = gate_run(new, baseline=uniform_run(50, BASE))
    assert result.passed, [v.line for v in result.verdicts]


def test_significant_drop_within_margin_passes():
    result = gate_run(_shifted("context_recall", -0.03), baseline=uniform_run(50, BASE))
    assert result.passed
    (line,) = next(v.lines for v in result.verdicts if v.metric == "context_recall")
    assert line.startswith("PASS regression context_recall vs baseline: change -0.030")
    assert line.endswith("— a real drop, but within the margin")


def test_floor_fails_only_when_clearly_below():
    clearly = uniform_run(50, {**BASE, "faithfulness": _noisy(50, 0.6, 5, 0.1)})
    assert _status(gate_run(clearly))["faithfulness"] == "fail"
    barely = uniform_run(50, {**BASE, "faithfulness": _noisy(50, 0.84, 6, 0.2)})
    result = gate_run(barely)
    assert _status(result)["faithfulness"] == "pass"


def test_holm_levels_are_reported_and_p_values_adjusted():
    result = gate_run(_shifted("faithfulness", -0.3), baseline=uniform_run(50, BASE))
    tested = [c for c in result.checks if c.status != "skip"]
    assert len(tested) == 6
    baseline_checks = [c for c in tested if c.kind == "baseline"]
    floor_checks = [c for c in tested if c.kind == "floor"]
    # Holm within each family: four baseline checks, two floors
    assert max(c.level for c in baseline_checks) == pytest.approx(1 - 0.05 / 4)
    assert min(c.level for c in baseline_checks) == pytest.approx(0.95)
    assert max(c.level for c in floor_checks) == pytest.approx(1 - 0.05 / 2)
    assert all(c.p_value is not None and 0 < c.p_value <= 1 for c in tested)


def test_settings_change_the_verdict():
    run = uniform_run(50, {**BASE, "context_recall": _noisy(50, 0.5, 7, 0.1)})
    assert gate_run(run).passed
    assert not gate_run(run, GateSettings(floors={"context_recall": 0.8})).passed


def test_repeats_are_averaged_and_noise_band_warns():
    cases_base = uniform_run(50, BASE)
    new = uniform_run(50, BASE)
    for i, c in enumerate(new.cases):
        s = c.score("faithfulness")
        c.repeats = {"faithfulness": [s, max(0.0, s - 0.3 * (i % 2)), s]}
    result = gate_run(new, GateSettings(floors={"faithfulness": 0.87}), baseline=cases_base)
    assert result.repeats == 3
    floor = next(c for c in result.checks if c.kind == "floor")
    # odd cases judged s, s - 0.3, s: averaged to s - 0.1, so the mean drops by 0.05
    assert floor.estimate == pytest.approx(sum(BASE["faithfulness"]) / 50 - 0.05)
    assert floor.noise_sd and floor.noise_sd > 0
    assert any("noise band" in w for w in result.warnings)


def test_incomparable_baseline_raises_unless_forced():
    other = uniform_run(50, BASE, judge_fp=judge(model="gpt-x"))
    with pytest.raises(ResultsError, match="judge differs"):
        gate_run(uniform_run(50, BASE), baseline=other)
    result = gate_run(uniform_run(50, BASE), baseline=other, force=True)
    assert result.passed and any("forced" in w for w in result.warnings)


def test_cli_gate_exit_codes_and_baseline_promotion(tmp_path):
    save_run(uniform_run(50, BASE), tmp_path / "base")
    save_run(_shifted("context_recall", -0.2), tmp_path / "bad")
    save_run(uniform_run(50, BASE), tmp_path / "rerun")
    runner = CliRunner()
    bad = runner.invoke(app, ["gate", str(tmp_path / "bad"), "--baseline", str(tmp_path / "base")])
    assert bad.exit_code == 1, bad.output
    assert "FAIL regression context_recall vs baseline" in bad.output and "FAILED" in bad.output
    ok = runner.invoke(app, ["gate", str(tmp_path / "rerun"), "-b", str(tmp_path / "base")])
    assert ok.exit_code == 0, ok.output
    assert ok.output.count("\nPASS regression ") == 4  # one line per check
    assert ok.output.count("\nPASS floor ") == 2
    missing = runner.invoke(app, ["gate", str(tmp_path / "nothing")])
    assert missing.exit_code == 2
    promoted = runner.invoke(
        app, ["baseline", str(tmp_path / "rerun"), "--to", str(tmp_path / "ci" / "baseline.json")]
    )
    assert promoted.exit_code == 0, promoted.output
    assert load_run(tmp_path / "ci" / "baseline.json").summary.n_cases == 50
    config = tmp_path / "ragmeter.toml"
    config.write_text(f'[gate]\nbaseline = "{tmp_path / "ci" / "baseline.json"}"\n')
    via_config = runner.invoke(app, ["gate", str(tmp_path / "bad"), "--config", str(config)])
    assert via_config.exit_code == 1
    as_json = runner.invoke(
        app, ["gate", str(tmp_path / "rerun"), "--config", str(config), "--json"]
    )
    assert as_json.exit_code == 0 and '"passed": true' in as_json.output


def test_a_metric_nothing_could_score_fails_never_skips():
    down = "pipeline error: pipeline rag failed: ConnectError: All connection attempts failed"
    broken = uniform_run(50, {m: [down] * 50 for m in BASE})
    for baseline in (None, uniform_run(50, BASE)):
        result = gate_run(broken, baseline=baseline)
        assert not result.passed and result.failed_kinds == ["measured"]
        assert set(_status(result).values()) == {"fail"}
        (line,) = result.verdicts[2].lines
        assert line.startswith("FAIL faithfulness: not measured: 0 of 50 cases scored; cause: ")
        assert "ConnectError" in line


def test_too_few_scored_cases_fail_even_with_a_good_mean():
    half = [0.95] * 25 + ["judge error: invalid JSON from judge"] * 25
    result = gate_run(uniform_run(50, {**BASE, "faithfulness": half}))
    assert _status(result)["faithfulness"] == "fail"
    assert "25 of 50 cases scored" in result.verdicts[2].lines[0]
    assert gate_run(uniform_run(50, {**BASE, "faithfulness": half}), min_scored_share=0.5).passed


def test_a_baseline_that_measured_nothing_cannot_pass_the_new_run():
    empty_base = uniform_run(50, {**BASE, "context_recall": ["judge error: x"] * 50})
    result = gate_run(uniform_run(50, BASE), baseline=empty_base)
    assert _status(result)["context_recall"] == "fail"
    assert "the baseline cannot be compared" in result.verdicts[0].lines[0]


def test_floor_breach_is_worded_as_such_and_within_noise_warns():
    clearly = uniform_run(50, {**BASE, "faithfulness": _noisy(50, 0.6, 5, 0.1)})
    result = gate_run(clearly)
    assert result.failed_kinds == ["floor"]
    (line,) = result.verdicts[2].lines
    assert line.startswith("FAIL floor faithfulness: mean 0.")
    assert line.endswith("vs floor 0.85 (noise-aware) — significantly below the floor")
    assert "regression" not in line
    few = uniform_run(3, {"faithfulness": [0.2, 0.9, 1.0], "answer_relevancy": 0.9})
    noisy = gate_run(few)
    assert noisy.passed
    assert any(
        "below the floor 0.85, but on 3 cases that is within noise" in w for w in noisy.warnings
    )


def test_configured_floors_keep_the_defaults_unless_set_to_zero():
    assert GateSettings(floors={"context_recall": 0.7}).floors == {
        "faithfulness": 0.85,
        "answer_relevancy": 0.8,
        "context_recall": 0.7,
    }
    assert GateSettings(floors={"answer_relevancy": 0}).floors == {"faithfulness": 0.85}


def test_cli_gate_closing_line_names_the_kind_of_failure(tmp_path):
    save_run(uniform_run(50, {**BASE, "faithfulness": _noisy(50, 0.6, 5, 0.1)}), tmp_path / "low")
    result = CliRunner().invoke(app, ["gate", str(tmp_path / "low")])
    assert result.exit_code == 1
    assert result.output.rstrip().endswith(
        "FAILED: a mean significantly below its floor (see above)"
    )


def _rejudged_run():
    """50 cases whose odd ones were judged s, s - 0.3, s (their mean is s - 0.1)."""
    from factories import case, run

    cases = []
    for i in range(50):
        s = 0.9
        c = case(f"c{i:02d}", {"faithfulness": s})
        c.repeats = {"faithfulness": [s, s - 0.3 * (i % 2), s]}
        cases.append(c)
    return run(cases)


def test_the_report_and_the_gate_count_a_rejudged_case_the_same_way(tmp_path):
    rejudged = _rejudged_run()
    summary = rejudged.summary.metrics["faithfulness"]
    floor = next(c for c in gate_run(rejudged).checks if c.kind == "floor")
    assert summary.mean == pytest.approx(0.9 - 0.05)  # the mean of each case's judgements
    assert floor.estimate == pytest.approx(summary.mean)
    assert summary.n_failed == 0  # 0.8 per odd case, above the 0.7 threshold
    save_run(rejudged, tmp_path)
    assert load_run(tmp_path).summary.metrics["faithfulness"].mean == pytest.approx(0.85)


def test_a_file_from_before_rejudged_cases_were_averaged_loads_rebuilt(tmp_path):
    """Files written when the summary counted a re-judged case's first judgement still load;
    their summary is rebuilt under the current rule (a tampered one is still refused)."""
    import json

    from ragmeter.results.summary import summarize_metric

    rejudged = _rejudged_run()
    legacy = summarize_metric(rejudged.cases, "faithfulness", 0.7, first_only=True)
    rejudged.summary.metrics["faithfulness"] = legacy
    rejudged.summary.by_category["normal"]["faithfulness"] = legacy.model_copy()
    assert legacy.mean == pytest.approx(0.9)
    save_run(rejudged, tmp_path)
    loaded = load_run(tmp_path)
    assert loaded.summary.metrics["faithfulness"].mean == pytest.approx(0.85)
    assert loaded.summary.by_category["normal"]["faithfulness"].mean == pytest.approx(0.85)
    path = tmp_path / "results.json"
    data = json.loads(path.read_text())
    data["summary"]["metrics"]["faithfulness"]["mean"] = 0.99  # neither rule gives this
    path.write_text(json.dumps(data))
    with pytest.raises(ResultsError, match=r"summary\.metrics\.faithfulness\."):
        load_run(tmp_path)


# A gate passes only on what it checked (issue 30): too few cases for a floor or a paired test
# fails with the reason, unless `allow_unchecked` is set (then it is skipped with a warning).


def test_a_floor_on_one_scored_case_fails_whatever_its_score():
    from factories import case, run

    for score in (0.0, 1.0):
        one = run([case("a", {"faithfulness": score, "answer_relevancy": 0.9})])
        result = gate_run(one)
        assert not result.passed
        assert result.failed_kinds == ["unchecked"]
        assert result.verdicts[2].lines == [
            "FAIL floor faithfulness: not checked — only 1 scored case; a floor needs at least 2 "
            "(--allow-unchecked skips it)"
        ]
    allowed = gate_run(one, GateSettings(allow_unchecked=True))
    assert allowed.passed
    assert _status(allowed)["faithfulness"] == "skip"
    assert "faithfulness: passed without its floor check (allow_unchecked)" in allowed.warnings


def test_a_judged_metric_with_no_scored_case_fails_its_floor():
    from ragmeter.judges.rules import REFUSAL

    refused = uniform_run(5, {"faithfulness": [REFUSAL] * 5, "answer_relevancy": 0.9})
    result = gate_run(refused)
    assert not result.passed
    assert "only 0 scored cases; a floor needs at least 2" in result.verdicts[2].lines[0]


def test_a_paired_test_on_one_case_fails():
    from factories import case, run

    base = run([case("a", {"context_recall": 0.9})])
    new = run([case("a", {"context_recall": 0.1})])
    result = gate_run(new, baseline=base)
    assert not result.passed and result.failed_kinds == ["unchecked"]
    assert (
        "only 1 case scored in both runs; a paired test needs at least 2"
        in (result.verdicts[0].lines[0])
    )
    assert gate_run(new, GateSettings(allow_unchecked=True), baseline=base).passed


def test_cli_gate_fails_one_case_unless_allowed_by_flag_or_config(tmp_path):
    from factories import case, run

    save_run(run([case("a", {"faithfulness": 0.0, "answer_relevancy": 0.9})]), tmp_path / "one")
    runner = CliRunner()
    failed = runner.invoke(app, ["gate", str(tmp_path / "one")])
    assert failed.exit_code == 1, failed.output
    assert "FAIL floor faithfulness: not checked — only 1 scored case" in failed.output
    assert failed.output.rstrip().endswith("FAILED: a check had too few cases to run (see above)")
    flag = runner.invoke(app, ["gate", str(tmp_path / "one"), "--allow-unchecked"])
    assert flag.exit_code == 0, flag.output
    assert flag.output.rstrip().endswith("PASSED with warnings (see above)")
    config = tmp_path / "ragmeter.toml"
    config.write_text("[gate]\nallow_unchecked = true\n")
    via_config = runner.invoke(app, ["gate", str(tmp_path / "one"), "--config", str(config)])
    assert via_config.exit_code == 0, via_config.output


# A baseline of another eval set is refused (issue 30), by its contents' digest.


def _stamped(scores, *, questions=None, reference_contexts=None):
    from factories import case, run, stamped

    cases = [case(cid, s, question=(questions or {}).get(cid)) for cid, s in scores.items()]
    for c in cases:
        c.reference_contexts = list((reference_contexts or {}).get(c.id, []))
    return stamped(run(cases))


def test_a_baseline_of_another_eval_set_reusing_the_ids_is_refused():
    scores = {cid: {"faithfulness": 0.9, "answer_relevancy": 0.9} for cid in ("a", "b", "c")}
    base = _stamped({cid: {"faithfulness": 0.5, "answer_relevancy": 0.9} for cid in scores})
    other = {cid: f"another question {cid}?" for cid in scores}
    new = _stamped(scores, questions=other)
    for with_digests in (True, False):  # a file from before the digest is checked case by case
        if not with_digests:
            base.run.cases_digest = new.run.cases_digest = None
        with pytest.raises(ResultsError, match="all 3 shared case ids hold another question"):
            gate_run(new, baseline=base)
        with pytest.raises(ResultsError, match="all 3 shared case ids hold another question"):
            gate_run(new, baseline=base, force=True)
    base = _stamped({cid: {"faithfulness": 0.5, "answer_relevancy": 0.9} for cid in scores})
    # the same questions, other reference contexts: only the digest tells
    moved = _stamped(scores, reference_contexts={"a": ["another passage"]})
    with pytest.raises(ResultsError, match=r"eval set contents differ \(digest [0-9a-f]{12} base"):
        gate_run(moved, baseline=base)
    forced = gate_run(moved, baseline=base, force=True)
    assert any(w.startswith("forced: eval set contents differ") for w in forced.warnings)
    assert {c.n for c in forced.checks if c.kind == "baseline"} == {3}  # a, b, c unchanged


def test_without_a_digest_the_gate_pairs_only_unchanged_cases_and_says_so():
    from factories import case, run

    scores = [0.9, 0.8, 0.85, 0.95]
    base = run([case(f"c{i}", {"faithfulness": s}) for i, s in enumerate(scores)])
    new = run(
        [
            case(f"c{i}", {"faithfulness": s}, question="edited?" if i == 0 else None)
            for i, s in enumerate(scores)
        ]
    )
    result = gate_run(new, baseline=base)
    baseline_check = next(c for c in result.checks if c.kind == "baseline")
    assert baseline_check.n == 3  # c0's question changed: not paired
    assert any("neither run carries an eval-set digest" in w for w in result.warnings)
    two = {"a": {"faithfulness": 0.9}, "b": {"faithfulness": 0.9}}
    both_stamped = gate_run(_stamped(two), baseline=_stamped(two))
    assert both_stamped.passed and both_stamped.warnings == []


def test_cli_gate_refuses_a_baseline_of_another_eval_set_in_one_line(tmp_path):
    scores = {cid: {"faithfulness": 0.9, "answer_relevancy": 0.9} for cid in ("a", "b", "c")}
    save_run(_stamped(scores), tmp_path / "base")
    other = {cid: f"another question {cid}?" for cid in scores}
    save_run(_stamped(scores, questions=other), tmp_path / "new")
    result = CliRunner().invoke(
        app, ["gate", str(tmp_path / "new"), "--baseline", str(tmp_path / "base")]
    )
    assert result.exit_code == 2, result.output
    assert "PASSED" not in result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "runs of different eval sets" in errors[0]


# Gate words a newcomer reads right (issue 34): each line names its check, floors can be
# literal, and the output says which floors were used.

BARELY = {**BASE, "faithfulness": _noisy(50, 0.84, 6, 0.2)}
"""Faithfulness mean 0.805 on 50 cases: under the 0.85 floor, but not significantly."""


def test_each_check_line_names_its_kind_floor_or_regression():
    result = gate_run(uniform_run(50, BARELY), baseline=uniform_run(50, BASE))
    floor, regression = next(v.lines for v in result.verdicts if v.metric == "faithfulness")
    assert floor.startswith("PASS floor faithfulness: mean 0.805 (n=50, 97.5% upper bound 0.8")
    assert floor.endswith(
        "vs floor 0.85 (noise-aware) — below the floor, but not significantly (within noise); "
        "--literal fails it"
    )
    assert regression.startswith("FAIL regression faithfulness vs baseline: change -0.131")
    assert [c.line for c in result.checks if c.metric == "faithfulness"] == [floor, regression]
    assert any(
        "within noise, so the noise-aware floor passes it" in w and "--literal" in w
        for w in result.warnings
    )


def test_literal_floors_fail_a_mean_under_its_floor_even_within_noise():
    run = uniform_run(50, BARELY)
    assert gate_run(run).passed
    literal = gate_run(run, GateSettings(literal=True))
    assert not literal.passed and literal.literal and literal.failed_kinds == ["floor"]
    (line,) = next(v.lines for v in literal.verdicts if v.metric == "faithfulness")
    assert line.startswith("FAIL floor faithfulness: mean 0.805")
    assert line.endswith(
        "vs floor 0.85 (literal) — below the floor (within noise, but literal floors fail any "
        "mean under them)"
    )
    assert not any("within noise, so the noise-aware floor" in w for w in literal.warnings)
    # A mean at the floor is not under it, whatever the floating-point rounding (0.8499…94).
    at_floor = uniform_run(50, {**BASE, "faithfulness": [0.8, 0.9] * 25})
    passed = gate_run(at_floor, GateSettings(literal=True))
    assert passed.passed, [v.lines for v in passed.verdicts]
    assert next(c for c in passed.checks if c.kind == "floor").line.endswith(
        "(literal) — not below the floor"
    )


def test_literal_floors_leave_regressions_noise_aware():
    noisy = _shifted("context_recall", -0.01, noise_seed=9)
    result = gate_run(noisy, GateSettings(literal=True), baseline=uniform_run(50, BASE))
    assert result.passed, [v.lines for v in result.verdicts]


def test_without_floors_the_gate_checks_regressions_only():
    low = uniform_run(50, {**BASE, "faithfulness": _noisy(50, 0.6, 5, 0.1)})
    assert not gate_run(low, baseline=low).passed
    regressions = gate_run(low, baseline=low, with_floors=False)
    assert regressions.passed
    assert {c.kind for c in regressions.checks} == {"baseline"}
    broken = uniform_run(50, {**BASE, "faithfulness": ["judge error: x"] * 50})
    assert gate_run(broken, baseline=low, with_floors=False).failed_kinds == ["measured"]


def test_cli_gate_literal_by_flag_or_config_and_says_which_floors(tmp_path):
    save_run(uniform_run(50, BARELY), tmp_path / "run")
    runner = CliRunner()
    default = runner.invoke(app, ["gate", str(tmp_path / "run")])
    assert default.exit_code == 0, default.output
    assert "· floors noise-aware ·" in default.output.splitlines()[0]
    assert default.output.rstrip().endswith("PASSED with warnings (see above)")
    flag = runner.invoke(app, ["gate", str(tmp_path / "run"), "--literal"])
    assert flag.exit_code == 1, flag.output
    assert "· floors literal ·" in flag.output.splitlines()[0]
    assert (
        "FAIL floor faithfulness:" in flag.output and "(literal) — below the floor" in flag.output
    )
    assert flag.output.rstrip().endswith(
        "FAILED: a mean below its floor (literal floors) (see above)"
    )
    config = tmp_path / "ragmeter.toml"
    config.write_text("[gate]\nliteral = true\n", encoding="utf-8")
    via_config = runner.invoke(app, ["gate", str(tmp_path / "run"), "--config", str(config)])
    assert via_config.exit_code == 1, via_config.output
    overridden = runner.invoke(
        app, ["gate", str(tmp_path / "run"), "--config", str(config), "--noise-aware"]
    )
    assert overridden.exit_code == 0, overridden.output
    as_json = runner.invoke(app, ["gate", str(tmp_path / "run"), "--literal", "--json"])
    assert '"literal": true' in as_json.output


def test_gate_help_names_the_config_table_of_each_option():
    """`[gate]` in an option's help is not eaten as console markup."""
    result = CliRunner().invoke(app, ["gate", "--help"], env={"COLUMNS": "200"})
    text = " ".join(result.output.replace("│", " ").split())
    assert "(`allow_unchecked` in the [gate] table)" in text
    assert "Noise-aware floors (the default; `literal` in [gate])" in text
    assert "(default: `enforce_indicative` in [gate], off)" in text
