"""Run health: a metric counts as measured only when enough applicable cases were scored."""

from factories import case, run
from ragmeter._util.exit_codes import ExitCode
from ragmeter.judges.rules import OUT_OF_SCOPE, REFUSAL
from ragmeter.results.health import assess_run
from ragmeter.results.summary import group_unscored

BOOM = "pipeline error: pipeline rag raised RuntimeError: index offline"


def _run(rows):
    return run([case(f"c{i}", row) for i, row in enumerate(rows)])


def test_complete_run_is_ok():
    result = _run([{"faithfulness": 0.9, "context_recall": 1.0}] * 5)
    health = assess_run(result.summary, ("faithfulness", "context_recall"))
    assert health.ok and health.exit_code == ExitCode.OK and health.problems == []


def test_unscored_by_design_does_not_count_against_a_metric():
    rows = [{"context_recall": 1.0, "faithfulness": 0.9}] * 4 + [
        {"context_recall": OUT_OF_SCOPE, "faithfulness": REFUSAL}
    ] * 6
    health = assess_run(_run(rows).summary, ("context_recall", "faithfulness"))
    assert health.ok
    recall = health.metrics[0]
    assert (recall.n_scored, recall.n_applicable, recall.share) == (4, 4, 1.0)


def test_nothing_applicable_is_not_a_failure():
    health = assess_run(_run([{"context_recall": OUT_OF_SCOPE}] * 3).summary, ("context_recall",))
    assert health.ok and health.metrics[0].share is None


def test_too_few_scored_is_incomplete_and_names_the_cause():
    rows = [{"faithfulness": 0.9}] * 8 + [{"faithfulness": BOOM}] * 2
    summary = _run(rows).summary
    assert assess_run(summary, ("faithfulness",), min_scored_share=0.8).ok
    health = assess_run(summary, ("faithfulness",), min_scored_share=0.9)
    assert not health.ok and health.exit_code == ExitCode.INCOMPLETE
    assert health.problems == [
        f"faithfulness: 8 of 10 cases scored (90% needed); cause: {BOOM} (2 cases: c8, c9)"
    ]


def test_metrics_failing_alike_share_one_line_and_budget_comes_first():
    budget = "judge budget reached: --max-cost 0.5 would be exceeded"
    rows = [
        {
            m: budget
            for m in ("context_recall", "context_precision", "faithfulness", "answer_relevancy")
        }
    ] * 3
    health = assess_run(_run(rows).summary)
    assert health.exit_code == ExitCode.BUDGET and health.n_budget_unjudged == 12
    assert health.problems[0].startswith("the judge budget ran out: 12 case × metric results")
    assert len(health.problems) == 2 and health.problems[1].startswith("every metric: 0 of 3")


def test_unscored_reasons_group_by_cause_across_metrics_and_cases():
    cases = [
        case(
            "a",
            {
                "faithfulness": "pipeline error: pipeline rag (case 'a') timed out",
                "answer_relevancy": "pipeline error: pipeline rag (case 'a') timed out",
            },
        ),
        case(
            "b",
            {
                "faithfulness": "pipeline error: pipeline rag (case 'b') timed out",
                "answer_relevancy": 0.5,
            },
        ),
        case("c", {"faithfulness": REFUSAL, "answer_relevancy": 0.9}),
    ]
    groups = group_unscored(cases, ("faithfulness", "answer_relevancy"))
    assert [
        (g.cause, g.metrics, g.n_cases, g.n_results, g.example_ids, g.by_design) for g in groups
    ] == [
        (
            "pipeline error: pipeline rag timed out",
            ["faithfulness", "answer_relevancy"],
            2,
            3,
            ["a", "b"],
            False,
        ),
        (REFUSAL, ["faithfulness"], 1, 1, ["c"], True),
    ]
