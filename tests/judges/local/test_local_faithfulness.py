from __future__ import annotations

from collections.abc import Callable

import pytest

from ragmeter.judges.base import MetricResult, Sample
from ragmeter.judges.local import LocalJudge
from ragmeter.judges.rules import BY_DESIGN, REFUSAL
from ragmeter.text import Lang

Make = Callable[..., Sample]


def faithfulness(judge: LocalJudge, sample: Sample) -> MetricResult:
    result = judge.judge_sync(sample, ("faithfulness",))["faithfulness"]
    for verdict in result.evidence.claims:
        if verdict.span is not None:
            chunk = sample.contexts[verdict.chunk_index]  # type: ignore[index]
            assert chunk[verdict.span.start : verdict.span.end] == verdict.evidence
    return result


@pytest.mark.parametrize(
    ("lang", "answer"),
    [
        ("en", "According to the handbook, refunds are processed within 14 days of the request."),
        ("en", "Customers can request a refund within 30 days of purchase; exchanges are free."),
        ("zh", "根据手册，退款会在申请后14天内处理完毕。"),
    ],
    ids=["en", "en-two-claims", "zh"],
)
def test_supported_answer_scores_one(judge: LocalJudge, make: Make, lang: str, answer: str) -> None:
    result = faithfulness(judge, make(lang, answer))
    assert result.score == 1.0
    assert result.evidence.claims
    assert all(c.verdict == "supported" for c in result.evidence.claims)


def test_a_sentence_resting_on_two_chunks_counts_its_support(judge: LocalJudge, make: Make) -> None:
    # one sentence, its two halves in two chunks: no window holds all of it
    result = faithfulness(judge, make("zh", "顾客可以在购买后30天内申请退款，换货免费。"))
    (claim,) = result.evidence.claims
    assert claim.verdict == "supported"
    assert claim.confidence is not None and 0.6 <= claim.confidence < 1.0
    assert result.score == pytest.approx(claim.confidence, abs=1e-4)


def test_changed_number_is_contradicted_with_the_right_span(judge: LocalJudge, make: Make) -> None:
    sample = make("en", "Refunds are processed within 30 days of the request.")
    result = faithfulness(judge, sample)
    assert result.score == 0.0
    (claim,) = result.evidence.claims
    assert claim.verdict == "contradicted"
    assert claim.chunk_index == 0
    assert claim.evidence == "Refunds are processed within 14 days of the request."
    assert claim.span is not None
    assert sample.contexts[0].index(claim.evidence) == claim.span.start
    assert "30" in claim.reason and "14" in claim.reason


def test_changed_number_is_contradicted_in_chinese(judge: LocalJudge, make: Make) -> None:
    sample = make("zh", "退款会在申请后30天内处理完毕。")
    (claim,) = faithfulness(judge, sample).evidence.claims
    assert claim.verdict == "contradicted"
    assert claim.chunk_index == 0
    assert claim.evidence == "退款会在申请后14天内处理完毕。"
    assert claim.span is not None
    assert sample.contexts[0].index(claim.evidence) == claim.span.start


@pytest.mark.parametrize(
    ("lang", "answer", "invented"),
    [
        (
            "en",
            "Exchanges are free of charge. The company was founded in Berlin by two engineers.",
            "The company was founded in Berlin by two engineers.",
        ),
        (
            "en",
            "Refunds are processed within 14 days. Shipping to Canada costs 12 dollars.",
            "Shipping to Canada costs 12 dollars.",
        ),
        ("zh", "换货免费。公司总部位于上海，成立于1998年。", "公司总部位于上海，成立于1998年。"),
    ],
    ids=["en-name", "en-number", "zh"],
)
def test_invented_sentence_is_not_verifiable(
    judge: LocalJudge, make: Make, lang: str, answer: str, invented: str
) -> None:
    result = faithfulness(judge, make(lang, answer))
    verdicts = {c.claim: c.verdict for c in result.evidence.claims}
    assert verdicts[invented] == "not_verifiable"
    assert result.score == 0.5


@pytest.mark.parametrize(
    ("lang", "answer"),
    [
        ("en", "Exchanges are not free of charge."),
        ("en", "Customers cannot request a refund within 30 days of purchase."),
        ("zh", "换货不免费。"),
    ],
    ids=["en", "en-cannot", "zh"],
)
def test_negation_flip_is_contradicted(
    judge: LocalJudge, make: Make, lang: str, answer: str
) -> None:
    (claim,) = faithfulness(judge, make(lang, answer)).evidence.claims
    assert claim.verdict == "contradicted"
    assert "negated" in claim.reason


def test_chinese_clause_negation_does_not_leak(judge: LocalJudge, make: Make) -> None:
    # The context sentence holds a negation (未使用) in another clause.
    assert faithfulness(judge, make("zh", "换货是免费的。")).score == 1.0


@pytest.mark.parametrize(
    ("lang", "answer"),
    [
        ("en", "I don't know. The handbook does not cover this."),
        ("en", "I'm sorry, I couldn't find any information about that in the documents."),
        ("zh", "抱歉，手册中没有相关信息，我无法回答。"),
        ("zh", "我不知道。"),
    ],
    ids=["en", "en-2", "zh", "zh-2"],
)
def test_refusal_is_unscored(judge: LocalJudge, make: Make, lang: str, answer: str) -> None:
    result = faithfulness(judge, make(lang, answer))
    assert result.score is None
    assert result.unscored_reason == "refusal: answer has no claims"
    assert result.reason_code == "refusal"
    assert result.evidence.abstained is True


def test_empty_answer_scores_zero(judge: LocalJudge, make: Make) -> None:
    # Was unscored ("empty answer") when the judge was called directly; now 0 as in the runner.
    result = faithfulness(judge, make("en", "   "))
    assert (result.score, result.reason_code) == (0.0, "empty_answer")


@pytest.mark.parametrize(
    "answer",
    ["Please contact our support team for details.", "You're welcome! Happy to help."],
    ids=["deflection", "courtesy"],
)
def test_an_answer_without_claims_is_unscored_by_design(
    judge: LocalJudge, make: Make, answer: str
) -> None:
    # Was "answer has no claims", counted against the run's health; an LLM judge's claims
    # prompt skips hedges and courtesies too, and calls such an answer a refusal.
    result = faithfulness(judge, make("en", answer))
    assert (result.unscored_reason, result.reason_code) == (REFUSAL, "refusal")
    assert result.unscored_reason in BY_DESIGN
    assert result.evidence.abstained is None


def test_no_contexts_makes_claims_unverifiable(judge: LocalJudge, make: Make) -> None:
    result = faithfulness(judge, make("en", "Refunds are processed within 14 days.", contexts=[]))
    assert (result.score, result.reason_code) == (0.0, "no_contexts")
    assert [c.verdict for c in result.evidence.claims] == ["not_verifiable"]
    assert any("no contexts" in note for note in result.evidence.notes)


def test_partial_abstention_scores_the_claims(judge: LocalJudge, make: Make) -> None:
    answer = "Refunds are processed within 14 days, but I don't know about enterprise plans."
    result = faithfulness(judge, make("en", answer))
    assert result.score == 1.0
    assert [c.claim for c in result.evidence.claims] == ["Refunds are processed within 14 days"]
    assert "part of the answer abstains" in result.evidence.notes


def test_claims_are_substrings_of_the_answer(judge: LocalJudge, make: Make) -> None:
    answer = "Based on the policy, refunds are processed within 14 days; exchanges are free."
    result = faithfulness(judge, make("en", answer))
    assert [c.claim for c in result.evidence.claims] == [
        "refunds are processed within 14 days",
        "exchanges are free.",
    ]


def test_confidence_is_reported(judge: LocalJudge, make: Make) -> None:
    result = faithfulness(judge, make("en", "Exchanges are free of charge."))
    (claim,) = result.evidence.claims
    assert claim.confidence is not None and claim.confidence >= 0.6


@pytest.mark.parametrize(
    ("lang", "context", "answer"),
    [
        ("zh", "基础套餐每月10元，团队套餐每月25元。", "基础套餐每月25元，团队套餐每月10元。"),
        (
            "en",
            "Refunds are processed within 14 days; exchanges take up to 30 days.",
            "Refunds are processed within 30 days; exchanges take up to 14 days.",
        ),
    ],
    ids=["zh", "en"],
)
def test_numbers_moved_between_clauses_are_contradicted(
    judge: LocalJudge, lang: Lang, context: str, answer: str
) -> None:
    sample = Sample(case_id="s", question="", contexts=[context], answer=answer, lang=lang)
    result = faithfulness(judge, sample)
    assert result.score == 0.0
    assert all(c.verdict == "contradicted" for c in result.evidence.claims)
    assert "where the context says" in result.evidence.claims[0].reason
    # the same numbers in their own clauses are supported
    same = Sample(case_id="s", question="", contexts=[context], answer=context, lang=lang)
    assert faithfulness(judge, same).score == 1.0


def test_a_date_split_by_its_comma_is_not_a_moved_number(judge: LocalJudge) -> None:
    context = "Yeon Woo-jin (born Kim Bong-hoe on July 5, 1984) is a South Korean actor."
    sample = Sample(
        case_id="d",
        question="When was Yeon Woo-jin born?",
        contexts=[context],
        answer="Yeon Woo-jin was born on July 5, 1984.",
        lang="en",
    )
    (claim,) = faithfulness(judge, sample).evidence.claims
    assert claim.verdict == "supported", claim.reason


def test_a_qualifier_in_its_own_clause_keeps_the_number_with_it(judge: LocalJudge) -> None:
    """An enumeration ("25 MB on the Free plan, 250 MB on the Pro plan") is not a swap when the
    statement names its plan in a clause of its own (demo case en-010 was contradicted)."""
    context = (
        "The maximum size of a single attachment is 25 MB on the Free plan, 250 MB on the Pro "
        "plan, 1 GB on the Team plan and 5 GB on the Enterprise plan."
    )
    right = "On the Pro plan, a single attachment can be at most 250 MB."
    wrong = "On the Free plan, a single attachment can be at most 250 MB."
    for answer, verdict in ((right, "supported"), (wrong, "contradicted")):
        sample = Sample(case_id="p", question="", contexts=[context], answer=answer, lang="en")
        (claim,) = faithfulness(judge, sample).evidence.claims
        assert claim.verdict == verdict, (answer, claim.reason)
