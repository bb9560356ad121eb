from importlib.metadata import entry_points

import numpy  # noqa: F401  (pytester's sys.modules snapshot must not drop it)
import pytest

from factories import uniform_run
from ragmeter.results import save_run

pytest_plugins = ["pytester"]

# Until the pytest11 entry point is installed, load the plugin explicitly.
PLUGIN = (
    []
    if any(ep.name == "ragmeter" for ep in entry_points(group="pytest11"))
    else ["-p", "ragmeter.pytest_plugin"]
)


@pytest.fixture
def runs(tmp_path):
    good = {"faithfulness": [0.95 - 0.01 * (i % 3) for i in range(40)]}
    bad = {"faithfulness": [0.95 - 0.5 * (i % 2) for i in range(40)]}
    save_run(uniform_run(40, good), tmp_path / "base")
    save_run(uniform_run(40, bad), tmp_path / "bad")
    return tmp_path


def test_assert_mean_and_no_regression_pass_and_fail_with_worst_cases(pytester, runs):
    pytester.makepyfile(
        """
        def test_floor(ragmeter_run):
            ragmeter_run.assert_mean("faithfulness", ">=", 0.85)

        def test_no_regression(ragmeter_run, ragmeter_baseline):
            ragmeter_run.assert_no_regression(ragmeter_baseline)
        """
    )
    ok = pytester.runpytest_subprocess(
        *PLUGIN, f"--ragmeter-results={runs / 'base'}", f"--ragmeter-baseline={runs / 'base'}"
    )
    ok.assert_outcomes(passed=2)
    bad = pytester.runpytest_subprocess(
        *PLUGIN, f"--ragmeter-results={runs / 'bad'}", f"--ragmeter-baseline={runs / 'base'}"
    )
    bad.assert_outcomes(failed=2)
    out = bad.stdout.str()
    assert "faithfulness mean 0.700" in out and "is not >= 0.85" in out
    assert "worst cases (a case fails under the 0.70 pass mark):" in out
    assert "0.45  c001" in out  # worst cases listed
    assert "no-regression check against the baseline failed:" in out
    assert "FAIL regression faithfulness vs baseline: change -0.2" in out
    assert "worst regressed cases:" in out


def test_ini_options_and_skips_without_configuration(pytester, runs):
    pytester.makeini(f"[pytest]\nragmeter_results = {runs / 'base'}\n")
    pytester.makepyfile(
        """
        def test_mean(ragmeter_run):
            assert ragmeter_run.mean("faithfulness") > 0.9

        def test_baseline(ragmeter_baseline):
            pass
        """
    )
    result = pytester.runpytest_subprocess(*PLUGIN, "-rs")
    result.assert_outcomes(passed=1, skipped=1)
    assert "no baseline configured" in result.stdout.str()


def test_session_run_evaluates_a_pipeline_once(pytester):
    pytester.makepyfile(
        pipe="""
        CALLS = []

        def answer(question, history=None):
            CALLS.append(question)
            return {"contexts": ["Refunds are issued within 14 days."],
                    "answer": "Refunds are issued within 14 days."}
        """,
        cases="",
    )
    (pytester.path / "cases.jsonl").write_text(
        "\n".join(
            f'{{"id": "q{i}", "question": "How long do refunds take? ({i})", '
            '"ground_truth": "Refunds are issued within 14 days."}'
            for i in range(3)
        )
    )
    pytester.makepyfile(
        test_quality="""
        import pipe

        def test_one(ragmeter_run):
            assert ragmeter_run.result.summary.n_cases == 3

        def test_two(ragmeter_run):
            assert len(pipe.CALLS) == 3  # evaluated once for the session
        """
    )
    pytester.syspathinsert()
    result = pytester.runpytest_subprocess(
        *PLUGIN, "--ragmeter-cases=cases.jsonl", "--ragmeter-pipeline=pipe:answer"
    )
    result.assert_outcomes(passed=2)


def test_every_case_failing_is_never_a_pass(pytester, tmp_path):
    reason = "pipeline error: pipeline rag raised RuntimeError: index offline"
    save_run(uniform_run(40, {"faithfulness": [reason] * 40}), tmp_path / "broken")
    save_run(uniform_run(40, {"faithfulness": 0.95}), tmp_path / "base")
    pytester.makepyfile(
        """
        def test_floor(ragmeter_run):
            ragmeter_run.assert_mean("faithfulness", ">=", 0.85)

        def test_no_regression(ragmeter_run, ragmeter_baseline):
            ragmeter_run.assert_no_regression(ragmeter_baseline)
        """
    )
    result = pytester.runpytest_subprocess(
        *PLUGIN,
        f"--ragmeter-results={tmp_path / 'broken'}",
        f"--ragmeter-baseline={tmp_path / 'base'}",
    )
    result.assert_outcomes(failed=2)
    out = result.stdout.str()
    assert "faithfulness was not measured: 0 of 40 cases scored" in out
    assert "40 cases (c000, c001, c002): pipeline error" in out and "index offline" in out
    assert "FAIL faithfulness: not measured" in out


def test_the_worst_cases_listed_are_the_worst_by_the_mean_of_repeats():
    from factories import case, run
    from ragmeter.pytest_plugin import _worst_lines

    rejudged = run(
        [
            case("a", {"faithfulness": 0.9}, repeats={"faithfulness": [0.9, 0.3, 0.3]}),
            case("b", {"faithfulness": 0.4}, repeats={"faithfulness": [0.4, 1.0, 1.0]}),
        ]
    )
    lines = [line for line in _worst_lines(rejudged, "faithfulness") if not line.startswith("    ")]
    assert [line.split()[:2] for line in lines] == [["0.50", "a"], ["0.80", "b"]]


def test_assertions_on_one_case_fail_as_the_gate_does():
    """A 1-case run: `assert_mean` and `assert_no_regression` fail like `ragmeter gate`,
    whatever the score, unless told to allow it."""
    from factories import case, run
    from ragmeter.compare.gate import gate_run
    from ragmeter.config import GateSettings
    from ragmeter.pytest_plugin import RagmeterRun

    one = run([case("a", {"faithfulness": 1.0, "answer_relevancy": 0.9})])
    assert not gate_run(one).passed
    checked = RagmeterRun(one)
    with pytest.raises(pytest.fail.Exception, match="only 1 scored case; an assertion"):
        checked.assert_mean("faithfulness", ">=", 0.85)
    checked.assert_mean("faithfulness", ">=", 0.85, allow_unchecked=True)
    with pytest.raises(pytest.fail.Exception, match="a paired test needs at least 2"):
        checked.assert_no_regression(one)
    checked.assert_no_regression(one, GateSettings(allow_unchecked=True))
    with pytest.raises(pytest.fail.Exception, match="a floor needs at least 2"):
        checked.assert_gate()
    checked.assert_gate(one, GateSettings(allow_unchecked=True))
    two = uniform_run(2, {"faithfulness": 0.9, "answer_relevancy": 0.9})
    RagmeterRun(two).assert_mean("faithfulness", ">=", 0.85)


def test_no_regression_refuses_a_baseline_of_another_eval_set():
    from factories import case, run, stamped
    from ragmeter._exceptions import ResultsError
    from ragmeter.pytest_plugin import RagmeterRun

    base = stamped(run([case(c, {"faithfulness": 0.9}) for c in "abc"]))
    new = run([case(c, {"faithfulness": 0.9}) for c in "abcd"])  # a case added
    with pytest.raises(ResultsError, match="eval set contents differ"):
        RagmeterRun(stamped(new)).assert_no_regression(base)


def test_an_indicative_metric_under_its_bar_warns_unless_enforced(pytester, tmp_path):
    from ragmeter.results import CalibrationNote

    near_chance = CalibrationNote(
        metric="answer_relevancy", measure="Spearman", value=-0.03, ci=(-0.15, 0.07), n=309
    )
    weak = uniform_run(40, {"faithfulness": 0.95, "answer_relevancy": 0.3})
    weak.run.calibration = [near_chance]
    save_run(weak, tmp_path / "run")
    pytester.makepyfile(
        """
        def test_bar(ragmeter_run):
            ragmeter_run.assert_mean("answer_relevancy", ">=", 0.8)

        def test_gate(ragmeter_run):
            ragmeter_run.assert_gate(ragmeter_run.result)
        """
    )
    results = f"--ragmeter-results={tmp_path / 'run'}"
    warned = pytester.runpytest_subprocess(*PLUGIN, results)
    warned.assert_outcomes(passed=2, warnings=2)
    out = warned.stdout.str()
    assert "RagmeterIndicativeWarning: answer_relevancy mean 0.300 (95% CI" in out
    assert "is not >= 0.8, but answer_relevancy is indicative only" in out
    assert "RagmeterIndicativeWarning: WARN floor answer_relevancy: mean 0.300" in out
    enforced = pytester.runpytest_subprocess(*PLUGIN, results, "--ragmeter-enforce-indicative")
    enforced.assert_outcomes(failed=2)
    assert "FAIL floor answer_relevancy:" in enforced.stdout.str()
    pytester.makeini("[pytest]\nragmeter_enforce_indicative = true\n")
    pytester.runpytest_subprocess(*PLUGIN, results).assert_outcomes(failed=2)


# Assertions named for what they check (issue 34): `assert_no_regression` checks regressions
# against the baseline only, `assert_gate` the whole gate; floors can be literal.


def _under_the_floor_within_noise(path):
    """Faithfulness 0.83 on 40 cases (0.70 and 0.96 by turns): under the 0.85 floor, within
    noise."""
    save_run(uniform_run(40, {"faithfulness": [0.70, 0.96] * 20}), path)


def test_no_regression_checks_no_floor_and_assert_gate_checks_both(pytester, tmp_path):
    low = {"faithfulness": [0.55, 0.65] * 20}  # mean 0.60: significantly under its floor
    save_run(uniform_run(40, low), tmp_path / "low")
    pytester.makepyfile(
        """
        def test_no_regression(ragmeter_run, ragmeter_baseline):
            ragmeter_run.assert_no_regression(ragmeter_baseline)

        def test_gate(ragmeter_run, ragmeter_baseline):
            ragmeter_run.assert_gate(ragmeter_baseline)

        def test_floors(ragmeter_run):
            ragmeter_run.assert_gate()
        """
    )
    result = pytester.runpytest_subprocess(
        *PLUGIN, f"--ragmeter-results={tmp_path / 'low'}", f"--ragmeter-baseline={tmp_path / 'low'}"
    )
    result.assert_outcomes(passed=1, failed=2)  # the same run as its baseline: no regression
    out = result.stdout.str()
    # each failure's own report (the summary lines may repeat it, as wide as the terminal is)
    failures = out.split("short test summary info")[0]
    assert failures.count("ragmeter gate failed (floors noise-aware):") == 2
    assert "FAIL floor faithfulness: mean 0.600 (n=40" in out
    assert "— significantly below the floor" in out
    assert "worst cases of faithfulness:" in out and "0.55  c000" in out
    assert "no-regression check against the baseline failed:" not in out


def test_assert_gate_literal_by_option_ini_or_config(pytester, tmp_path):
    _under_the_floor_within_noise(tmp_path / "run")
    pytester.makepyfile(
        """
        def test_gate(ragmeter_run):
            ragmeter_run.assert_gate()
        """
    )
    results = f"--ragmeter-results={tmp_path / 'run'}"
    pytester.runpytest_subprocess(*PLUGIN, results).assert_outcomes(passed=1)
    literal = pytester.runpytest_subprocess(*PLUGIN, results, "--ragmeter-literal")
    literal.assert_outcomes(failed=1)
    out = literal.stdout.str()
    assert "ragmeter gate failed (floors literal):" in out
    assert "vs floor 0.85 (literal) — below the floor (within noise" in out
    pytester.makeini("[pytest]\nragmeter_literal = true\n")
    pytester.runpytest_subprocess(*PLUGIN, results).assert_outcomes(failed=1)
    pytester.makeini("[pytest]\n")
    config = pytester.path / "ragmeter.toml"
    config.write_text("[gate]\nliteral = true\n", encoding="utf-8")
    via_config = pytester.runpytest_subprocess(*PLUGIN, results, f"--ragmeter-config={config}")
    via_config.assert_outcomes(failed=1)


def test_assert_gate_holds_the_run_to_the_config_floors(tmp_path):
    """`assert_gate` reads the `[gate]` table `ragmeter gate` reads (the session fixture passes
    it); settings given to the call win."""
    from ragmeter.config import GateSettings
    from ragmeter.pytest_plugin import RagmeterRun

    run = uniform_run(40, {"faithfulness": 0.95, "context_recall": [0.5, 0.6] * 20})
    RagmeterRun(run).assert_gate()
    configured = RagmeterRun(run, gate=GateSettings(floors={"context_recall": 0.8}))
    with pytest.raises(pytest.fail.Exception, match=r"FAIL floor context_recall: mean 0\.550"):
        configured.assert_gate()
    configured.assert_gate(settings=GateSettings())
    configured.assert_no_regression(run)
