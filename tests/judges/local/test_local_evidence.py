from __future__ import annotations

from collections.abc import Callable

import pytest

from ragmeter.judges.base import Sample
from ragmeter.judges.local import LocalJudge
from ragmeter.judges.local.features import names, numbers, statement_keys

Make = Callable[..., Sample]


def test_markdown_headings_and_sentence_starts_are_not_names() -> None:
    assert names("**Evaluate Your Comfort Level:** Provide a copy to the clerk.") == ()
    assert names("It was founded in Berlin by engineers at PayPal.") == ("Berlin", "PayPal")


def test_list_enumerators_are_not_numbers() -> None:
    assert numbers("5.") == ()
    assert [n.value for n in numbers("1. Payment history (35%) matters")] == ["35%"]
    assert [n.value for n in numbers("It costs 5. Then wait 3 days.")] == ["5", "3"]


def test_chinese_keys_do_not_straddle_punctuation() -> None:
    keys = statement_keys("顾客可以申请退款，换货免费。", "zh")
    assert "款换" not in keys
    assert {"退款", "换货", "免费"} <= keys


def test_negation_elsewhere_in_a_glued_list_is_no_contradiction(judge: LocalJudge) -> None:
    context = (
        "The court of appeal looks at two things Whether a legal mistake was made in the trial "
        "court Whether this mistake changed the final decision An appeal is not a new trial"
    )
    sample = Sample(
        case_id="x",
        question="What does the appeal court review?",
        contexts=[context],
        answer="It reviews whether a legal mistake was made in the trial court.",
    )
    result = judge.judge_sync(sample, ("faithfulness",))["faithfulness"]
    assert [c.verdict for c in result.evidence.claims] == ["supported"]


def test_name_missing_from_contexts_is_evidence_not_a_verdict(
    judge: LocalJudge, make: Make
) -> None:
    # A missing name alone no longer zeroes a claim whose words the context otherwise holds.
    sample = make("en", "Refunds are processed by Stripe within 14 days of the request.")
    (claim,) = judge.judge_sync(sample, ("faithfulness",))["faithfulness"].evidence.claims
    assert "Stripe" in claim.reason
    assert claim.confidence is not None and claim.confidence > 0


def test_a_claim_counts_by_its_support_and_short_of_support_stays_below_the_bar(
    judge: LocalJudge, make: Make
) -> None:
    # a few of the claim's key words in the context: not supported, so it counts its support
    # scaled under 0.4 (0.4 / 0.6 of it)
    sample = make("en", "Damaged furniture is collected by couriers and repaired within 14 days.")
    result = judge.judge_sync(sample, ("faithfulness",))["faithfulness"]
    (claim,) = result.evidence.claims
    assert claim.verdict == "not_verifiable"
    assert result.score is not None and result.score <= 0.4
    assert result.score == pytest.approx((claim.confidence or 0.0) * 0.4 / 0.6, abs=1e-4)
    # a supported claim counts its full support, a rule-decided one 1
    full = judge.judge_sync(
        make("en", "Refunds are processed within 14 days of the request."), ("faithfulness",)
    )["faithfulness"]
    assert full.score == 1.0


def test_one_of_a_unit_of_time_needs_no_digit_in_the_context(judge: LocalJudge) -> None:
    for lang, context, answer in (
        ("en", "The starter plan costs $10 a month.", "The starter plan is $10 for one month."),
        ("zh", "基础套餐每月10元，团队套餐每月25元。", "基础套餐一个月收费10元。"),
    ):
        sample = Sample(case_id="t", question="", contexts=[context], answer=answer, lang=lang)
        (claim,) = judge.judge_sync(sample, ("faithfulness",))["faithfulness"].evidence.claims
        assert "appears nowhere" not in claim.reason, claim.reason
    # a real number still has to be there
    sample = Sample(
        case_id="t",
        question="",
        contexts=["The plan costs $10 a month."],
        answer="The plan costs $10 for 3 months.",
        lang="en",
    )
    (claim,) = judge.judge_sync(sample, ("faithfulness",))["faithfulness"].evidence.claims
    assert "the number 3 appears nowhere" in claim.reason
