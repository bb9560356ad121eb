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


def _failing(n: int) -> list[CaseResult]:
    """`n` cases whose pipeline failed, each with its own message (naming the case, or a
    document of its own), and a few scored or refused."""
    from ragmeter.reasons import code_of

    cases = []
    for i in range(n):
        cid = f"case-{i:06d}"
        if i % 10 == 0:
            cases.append(_case(cid, faithfulness=0.5, answer_relevancy=REFUSAL))
            continue
        if i % 2:
            error = f"no answer for case '{cid}' in answers.jsonl; add a record with id '{cid}'"
        else:
            error = f"pipeline app:rag raised KeyError: 'doc-{i * 7919 % 1000003}'"
        reason = f"pipeline error: {error}"
        metrics = {
            m: MetricResult.unscored(m, reason, reason_code=code_of(reason))
            for m in ("faithfulness", "answer_relevancy")
        }
        cases.append(CaseResult(id=cid, question="q", pipeline_error=error, metrics=metrics))
    return cases


REFUSAL = "refusal: answer has no claims"


def test_summary_size_does_not_grow_with_the_number_of_distinct_failures():
    from ragmeter.summary import MAX_CAUSES_PER_CODE, MAX_REASONS

    metrics = ("faithfulness", "answer_relevancy")
    small = summarize_run(_failing(200), metrics)
    large = summarize_run(_failing(20_000), metrics)
    # Only the counts' digits grow: 100 times the cases, the same summary give or take a few
    # hundred bytes (it was 100 times larger: one reason per case, each naming its case).
    small_bytes, large_bytes = len(small.model_dump_json()), len(large.model_dump_json())
    assert large_bytes < small_bytes + 500, (small_bytes, large_bytes)
    stats = large.metrics["faithfulness"]
    assert stats.n_unscored == 18_000
    assert sum(stats.unscored_reasons.values()) == stats.n_unscored
    assert len(stats.unscored_reasons) <= MAX_REASONS + 1
    # The 10,000 missing answers read the same once the case id is out: one cause; the 8,000
    # distinct KeyErrors: the 9 first by name, the rest counted together.
    missing = "pipeline error: no answer for case '…' in answers.jsonl; add a record with id '…'"
    assert stats.unscored_reasons[missing] == 10_000
    assert stats.unscored_reasons["pipeline error: 7,991 other causes"] == 7_991
    groups = large.unscored_groups
    assert len(groups) <= 2 * (MAX_CAUSES_PER_CODE + 1)
    assert sum(g.n_results for g in groups) == 2 * 18_000 + 2_000  # refusals: by design
    first = groups[0]
    assert (first.code, first.cause, first.n_cases, first.n_results) == (
        "pipeline_error",
        missing,
        10_000,
        20_000,
    )
    assert first.example_ids == ["case-000001", "case-000003", "case-000005"]
    shared = next(g for g in groups if g.n_causes > 1)
    assert shared.code == "pipeline_error" and shared.n_causes == 8_000 - MAX_CAUSES_PER_CODE + 1
    # Equal counts: the first seen keep a group of their own (cases 2, 4, 6, 8).
    assert shared.n_cases == shared.n_causes and shared.example_ids == [
        "case-000012",
        "case-000014",
        "case-000016",
    ]
    assert shared.cause == f"pipeline error: {shared.n_causes:,} other causes"
    assert groups[-1].by_design and groups[-1].code == "refusal"


def test_a_long_cause_is_cut_in_the_summary_not_in_the_case():
    from ragmeter.reasons import MAX_CAUSE_CHARS

    reason = "pipeline error: " + "x" * 10_000
    cases = [_case("a", faithfulness=reason)]
    summary = summarize_run(cases, ("faithfulness",))
    (cause,) = summary.metrics["faithfulness"].unscored_reasons
    assert len(cause) == MAX_CAUSE_CHARS and cause.endswith("…")
    assert len(summary.unscored_groups[0].cause) == MAX_CAUSE_CHARS
    assert cases[0].metrics["faithfulness"].unscored_reason == reason


def test_reasons_without_a_code_get_one_from_their_wording():
    from ragmeter.reasons import code_of

    assert [
        code_of(r)
        for r in (
            REFUSAL,
            "not applicable: out-of-scope case",
            "no ground truth",
            "pipeline error: index offline",
            "pipeline error: pipeline timed out after 120 s",
            "too long to judge: answer is 9 characters",
            "judge budget reached: --max-cost 0.1 would be exceeded",
            "judge error: RuntimeError: boom",
            "judge m at http://x timed out after 30s (3 retries exhausted)",
            "invalid JSON from judge: Expecting value",
            "judge returned 2 verdicts for 3 claims",
            "judge returned no result",
            "ground truth has no statements",
            "something a plugin says",
        )
    ] == [
        "refusal",
        "out_of_scope",
        "no_ground_truth",
        "pipeline_error",
        "pipeline_timeout",
        "too_long",
        "budget",
        "judge_error",
        "judge_timeout",
        "invalid_reply",
        "invalid_reply",
        "judge_error",
        "no_points",
        "other",
    ]
