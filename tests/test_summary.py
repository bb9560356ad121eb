import pytest

from ragmeter.diagnosis import diagnose
from ragmeter.judges.base import MetricResult
from ragmeter.results import CaseResult
from ragmeter.stats import bootstrap_ci, histogram
from ragmeter.summary import failed_cases, summarize_run


def _case(cid, category="normal", **scores):
    metrics = {}
    for metric, value in scores.items():
        if isinstance(value, str):
            metrics[metric] = MetricResult.unscored(metric, value)
        else:
            metrics[metric] = MetricResult(metric=metric, score=value)
    return CaseResult(id=cid, question="q", category=category, metrics=metrics)


def test_unscored_cases_are_counted_with_reasons_not_averaged():
    cases = [
        _case("a", faithfulness=1.0),
        _case("b", faithfulness=0.0),
        _case("c", faithfulness="refusal: answer has no claims"),
        _case("d", faithfulness="refusal: answer has no claims"),
    ]
    stats = summarize_run(cases, ("faithfulness",)).metrics["faithfulness"]
    assert stats.mean == 0.5
    assert (stats.n_scored, stats.n_unscored) == (2, 2)
    assert stats.unscored_reasons == {"refusal: answer has no claims": 2}
    assert stats.n_failed == 1


def test_no_scored_case_gives_none_not_nan():
    stats = summarize_run([_case("a", faithfulness="x")], ("faithfulness",)).metrics
    assert stats["faithfulness"].mean is None
    assert stats["faithfulness"].ci is None


def test_per_category_summaries():
    cases = [
        _case("a", "typo", context_recall=0.2),
        _case("b", "typo", context_recall=0.4),
        _case("c", "normal", context_recall=1.0),
    ]
    summary = summarize_run(cases, ("context_recall",))
    assert summary.by_category["typo"]["context_recall"].mean == pytest.approx(0.3)
    assert summary.by_category["normal"]["context_recall"].n_scored == 1


def test_bootstrap_interval_is_reproducible_and_contains_mean():
    values = [0.1, 0.4, 0.9, 1.0, 0.7, 0.3]
    assert bootstrap_ci(values) == bootstrap_ci(values)
    low, high = bootstrap_ci(values)
    assert low < sum(values) / len(values) < high
    assert bootstrap_ci([0.5]) is None


def test_histogram_puts_one_in_last_bin():
    assert histogram([0.0, 0.05, 1.0, 0.95]) == [2, 0, 0, 0, 0, 0, 0, 0, 0, 2]


def test_failed_cases_worst_first():
    cases = [_case("a", faithfulness=0.6), _case("b", faithfulness=0.1), _case("c", faithfulness=1)]
    assert [c.id for c in failed_cases(cases, "faithfulness", 0.7)] == ["b", "a"]


def test_diagnosis_names_retrieval_before_generation():
    cases = [
        _case(
            "a", context_recall=0.2, context_precision=0.9, faithfulness=0.3, answer_relevancy=0.9
        )
    ]
    diagnosis = diagnose(summarize_run(cases))
    assert diagnosis.fix_first == "retrieval"
    assert "context_recall" in diagnosis.headline
    severities = {f.metric: f.severity for f in diagnosis.findings}
    assert severities["context_recall"] == "fix-first"
    assert severities["faithfulness"] == "weak"


def test_diagnosis_names_generation_when_retrieval_is_fine():
    cases = [
        _case("a", context_recall=1, context_precision=1, faithfulness=0.5, answer_relevancy=1)
    ]
    diagnosis = diagnose(summarize_run(cases))
    assert diagnosis.fix_first == "generation"
    assert "faithfulness" in diagnosis.headline


def test_diagnosis_all_good():
    cases = [_case("a", context_recall=1, context_precision=1, faithfulness=1, answer_relevancy=1)]
    assert diagnose(summarize_run(cases)).fix_first is None
