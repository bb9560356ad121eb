import random
from collections import Counter

import pytest

from ragmeter.judges.base import MetricResult
from ragmeter.results import CaseResult
from ragmeter.results.diagnosis import diagnose
from ragmeter.results.summary import failed_cases, summarize_run
from ragmeter.stats import bootstrap_ci, histogram
from ragmeter.vocabulary import METRICS


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
    from ragmeter.vocabulary.reasons import code_of

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
    from ragmeter.results.summary import MAX_CAUSES_PER_CODE, MAX_REASONS

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
    from ragmeter.vocabulary.reasons import MAX_CAUSE_CHARS

    reason = "pipeline error: " + "x" * 10_000
    cases = [_case("a", faithfulness=reason)]
    summary = summarize_run(cases, ("faithfulness",))
    (cause,) = summary.metrics["faithfulness"].unscored_reasons
    assert len(cause) == MAX_CAUSE_CHARS and cause.endswith("…")
    assert len(summary.unscored_groups[0].cause) == MAX_CAUSE_CHARS
    assert cases[0].metrics["faithfulness"].unscored_reason == reason


def test_reasons_without_a_code_get_one_from_their_wording():
    from ragmeter.vocabulary.reasons import code_of

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


# The reference oracle: `summarize_run`, `summarize_metric` and `group_unscored` as they were
# before the one-pass SummaryBuilder (issue 16), copied verbatim apart from the names, so that
# the builder is checked against the implementation it replaced on many random runs.


def _oracle_summarize_metric(cases, metric, threshold=None, *, with_ci=True, first_only=False):
    from ragmeter.results import MetricSummary
    from ragmeter.results.summary import _bounded_reasons
    from ragmeter.stats import mean
    from ragmeter.vocabulary.reasons import NOT_JUDGED, unscored_code, without_case_id

    scores: list[float] = []
    causes: Counter[tuple[str, str]] = Counter()
    for case in cases:
        result = case.metrics.get(metric)
        if result is None:
            causes[("not_judged", NOT_JUDGED)] += 1
            continue
        value = result.score if first_only else case.aggregate_score(metric)
        if value is None:
            cause = without_case_id(result.unscored_reason or "unscored", case.id)
            causes[(unscored_code(result), cause)] += 1
        else:
            scores.append(value)
    return MetricSummary(
        mean=mean(scores),
        ci=bootstrap_ci(scores) if with_ci else None,
        n_scored=len(scores),
        n_unscored=sum(causes.values()),
        unscored_reasons=_bounded_reasons(causes),
        n_failed=sum(s < threshold for s in scores) if threshold is not None else 0,
        threshold=threshold,
        histogram=histogram(scores),
    )


def _oracle_summarize_run(cases, metrics=METRICS, thresholds=None):
    from ragmeter.results import RunSummary
    from ragmeter.results.summary import DEFAULT_FAIL_THRESHOLDS

    thresholds = {**DEFAULT_FAIL_THRESHOLDS, **(thresholds or {})}
    by_category: dict[str, list[CaseResult]] = {}
    for case in cases:
        by_category.setdefault(case.category, []).append(case)
    return RunSummary(
        metrics={m: _oracle_summarize_metric(cases, m, thresholds.get(m)) for m in metrics},
        by_category={
            cat: {m: _oracle_summarize_metric(members, m, thresholds.get(m)) for m in metrics}
            for cat, members in sorted(by_category.items())
        },
        n_cases=len(cases),
        n_pipeline_errors=sum(c.pipeline_error is not None for c in cases),
        unscored_groups=_oracle_group_unscored(cases, metrics),
    )


def _oracle_unscored(cases, metrics):
    from ragmeter.vocabulary.reasons import unscored_code, without_case_id

    for case in cases:
        for metric in metrics:
            result = case.metrics.get(metric)
            if result is not None and case.aggregate_score(metric) is None:
                cause = without_case_id(result.unscored_reason or "unscored", case.id)
                yield case, metric, (unscored_code(result), cause)


def _oracle_group_unscored(cases, metrics=METRICS):
    from ragmeter.results import UnscoredGroup
    from ragmeter.results.summary import EXAMPLE_IDS, MAX_CAUSES_PER_CODE, _other_causes
    from ragmeter.vocabulary.reasons import BY_DESIGN_CODES, short_cause

    counts = Counter(key for _, _, key in _oracle_unscored(cases, metrics))
    own: set[tuple[str, str]] = set()
    n_own: Counter[str] = Counter()
    n_merged: Counter[str] = Counter()
    for key, _ in counts.most_common():  # ties: first seen first
        if n_own[key[0]] < MAX_CAUSES_PER_CODE:
            n_own[key[0]] += 1
            own.add(key)
        else:
            n_merged[key[0]] += 1
    del counts
    groups: dict[tuple[str, str], UnscoredGroup] = {}
    last_case: dict[tuple[str, str], str] = {}
    for case, metric, key in _oracle_unscored(cases, metrics):
        code, cause = key
        if key not in own:
            key = (code, "")  # the code's shared group
        group = groups.get(key)
        if group is None:
            shared = key not in own
            group = groups[key] = UnscoredGroup(
                cause=_other_causes(code, n_merged[code]) if shared else short_cause(cause),
                code=code,
                n_causes=n_merged[code] if shared else 1,
                metrics=[],
                n_cases=0,
                n_results=0,
                by_design=code in BY_DESIGN_CODES,
            )
        group.n_results += 1
        if metric not in group.metrics:
            group.metrics.append(metric)
        if last_case.get(key) != case.id:
            last_case[key] = case.id
            group.n_cases += 1
            if len(group.example_ids) < EXAMPLE_IDS:
                group.example_ids.append(case.id)
    for group in groups.values():
        group.metrics.sort(key=metrics.index)
    return sorted(groups.values(), key=lambda g: (g.by_design, -g.n_cases, g.cause))


_LONG = "pipeline error: " + "x" * 400  # causes that differ past MAX_CAUSE_CHARS read the same


def _random_reason(rng: random.Random, cid: str) -> tuple[str, str | None]:
    """An unscored reason and its code (None: read from the wording), drawn so that runs hold
    several codes, many distinct causes per code, by-design ones and ids to take out."""
    from ragmeter.vocabulary.reasons import code_of

    kind = rng.randrange(8)
    if kind == 0:
        reason = f"pipeline error: KeyError: 'doc-{rng.randrange(14)}'"
    elif kind == 1:
        reason = f"pipeline error: no answer for case '{cid}' in answers.jsonl"
    elif kind == 2:
        reason = f"judge error: RuntimeError: boom {rng.randrange(9)}"
    elif kind == 3:
        reason = f"{_LONG} {rng.randrange(3)}"
    elif kind == 4:
        reason = REFUSAL
    elif kind == 5:
        reason = "not applicable: out-of-scope case"
    elif kind == 6:
        reason = f"judge m at http://x timed out after {rng.randrange(3)}s (3 retries exhausted)"
    else:
        reason = f"something a plugin says {rng.randrange(20)}"
    return reason, code_of(reason) if rng.random() < 0.5 else None


def _random_run(seed: int) -> tuple[list[CaseResult], tuple[str, ...], dict[str, float]]:
    rng = random.Random(seed)
    metrics = tuple(rng.sample(METRICS, rng.randint(1, len(METRICS))))
    thresholds = {m: rng.choice([0.3, 0.5, 0.9]) for m in metrics if rng.random() < 0.3}
    values = [0.0, 0.25, 0.5, 1.0] if rng.random() < 0.5 else None  # ties, or any float
    cases = []
    for i in range(rng.randrange(rng.choice([3, 30, 120]))):
        cid = f"case-{i}"
        judged = {}
        repeats = {}
        for metric in metrics:
            if rng.random() < 0.1:
                continue  # not judged
            if rng.random() < 0.45:
                reason, code = _random_reason(rng, cid)
                result = MetricResult.unscored(metric, reason, reason_code=code)
            else:
                score = rng.choice(values) if values else rng.random()
                result = MetricResult(metric=metric, score=score)
            judged[metric] = result
            if rng.random() < 0.2:
                more = [rng.choice([None, rng.random(), 0.5]) for _ in range(rng.randint(1, 3))]
                repeats[metric] = [result.score, *more]
        cases.append(
            CaseResult(
                id=cid,
                question="q",
                category=rng.choice(["normal", "typo", "multi_hop"]),
                pipeline_error="boom" if rng.random() < 0.1 else None,
                metrics=judged,
                repeats=repeats,
            )
        )
    return cases, metrics, thresholds


@pytest.mark.parametrize("chunk", range(4))
def test_one_pass_builder_equals_the_previous_summary_on_random_runs(chunk):
    from ragmeter.results.summary import SummaryBuilder, group_unscored, summarize_metric

    for seed in range(chunk * 50, chunk * 50 + 50):
        cases, metrics, thresholds = _random_run(seed)
        expected = _oracle_summarize_run(cases, metrics, thresholds)
        builder = SummaryBuilder(metrics, thresholds)
        for case in cases:
            builder.add(case)
        assert builder.build() == expected, seed
        assert summarize_run(iter(cases), metrics, thresholds) == expected, seed
        assert group_unscored(cases, metrics) == expected.unscored_groups, seed
        for metric in metrics:
            for first_only in (False, True):
                assert summarize_metric(
                    cases, metric, 0.5, with_ci=False, first_only=first_only
                ) == _oracle_summarize_metric(
                    cases, metric, 0.5, with_ci=False, first_only=first_only
                ), (seed, metric)


def test_the_random_runs_reach_every_bound():
    # The property test above is only as good as its runs: check that they merge causes, cut
    # reasons, re-judge, and hold cases with two causes of one code.
    from ragmeter.results.summary import MAX_REASONS
    from ragmeter.vocabulary.reasons import unscored_code

    def two_causes_of_one_code(case):
        codes = [
            unscored_code(r)
            for r in {r.unscored_reason: r for r in case.metrics.values()}.values()
            if r.score is None
        ]
        return len(codes) > len(set(codes))

    seen = Counter()
    for seed in range(200):
        cases, metrics, _ = _random_run(seed)
        summary = _oracle_summarize_run(cases, metrics)
        groups = summary.unscored_groups
        seen["merged"] += any(g.n_causes > 1 and g.n_cases > 1 for g in groups)
        seen["cut"] += any(
            len(s.unscored_reasons) > MAX_REASONS
            and any("other causes" in r for r in s.unscored_reasons)
            for s in summary.metrics.values()
        )
        seen["rejudged"] += any(
            c.score(m) is None and c.aggregate_score(m) is not None
            for c in cases
            for m in c.repeats
        )
        seen["two causes"] += any(two_causes_of_one_code(c) for c in cases)
    assert len(seen) == 4 and min(seen.values()) >= 10, seen


def test_a_case_with_two_rare_causes_counts_once_in_their_shared_group():
    from ragmeter.results.summary import MAX_CAUSES_PER_CODE, SummaryBuilder

    def failing(cid, *errors):
        metrics = dict(zip(("faithfulness", "answer_relevancy"), errors, strict=False))
        return _case(cid, **{m: f"pipeline error: {e}" for m, e in metrics.items()})

    common = [
        failing(f"c{i}-{k}", f"common {i}") for i in range(MAX_CAUSES_PER_CODE) for k in range(3)
    ]
    cases = [*common, failing("x", "rare 1", "rare 2"), failing("y", "rare 3")]
    builder = SummaryBuilder(("faithfulness", "answer_relevancy"))
    for case in cases:
        builder.add(case)
    (shared,) = [g for g in builder.build().unscored_groups if g.n_causes > 1]
    assert (shared.n_causes, shared.n_cases, shared.n_results) == (3, 2, 3)
    assert shared.example_ids == ["x", "y"]
    assert shared.metrics == ["faithfulness", "answer_relevancy"]


def test_the_builder_keeps_no_case():
    import gc
    import weakref

    from ragmeter.results.summary import SummaryBuilder

    builder = SummaryBuilder(("faithfulness", "answer_relevancy"))
    refs = []
    for i in range(50):
        reason = f"pipeline error: KeyError: 'doc-{i % 2}' (case 'c{i}')"
        case = _case(f"c{i}", faithfulness=i / 50, answer_relevancy=reason)
        case.answer = "an answer " * 100
        refs.append(weakref.ref(case))
        builder.add(case)
    del case
    gc.collect()
    assert all(ref() is None for ref in refs)
    summary = builder.build()
    assert summary.metrics["faithfulness"].n_scored == 50
    (a, b) = summary.unscored_groups
    assert (a.cause, a.n_cases, a.example_ids) == (
        "pipeline error: KeyError: 'doc-0'",
        25,
        ["c0", "c2", "c4"],
    )
    assert (b.n_cases, b.example_ids) == (25, ["c1", "c3", "c5"])


def test_a_case_scored_by_its_repeats_is_not_listed_unscored():
    # First judgement unscored, two repeats scored: it counts in the mean, so it is not
    # unscored anywhere; with one scored repeat it stays unscored (the first judgement).
    from ragmeter.results.summary import group_unscored

    cases = [
        _case("a", faithfulness=0.9),
        CaseResult(
            id="b",
            question="q",
            metrics={"faithfulness": MetricResult.unscored("faithfulness", "judge error: boom")},
            repeats={"faithfulness": [None, 0.6, 0.8]},
        ),
        CaseResult(
            id="c",
            question="q",
            metrics={"faithfulness": MetricResult.unscored("faithfulness", "judge error: boom")},
            repeats={"faithfulness": [None, 0.6]},
        ),
    ]
    summary = summarize_run(cases, ("faithfulness",))
    faithfulness = summary.metrics["faithfulness"]
    assert (faithfulness.n_scored, faithfulness.n_unscored) == (2, 1)
    (group,) = summary.unscored_groups
    assert (group.n_cases, group.n_results, group.example_ids) == (1, 1, ["c"])
    assert group_unscored(cases, ("faithfulness",)) == summary.unscored_groups
