from __future__ import annotations

from collections.abc import Callable

import pytest

from ragmeter.judges.base import MetricResult, Sample, Turn
from ragmeter.judges.local import LocalJudge

Make = Callable[..., Sample]
WORLD_CUP = {"en": "Who won the 2018 World Cup?", "zh": "2018年世界杯冠军是谁？"}


def relevancy(judge: LocalJudge, sample: Sample) -> MetricResult:
    return judge.judge_sync(sample, ("answer_relevancy",))["answer_relevancy"]


@pytest.mark.parametrize(
    ("lang", "answer"),
    [
        ("en", "I'm sorry, the handbook does not cover this."),
        ("zh", "抱歉，手册中没有涉及这个问题。"),
    ],
)
def test_out_of_scope_abstention_scores_one(
    judge: LocalJudge, make: Make, lang: str, answer: str
) -> None:
    sample = make(lang, answer, question=WORLD_CUP[lang], category="out_of_scope")
    result = relevancy(judge, sample)
    assert result.score == 1.0
    assert result.evidence.abstained is True
    assert result.evidence.notes


@pytest.mark.parametrize(
    ("lang", "answer"),
    [("en", "France won the 2018 World Cup."), ("zh", "法国队获得了2018年世界杯冠军。")],
)
def test_out_of_scope_answer_scores_zero(
    judge: LocalJudge, make: Make, lang: str, answer: str
) -> None:
    sample = make(lang, answer, question=WORLD_CUP[lang], category="out_of_scope")
    result = relevancy(judge, sample)
    assert result.score == 0.0
    assert result.evidence.abstained is False


@pytest.mark.parametrize(
    ("lang", "direct", "evasive"),
    [
        (
            "en",
            "Refunds are processed within 14 days of the request.",
            "Refund times depend on several factors. Please contact support for details.",
        ),
        ("zh", "退款会在申请后14天内处理完毕。", "退款时间视情况而定，具体请联系客服。"),
    ],
)
def test_evasive_answer_scores_lower_than_direct(
    judge: LocalJudge, make: Make, lang: str, direct: str, evasive: str
) -> None:
    direct_score = relevancy(judge, make(lang, direct)).score
    evasive_result = relevancy(judge, make(lang, evasive))
    assert direct_score is not None and evasive_result.score is not None
    assert direct_score >= 0.7
    assert evasive_result.score < direct_score - 0.2
    assert any("evasive" in note for note in evasive_result.evidence.notes)


@pytest.mark.parametrize(
    ("lang", "answer"),
    [("en", "I don't know, the handbook does not say."), ("zh", "抱歉，我无法回答这个问题。")],
)
def test_refusal_on_answerable_question_scores_low(
    judge: LocalJudge, make: Make, lang: str, answer: str
) -> None:
    result = relevancy(judge, make(lang, answer))
    assert result.score is not None and result.score <= 0.2
    assert result.evidence.abstained is True


def test_typo_in_question_still_matches(judge: LocalJudge, make: Make) -> None:
    sample = make(
        "en",
        "Refunds are processed within 14 days of the request.",
        question="How long do refnds take to proces?",
    )
    result = relevancy(judge, sample)
    assert result.score is not None and result.score >= 0.7


def test_unrelated_answer_scores_low(judge: LocalJudge, make: Make) -> None:
    result = relevancy(judge, make("en", "The cafeteria serves lunch from noon."))
    assert result.score is not None and result.score < 0.3


def test_multi_turn_uses_the_previous_user_turn(judge: LocalJudge, make: Make) -> None:
    history = [
        Turn(role="user", content="What is the refund policy?"),
        Turn(role="assistant", content="Customers can request a refund within 30 days."),
    ]
    on_topic = make(
        "en",
        "Refunds are processed within 14 days of the request.",
        question="And how long does processing take?",
        history=history,
        category="multi_turn",
    )
    off_topic = on_topic.model_copy(update={"answer": "The office is open from 9am to 5pm."})
    on_score, off_score = relevancy(judge, on_topic).score, relevancy(judge, off_topic).score
    assert on_score is not None and off_score is not None
    assert on_score > off_score + 0.3


def test_empty_answer_is_unscored(judge: LocalJudge, make: Make) -> None:
    assert relevancy(judge, make("en", "")).unscored_reason == "empty answer"


@pytest.mark.parametrize(
    ("lang", "question", "answer"),
    [
        ("en", "Thank you!", "You're welcome! Is there anything else I can help you with?"),
        ("en", "Great, thanks for your help!", "Glad to help."),
        ("zh", "好的，谢谢！", "不客气！如有其他问题请随时提问。"),
    ],
)
def test_courteous_reply_to_a_social_turn_is_relevant(
    judge: LocalJudge, make: Make, lang: str, question: str, answer: str
) -> None:
    result = relevancy(judge, make(lang, answer, question=question))
    assert result.score == 1.0
    assert "social turn" in result.evidence.notes[0]


def test_social_words_inside_a_real_question_are_not_a_social_turn(
    judge: LocalJudge, make: Make
) -> None:
    sample = make("en", "You're welcome!", question="Thanks, and how long do refunds take?")
    assert relevancy(judge, sample).score < 0.5
