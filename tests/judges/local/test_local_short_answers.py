"""Answers that are not refusals are judged (issue 31, item 1): a short answer is read with its
question ("No." to "Is SSO on the free plan?" claims SSO is not on the free plan), and an
answer that states something is never skipped as a refusal, whatever its form (a trailing
colon, a hedge, a quoted title). Only true refusals stay unscored by design. Each of these
answers had no claim before, or was judged without its question."""

from __future__ import annotations

import pytest

from ragmeter.judges.base import MetricResult, Sample
from ragmeter.judges.local import LocalJudge
from ragmeter.judges.rules import REFUSAL

EN_CONTEXTS = [
    "Single sign-on is not available on the free plan.",
    "The Business plan includes single sign-on.",
    "Refunds are processed within 14 days of the request.",
    '"I Still Haven\'t Found What I\'m Looking For" is a song on the album "The Joshua Tree".',
]
ZH_CONTEXTS = [
    "免费版没有离线模式。",
    "商业版包含单点登录。",
    "退款会在申请后14天内处理完毕。",
    "《我不知道》是一首收录在专辑《晴天》中的歌曲。",
]


def faithfulness(judge: LocalJudge, lang: str, question: str, answer: str) -> MetricResult:
    sample = Sample(
        case_id="short",
        question=question,
        answer=answer,
        contexts=ZH_CONTEXTS if lang == "zh" else EN_CONTEXTS,
        lang=lang,  # type: ignore[arg-type]
    )
    return judge.judge_sync(sample, ("faithfulness",))["faithfulness"]


# (lang, question, answer, verdict): the claim is the question with its answer
READ_WITH_QUESTION = [
    ("en", "Is single sign-on available on the free plan?", "No.", "supported"),
    ("en", "Is single sign-on available on the free plan?", "Yes.", "contradicted"),
    ("en", "Is single sign-on available on the free plan?", "Yes, it is.", "contradicted"),
    ("en", "How many days are refunds processed in?", "14.", "supported"),
    ("en", "How many days are refunds processed in?", "30.", "contradicted"),
    ("en", "Which plan includes single sign-on?", "The Business plan.", "supported"),
    ("en", "Which plan includes single sign-on?", "The free plan.", "contradicted"),
    ("zh", "免费版有没有离线模式？", "没有。", "supported"),
    ("zh", "免费版有离线模式吗？", "有。", "contradicted"),
    ("zh", "免费版有离线模式吗？", "是的。", "contradicted"),
    ("zh", "退款会在申请后多少天内处理完毕？", "14天。", "supported"),
    ("zh", "退款会在申请后多少天内处理完毕？", "30。", "contradicted"),
]


@pytest.mark.parametrize(
    ("lang", "question", "answer", "verdict"),
    READ_WITH_QUESTION,
    ids=[f"{q} {a}" for _, q, a, _ in READ_WITH_QUESTION],
)
def test_a_short_answer_is_read_with_its_question(
    judge: LocalJudge, lang: str, question: str, answer: str, verdict: str
) -> None:
    result = faithfulness(judge, lang, question, answer)
    (claim,) = result.evidence.claims
    assert claim.claim == f"{question}{'' if lang == 'zh' else ' '}{answer}"
    assert claim.verdict == verdict
    assert result.score is not None
    if verdict == "supported":
        assert result.score >= 0.9
    else:
        assert result.score == 0.0


@pytest.mark.parametrize(
    ("lang", "question", "answer", "context"),
    [
        (
            "en",
            "Are both The Lumineers and Kings of Leon American rock bands?",
            "No.",
            "Kings of Leon is an American rock band. The Lumineers are an American folk band.",
        ),
        ("zh", "猫和狗都是爬行动物吗？", "不是。", "猫是哺乳动物。狗也是哺乳动物。"),
    ],
)
def test_no_to_a_question_about_both_is_not_contradicted_by_one_of_them(
    judge: LocalJudge, lang: str, question: str, answer: str, context: str
) -> None:
    # "No" denies that both are, not that either is
    sample = Sample(case_id="both", question=question, answer=answer, contexts=[context], lang=lang)  # type: ignore[arg-type]
    result = judge.judge_sync(sample, ("faithfulness",))["faithfulness"]
    (claim,) = result.evidence.claims
    assert claim.verdict != "contradicted"
    assert result.score is not None and result.score > 0.0


# (lang, question, answer, the claim judged)
STATES_SOMETHING = [
    # an introduction whose list never came
    (
        "en",
        "Which plan includes single sign-on?",
        "The Business plan includes single sign-on:",
        "The Business plan includes single sign-on",
    ),
    (
        "zh",
        "哪个版本包含单点登录？",
        "商业版包含单点登录，具体如下：",
        "商业版包含单点登录，具体如下",
    ),
    # a hedge that qualifies a statement
    (
        "en",
        "Which plan includes single sign-on?",
        "In general, the Business plan includes single sign-on.",
        "the Business plan includes single sign-on.",
    ),
    ("zh", "哪个版本包含单点登录？", "一般来说，商业版包含单点登录。", "商业版包含单点登录。"),
    # a quoted title that reads like a refusal
    (
        "en",
        "Which album is the song on?",
        '"I Still Haven\'t Found What I\'m Looking For" is on "The Joshua Tree".',
        '"I Still Haven\'t Found What I\'m Looking For" is on "The Joshua Tree".',
    ),
    (
        "zh",
        "这首歌收录在哪张专辑？",
        "《我不知道》收录在专辑《晴天》中。",
        "《我不知道》收录在专辑《晴天》中。",
    ),
]


@pytest.mark.parametrize(
    ("lang", "question", "answer", "claim"),
    STATES_SOMETHING,
    ids=[a for _, _, a, _ in STATES_SOMETHING],
)
def test_an_answer_that_states_something_is_not_a_refusal(
    judge: LocalJudge, lang: str, question: str, answer: str, claim: str
) -> None:
    result = faithfulness(judge, lang, question, answer)
    assert result.unscored_reason is None
    assert [c.claim for c in result.evidence.claims] == [claim]
    assert [c.verdict for c in result.evidence.claims] == ["supported"]


@pytest.mark.parametrize(
    ("lang", "question", "answer"),
    [
        ("en", "Is single sign-on available on the free plan?", "I don't know."),
        ("en", "Is single sign-on available on the free plan?", "The context does not say."),
        ("en", "How do I set it up?", "Here are the steps:"),
        ("en", "How do I set it up?", "I don't know. Here is what the handbook covers:"),
        ("en", "How do I set it up?", "It depends."),
        ("zh", "免费版有离线模式吗？", "抱歉，我无法回答。"),
        ("zh", "免费版有离线模式吗？", "资料里没有提到。"),
        ("zh", "怎么设置？", "步骤如下："),
    ],
)
def test_true_refusals_and_empty_introductions_stay_unscored(
    judge: LocalJudge, lang: str, question: str, answer: str
) -> None:
    result = faithfulness(judge, lang, question, answer)
    assert result.score is None
    assert result.unscored_reason == REFUSAL
