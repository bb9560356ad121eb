import random

from factories import case, judge, run, uniform_run
from ragmeter.compare import compare_runs


def _scores(n, mean, seed, spread=0.1):
    rng = random.Random(seed)
    return [min(1.0, max(0.0, mean + rng.uniform(-spread, spread))) for _ in range(n)]


def test_known_drop_in_one_metric_is_significant_and_others_are_not():
    base_recall = _scores(40, 0.85, 1)
    faith = _scores(40, 0.9, 2)
    base = uniform_run(
        40, {"context_recall": base_recall, "faithfulness": faith}, categories=("normal", "typo")
    )
    new = uniform_run(
        40,
        {"context_recall": [s - 0.2 for s in base_recall], "faithfulness": faith},
        categories=("normal", "typo"),
    )
    comparison = compare_runs(base, new)
    assert comparison.comparable
    recall = comparison.metrics["context_recall"]
    assert recall.n_paired == 40
    assert recall.diff is not None and abs(recall.diff + 0.2) < 1e-9
    assert recall.ci is not None and recall.ci[1] < 0
    assert recall.significant
    assert not comparison.metrics["faithfulness"].significant
    assert comparison.by_category["typo"]["context_recall"].n_paired == 20
    assert len(comparison.regressed) == 40
    assert all(c.metric == "context_recall" for c in comparison.regressed)
    assert comparison.improved == []


def test_regressed_cases_worst_first_with_evidence_and_one_sided_cases():
    base = run(
        [
            case("a", {"faithfulness": 1.0}),
            case("b", {"faithfulness": 0.9}),
            case("c", {"faithfulness": 0.5}),
            case("old", {"faithfulness": 1.0}),
        ]
    )
    new = run(
        [
            case("a", {"faithfulness": 0.2}, claims=[("It costs $5.", "contradicted")]),
            case("b", {"faithfulness": 0.6}),
            case("c", {"faithfulness": 0.9}),
            case("fresh", {"faithfulness": 1.0}),
        ]
    )
    comparison = compare_runs(base, new)
    assert [c.case_id for c in comparison.regressed] == ["a", "b"]
    assert comparison.regressed[0].diff == -0.8
    assert any("It costs $5." in line for line in comparison.regressed[0].evidence)
    assert [c.case_id for c in comparison.improved] == ["c"]
    assert comparison.only_in_base == ["old"]
    assert comparison.only_in_new == ["fresh"]
    assert comparison.metrics["faithfulness"].n_paired == 3


def test_each_change_says_whose_evidence_it_shows():
    base = run(
        [
            case("up", {"faithfulness": 0.2}, claims=[("It costs $5.", "contradicted")]),
            case("down", {"faithfulness": 1.0}),
        ]
    )
    new = run(
        [
            case("up", {"faithfulness": 1.0}),
            case("down", {"faithfulness": 0.3}, claims=[("It is free.", "contradicted")]),
        ]
    )
    comparison = compare_runs(base, new)
    [up], [down] = comparison.improved, comparison.regressed
    assert up.evidence_from == "base" and any("It costs $5." in e for e in up.evidence)
    assert up.evidence_title == "why the base run scored it 0.20"
    assert down.evidence_from == "new" and down.evidence_title == "why the new run scored it 0.30"

    from rich.console import Console

    from ragmeter.report.terminal import render_comparison

    console = Console(record=True, width=200)
    render_comparison(comparison, console)
    text = console.export_text()
    assert "why the base run scored it 0.20:" in text
    assert "why the new run scored it 0.30:" in text


def test_unscored_cases_are_not_paired():
    base = run([case("a", {"faithfulness": 1.0}), case("b", {"faithfulness": "refusal"})])
    new = run([case("a", {"faithfulness": 0.5}), case("b", {"faithfulness": 0.1})])
    d = compare_runs(base, new).metrics["faithfulness"]
    assert d.n_paired == 1 and d.diff == -0.5


def test_claims_whose_verdict_changed_are_matched_by_text():
    base = run(
        [
            case(
                "a",
                {"faithfulness": 1.0},
                claims=[("Refunds take 14 days.", "supported"), ("Gone.", "supported")],
            )
        ]
    )
    new = run(
        [
            case(
                "a",
                {"faithfulness": 0.5},
                claims=[("refunds  take 14 days.", "contradicted"), ("New.", "supported")],
            )
        ]
    )
    changes = compare_runs(base, new).claim_changes
    assert len(changes) == 1
    assert (changes[0].base_verdict, changes[0].new_verdict) == ("supported", "contradicted")


def test_different_judges_are_not_comparable_unless_forced():
    base = uniform_run(5, {"faithfulness": 0.9})
    new = uniform_run(5, {"faithfulness": 0.9}, judge_fp=judge(model="other"))
    comparison = compare_runs(base, new)
    assert not comparison.comparable
    assert "judge differs" in comparison.problems[0]
    assert comparison.metrics == {}
    forced = compare_runs(base, new, force=True)
    assert forced.comparable and forced.forced
    assert forced.metrics["faithfulness"].diff == 0


def test_disjoint_eval_sets_are_never_comparable_and_edited_cases_are_not_paired():
    base = run([case("a", {"faithfulness": 1.0})])
    new = run([case("z", {"faithfulness": 1.0})])
    assert not compare_runs(base, new, force=True).comparable
    base = run([case("a", {"faithfulness": 1.0}), case("b", {"faithfulness": 1.0})])
    new = run(
        [
            case("a", {"faithfulness": 0.0}, question="a different question"),
            case("b", {"faithfulness": 1.0}),
        ]
    )
    comparison = compare_runs(base, new)
    assert comparison.changed_cases == ["a"]
    assert comparison.metrics["faithfulness"].n_paired == 1


def _cli(*args):
    from typer.testing import CliRunner

    from ragmeter.cli import app

    return CliRunner().invoke(app, [str(a) for a in args])


def test_runs_of_eval_sets_whose_contents_differ_are_refused_unless_forced():
    from factories import stamped

    base = stamped(run([case(c, {"faithfulness": 0.9}) for c in "abc"]))
    new = run([case(c, {"faithfulness": 0.5}) for c in "abc"])
    new.cases[0].reference_contexts = ["another passage"]  # same question and reference
    stamped(new)
    refused = compare_runs(base, new)
    assert not refused.comparable and refused.metrics == {}
    assert refused.problems[0].startswith("eval set contents differ (digest ")
    forced = compare_runs(base, new, force=True)
    assert forced.comparable and forced.metrics["faithfulness"].n_paired == 3
    assert forced.notes == []  # both runs carry a digest


def test_a_run_without_a_digest_is_compared_case_by_case_and_says_so():
    from factories import stamped

    base = run([case(c, {"faithfulness": 0.9}) for c in "ab"])
    new = stamped(run([case(c, {"faithfulness": 0.9}) for c in "ab"]))
    comparison = compare_runs(base, new)
    assert comparison.comparable and comparison.metrics["faithfulness"].n_paired == 2
    assert comparison.notes == [
        "the base run carries no eval-set digest (written by an older ragmeter): whether both "
        "runs are of one eval set is unknown, so a case is paired only where its question and "
        "reference are the same in both"
    ]


def test_cli_compare_of_another_eval_set_reusing_the_ids_fails(tmp_path):
    from ragmeter.results import save_run

    save_run(run([case(c, {"faithfulness": 0.5}) for c in "abc"]), tmp_path / "base")
    other = run([case(c, {"faithfulness": 0.9}, question=f"other {c}?") for c in "abc"])
    save_run(other, tmp_path / "new")
    result = _cli("compare", tmp_path / "base", tmp_path / "new")
    assert result.exit_code == 2
    assert "error: runs not comparable: no case in common: all 3 shared case ids" in result.output


def test_cli_compare_that_pairs_nothing_fails_saying_why(tmp_path):
    from ragmeter.results import save_run

    save_run(run([case(c, {"faithfulness": 0.9}) for c in "ab"]), tmp_path / "base")
    save_run(run([case(c, {"answer_relevancy": 0.9}) for c in "ab"]), tmp_path / "new")
    result = _cli("compare", tmp_path / "base", tmp_path / "new")
    assert result.exit_code == 2, result.output
    assert (
        "error: nothing could be paired: no case was scored in both runs on any of "
        "context_recall, context_precision, faithfulness, answer_relevancy: of the 2 cases "
        "the runs share, none has a score on the same metric in both"
    ) in result.output
    ok = _cli("compare", tmp_path / "base", tmp_path / "base")
    assert ok.exit_code == 0, ok.output
