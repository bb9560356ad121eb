"""Linting eval sets: size, coverage, duplicates, missing data, summary and exit code."""

from __future__ import annotations

import random
from pathlib import Path

from ragmeter.cases import Case, load_cases
from ragmeter.cases.lint import LintReport, lint_cases
from ragmeter.judges.base import Turn

TOPICS = [
    "refund window for online orders",
    "shipping cost to Norway",
    "warranty on laptop batteries",
    "opening hours of the Berlin store",
    "how to reset a forgotten password",
    "loyalty points expiry",
    "gift card balance lookup",
    "student discount eligibility",
    "return label printing",
    "damaged parcel claims",
    "invoice address change",
    "payment by bank transfer",
    "order cancellation deadline",
    "size exchange for shoes",
    "newsletter unsubscribe",
    "price match policy",
    "international warranty",
    "click and collect pickup",
    "pre-order delivery dates",
    "account deletion request",
    "export of personal data",
    "business customer accounts",
]


def healthy_set() -> list[Case]:
    """22 distinct cases covering every built-in category."""
    cases = [
        Case(id=f"n{i}", question=f"What about {topic}?", ground_truth=f"Answer on {topic}.")
        for i, topic in enumerate(TOPICS[:19])
    ]
    cases.append(Case(id="t1", question="refnd windw?", ground_truth="30 days.", category="typo"))
    cases.append(
        Case(
            id="o1",
            question="Who won the 1998 World Cup?",
            ground_truth="The documents do not say.",
            category="out_of_scope",
        )
    )
    cases.append(
        Case(
            id="m1",
            question="And for sale items?",
            ground_truth="14 days.",
            category="multi_turn",
            history=[Turn(role="user", content="Refund window?")],
        )
    )
    return cases


def codes(report: LintReport) -> list[str]:
    return [f.code for f in report.findings]


def finding(report: LintReport, code: str):  # type: ignore[no-untyped-def]
    (match,) = [f for f in report.findings if f.code == code]
    return match


def test_healthy_set_is_clean() -> None:
    report = lint_cases(healthy_set(), source="evals.jsonl")
    assert report.findings == []
    assert report.exit_code == 0
    assert report.total == 22
    assert report.source == "evals.jsonl"
    assert report.by_category == {"normal": 19, "typo": 1, "out_of_scope": 1, "multi_turn": 1}


def test_too_few_cases_is_a_warning() -> None:
    report = lint_cases(healthy_set()[:5])
    f = finding(report, "too-few-cases")
    assert f.severity == "warning"
    assert "only 5 cases;" in f.message
    assert report.exit_code == 0


def test_many_cases_is_info() -> None:
    cases = [
        Case(id=str(i), question=f"question number {i} about item {i * 7919}", ground_truth="x")
        for i in range(501)
    ]
    report = lint_cases(cases)
    assert finding(report, "many-cases").severity == "info"
    assert "too-few-cases" not in codes(report)


def test_coverage_warnings() -> None:
    plain = [c for c in healthy_set() if c.category == "normal"]
    report = lint_cases(plain)
    for code in ("no-typo-cases", "no-out-of-scope-cases", "no-multi-turn-cases"):
        assert finding(report, code).severity == "warning"
    assert report.exit_code == 0


def test_history_counts_as_multi_turn_coverage() -> None:
    cases = [c for c in healthy_set() if c.category != "multi_turn"]
    cases.append(
        Case(
            id="f1",
            question="and then?",
            ground_truth="x",
            history=[Turn(role="user", content="hi")],
        )
    )
    assert "no-multi-turn-cases" not in codes(lint_cases(cases))


def test_exact_duplicates_ignore_case_space_and_punctuation() -> None:
    cases = healthy_set()
    cases.append(
        Case(id="dup", question="  what ABOUT refund window for online orders ", ground_truth="x")
    )
    report = lint_cases(cases)
    f = finding(report, "duplicate-question")
    assert f.severity == "error"
    assert f.case_ids == ["n0", "dup"]
    assert report.exit_code == 1
    assert "near-duplicate-question" not in codes(report)


def test_same_question_with_different_history_is_not_a_duplicate() -> None:
    cases = healthy_set()
    cases.append(
        Case(
            id="m2",
            question="And for sale items?",
            ground_truth="Free.",
            category="multi_turn",
            history=[Turn(role="user", content="Shipping cost?")],
        )
    )
    report = lint_cases(cases)
    assert "duplicate-question" not in codes(report)
    assert "near-duplicate-question" not in codes(report)


def test_near_duplicates_in_english_and_chinese() -> None:
    cases = healthy_set()
    cases.append(
        Case(id="en", question="What about refund windows for online orders?", ground_truth="x")
    )
    cases.append(
        Case(id="zh1", question="网上订单的退货期限是多久？请详细说明一下", ground_truth="30天")
    )
    cases.append(
        Case(id="zh2", question="网上订单的退货期限是多久？请详细说明一下吧", ground_truth="30天")
    )
    report = lint_cases(cases)
    near = [f for f in report.findings if f.code == "near-duplicate-question"]
    assert sorted(tuple(f.case_ids) for f in near) == [("n0", "en"), ("zh1", "zh2")]
    assert all(f.severity == "warning" for f in near)
    assert report.exit_code == 0


def brute_force_groups(texts: list[str]) -> list[list[int]]:
    """Connected components of every pair with a 3-gram Jaccard of at least 0.85."""
    from ragmeter.text.near_duplicates import grams

    parent = list(range(len(texts)))

    def find(x: int) -> int:
        while parent[x] != x:
            x = parent[x]
        return x

    sets = [grams(text) for text in texts]
    for i in range(len(texts)):
        for j in range(i):
            if len(sets[i] & sets[j]) / len(sets[i] | sets[j]) >= 0.85:
                parent[find(i)] = find(j)
    groups: dict[int, list[int]] = {}
    for i in range(len(texts)):
        groups.setdefault(find(i), []).append(i)
    return sorted(g for g in groups.values() if len(g) > 1)


def test_near_groups_match_brute_force_in_english_and_chinese() -> None:
    from ragmeter.text.near_duplicates import near_groups

    rng = random.Random(7)
    words = ["the", "a", "refund", "shipping", "order", "price", "退款", "订单", "多久", "how"]
    texts = ["".join(rng.choice(words) for _ in range(rng.randint(1, 8))) for _ in range(500)]
    texts += [texts[i] + rng.choice(["s", "吗", "呢"]) for i in range(0, 500, 20)]
    texts += ["a", "ab", "abc", "abd", "𠀀𠀁😀"]  # shorter than a 3-gram; beyond the BMP
    expected = brute_force_groups(texts)
    found = near_groups(texts)
    assert sum(len(g) for g in expected) >= 40
    assert sorted(found.groups) == expected
    assert found.bounded == 0


def test_near_duplicates_are_still_found_among_many_distinct_questions() -> None:
    """Linear-time candidate search (issue 30) loses no pair: 20,000 distinct questions, 60
    near pairs planted among them, each found, and no bound met."""
    rng = random.Random(3)
    vocabulary = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(6)) for _ in range(2000)
    ]
    questions = [" ".join(rng.choice(vocabulary) for _ in range(8)) + "?" for _ in range(20_000)]
    cases = [Case(id=f"q{i}", question=q, ground_truth="x") for i, q in enumerate(questions)]
    planted = rng.sample(range(20_000), 60)
    cases += [
        Case(id=f"near{i}", question=questions[i].replace("?", "s?"), ground_truth="x")
        for i in planted
    ]
    report = lint_cases(cases)
    near = {tuple(f.case_ids) for f in report.findings if f.code == "near-duplicate-question"}
    assert near == {(f"q{i}", f"near{i}") for i in planted}
    assert "near-duplicate-check-bounded" not in codes(report)


def test_copies_of_one_question_are_one_group_and_a_bound_is_said() -> None:
    from ragmeter.text.near_duplicates import MAX_LOOKED_AT

    cases = [
        Case(
            id=f"c{i}",
            question=f"How long does a refund to a credit card take when paid online, case {i}?",
            ground_truth="x",
        )
        for i in range(MAX_LOOKED_AT - 2)
    ]
    report = lint_cases([*healthy_set(), *cases])
    (near,) = [f for f in report.findings if f.code == "near-duplicate-question"]
    assert near.case_ids == [case.id for case in cases]
    assert (
        near.message.startswith("cases c0, c1, c2") and "nearly the same question" in near.message
    )
    assert "near-duplicate-check-bounded" not in codes(report)

    template = [
        Case(id=f"t{i}", question=f"退款 {i} 需要多久才能到账呢请告诉我", ground_truth="x")
        for i in range(300)
    ]
    bounded = finding(lint_cases(template), "near-duplicate-check-bounded")
    assert bounded.severity == "info"
    assert f"at no more than {MAX_LOOKED_AT} questions" in bounded.message
    assert "may be missing" in bounded.message


def test_empty_ground_truth_is_an_error() -> None:
    cases = healthy_set()
    cases[0] = cases[0].model_copy(update={"ground_truth": "  "})
    report = lint_cases(cases)
    f = finding(report, "empty-ground-truth")
    assert (f.severity, f.case_ids) == ("error", ["n0"])
    assert report.exit_code == 1


def test_multi_turn_without_history_is_an_error() -> None:
    cases = healthy_set()
    cases.append(
        Case(id="m9", question="and the price?", ground_truth="10 EUR", category="multi_turn")
    )
    f = finding(lint_cases(cases), "multi-turn-without-history")
    assert (f.severity, f.case_ids) == ("error", ["m9"])


def test_unknown_category_is_info() -> None:
    cases = healthy_set()
    cases.append(
        Case(id="c1", question="Is the API rate limited?", ground_truth="Yes.", category="api")
    )
    report = lint_cases(cases)
    f = finding(report, "unknown-category")
    assert (f.severity, f.case_ids) == ("info", ["c1"])
    assert "'api' (1)" in f.message
    assert report.exit_code == 0


def test_assigned_ids_is_info(tmp_path: Path) -> None:
    path = tmp_path / "ragas.jsonl"
    path.write_text(
        '{"user_input": "q one", "reference": "a"}\n{"user_input": "q two", "reference": "b"}\n'
    )
    report = lint_cases(load_cases(path))
    f = finding(report, "assigned-ids")
    assert (f.severity, f.case_ids) == ("info", ["1", "2"])


def test_messages_count_one_case_in_the_singular_and_never_say_case_s(tmp_path: Path) -> None:
    one = Case(id="x", question="and the price?", ground_truth="", category="multi_turn")
    variant = Case(
        id="n0~typo",
        question="refnd window?",
        ground_truth="a",
        metadata={"vary": {"origin": "n0"}},
    )
    report = lint_cases([one, variant])
    assert report.headline().startswith("2 cases (")
    assert lint_cases([one]).headline().startswith("1 case (")
    messages = {f.code: f.message for f in report.findings}
    assert messages["too-few-cases"].startswith("only 2 cases;")
    assert lint_cases([one]).findings[0].message.startswith("1 case has no ground_truth")
    assert messages["multi-turn-without-history"].startswith("1 multi_turn case has no history")
    assert messages["variants"].startswith("1 variant made by `ragmeter vary`")
    two_empty = lint_cases([one, one.model_copy(update={"id": "y"})])
    assert finding(two_empty, "empty-ground-truth").message.startswith("2 cases have no")
    path = tmp_path / "one.jsonl"
    path.write_text('{"user_input": "q one", "reference": "a"}\n')
    numbered = finding(lint_cases(load_cases(path)), "assigned-ids").message
    assert numbered.startswith("1 case had no id and was numbered by its position (1)")
    for lint in (report, two_empty, lint_cases(load_cases(path)), lint_cases([])):
        assert all("(s)" not in f.message for f in lint.findings)


def test_findings_sorted_by_severity() -> None:
    cases = [*healthy_set()[:3], Case(id="x", question="q", category="weird")]
    severities = [f.severity for f in lint_cases(cases).findings]
    assert severities == sorted(severities, key=["error", "warning", "info"].index)
    assert severities[0] == "error"  # x has no ground truth


def test_languages_given_or_detected() -> None:
    cases = [
        Case(id="1", question="退货期限是多久？", ground_truth="三十天。"),
        Case(id="2", question="What is the refund window?", ground_truth="30 days."),
        Case(id="3", question="Explain 退货", ground_truth="x", lang="zh"),
    ]
    assert lint_cases(cases).by_lang == {"zh": 2, "en": 1}


def test_report_serialises() -> None:
    report = lint_cases(healthy_set()[:2])
    again = LintReport.model_validate_json(report.model_dump_json())
    assert again == report
    assert again.exit_code == report.exit_code == 0


def test_headline() -> None:
    cases = [
        Case(id="1", question="退货期限是多久？", ground_truth="三十天。", category="typo"),
        Case(id="2", question="What is the refund window?", ground_truth=""),
    ]
    assert lint_cases(cases, source="e.jsonl").headline() == (
        "e.jsonl: 2 cases (typo 1, normal 1; zh 1, en 1): 1 error, 3 warnings"
    )
    assert lint_cases(healthy_set()).headline().endswith("en 22): no findings")
