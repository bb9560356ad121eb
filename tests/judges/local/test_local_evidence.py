from __future__ import annotations

from collections.abc import Callable

from ragmeter.judges.base import Sample
from ragmeter.judges.local import LocalJudge
from ragmeter.judges.local.combine import FEATURES, load_combination
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


def test_shipped_weights_keep_evidence_signs_and_provenance() -> None:
    combination = load_combination()
    assert combination is not None
    coef = dict(zip(FEATURES, combination.coef, strict=True))
    for name in ("support", "coverage_all", "similarity"):
        assert coef[name] >= 0
    for name in ("missing_words", "window_missing", "missing_name", "misplaced_number"):
        assert coef[name] <= 0
    assert 0 < combination.low < combination.high < 1
    provenance = combination.spec["provenance"]
    assert provenance["cv_scheme"] == "leave-one-dataset-out"
    assert set(provenance["metrics"]["cross_validated"]) >= {"mtrag", "expertqa", "summedits"}
