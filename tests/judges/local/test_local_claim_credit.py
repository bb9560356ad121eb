"""What a claim counts for (issue 31, faithfulness at or above word overlap): a negation
contradicts only what it bears on; where no rule finds a contradiction, a claim keeps the order
of its support under the bar instead of a flat cap; a rule that finds less than a
contradiction lowers the support a claim counts with instead of zeroing it."""

from __future__ import annotations

import pytest

from ragmeter.judges.base import MetricResult, Sample
from ragmeter.judges.local import LocalJudge
from ragmeter.judges.local.polarity import negated_words
from ragmeter.text import Lang


def faithfulness(judge: LocalJudge, lang: Lang, context: str, answer: str) -> MetricResult:
    sample = Sample(case_id="c", question="", contexts=[context], answer=answer, lang=lang)
    return judge.judge_sync(sample, ("faithfulness",))["faithfulness"]


@pytest.fixture(scope="module")
def lexical() -> LocalJudge:
    return LocalJudge(embedder=None, relevancy_embedder=None)


# (lang, context, a claim the negation does not bear on, the claim it contradicts)
NEGATION_SCOPE = [
    (
        "en",
        "The agency helps to locate parents who do not live with their children.",
        "The agency helps to locate parents.",
        "The agency helps to locate parents who live with their children.",
    ),
    (
        "zh",
        "该机构帮助寻找不和孩子住在一起的父母。",
        "该机构帮助寻找父母。",
        "该机构帮助寻找和孩子住在一起的父母。",
    ),
]


@pytest.mark.parametrize(
    ("lang", "context", "unaffected", "contradicting"), NEGATION_SCOPE, ids=["en", "zh"]
)
def test_a_negation_contradicts_only_what_it_bears_on(
    judge: LocalJudge, lang: Lang, context: str, unaffected: str, contradicting: str
) -> None:
    result = faithfulness(judge, lang, context, unaffected)
    (claim,) = result.evidence.claims
    assert claim.verdict == "supported", claim.reason
    assert result.score is not None and result.score > 0.8
    (claim,) = faithfulness(judge, lang, context, contradicting).evidence.claims
    assert claim.verdict == "contradicted"
    assert "negated" in claim.reason


@pytest.mark.parametrize(
    ("lang", "context", "answer"),
    [
        (
            "en",
            "Do not put personal information in your namespace names.",
            "Avoid putting personal information in your namespace names.",
        ),
        ("zh", "不要在命名空间名称中填写个人信息。", "避免在命名空间名称中填写个人信息。"),
    ],
    ids=["en", "zh"],
)
def test_a_negative_said_in_other_words_is_no_contradiction(
    judge: LocalJudge, lang: Lang, context: str, answer: str
) -> None:
    result = faithfulness(judge, lang, context, answer)
    (claim,) = result.evidence.claims
    assert claim.verdict == "supported", claim.reason
    assert result.score is not None and result.score > 0.8


def test_what_a_negation_bears_on() -> None:
    assert negated_words("you don't have to pay a costly fee", "en") == ("pay", "costly")
    assert negated_words("whether you are a victim or not", "en") == ()
    assert negated_words("you can no longer apply updates", "en") == ("apply", "updat")
    assert negated_words("not just the document's id", "en") == ()
    assert negated_words("星期天全天不开放", "zh") == ("开放",)


# (lang, context, claim with more support, claim with less): both short of support
UNDER_THE_BAR = [
    (
        "en",
        "The library lends books, maps and films to members.",
        "The library lends books and maps to tourists, students and visitors from abroad.",
        "The library lends old books to foreign tourists and students.",
    ),
    (
        "zh",
        "图书馆向会员出借图书、地图和电影。",
        "图书馆向外国游客出借图书和地图。",
        "图书馆向外国游客、学生和老师出借图书和地图。",
    ),
]


@pytest.mark.parametrize(("lang", "context", "more", "less"), UNDER_THE_BAR, ids=["en", "zh"])
def test_claims_short_of_support_keep_the_order_of_their_support(
    lexical: LocalJudge, lang: Lang, context: str, more: str, less: str
) -> None:
    high = faithfulness(lexical, lang, context, more)
    low = faithfulness(lexical, lang, context, less)
    for result in (high, low):
        (claim,) = result.evidence.claims
        assert claim.verdict == "not_verifiable"
    (high_claim,), (low_claim,) = high.evidence.claims, low.evidence.claims
    assert (high_claim.confidence or 0) > (low_claim.confidence or 0)
    assert high.score is not None and low.score is not None
    assert 0 < low.score < high.score < 0.4


def test_a_number_found_nowhere_lowers_an_english_claim_instead_of_zeroing_it(
    lexical: LocalJudge,
) -> None:
    context = "The museum in Porto opens early on weekdays."
    unfound = faithfulness(lexical, "en", context, "The museum in Porto opens at 7 am on weekdays.")
    (claim,) = unfound.evidence.claims
    assert "appears nowhere" in claim.reason
    unrelated = faithfulness(lexical, "en", context, "The aquarium in Lisbon sells tickets online.")
    assert unfound.score is not None and unrelated.score is not None
    # the claim's words are there, its number is not: above a claim with no support at all,
    # well under the bar
    assert unrelated.score < unfound.score < 0.3


def test_a_number_found_nowhere_still_counts_nothing_in_chinese(lexical: LocalJudge) -> None:
    # fitted apart: Chinese claims with a number found nowhere are as rarely supported as
    # claims with no support at all
    context = "波尔图的博物馆工作日很早开门。"
    result = faithfulness(lexical, "zh", context, "波尔图的博物馆工作日早上7点开门。")
    (claim,) = result.evidence.claims
    assert "appears nowhere" in claim.reason
    assert result.score == 0.0


STEPS_CONTEXT = {
    "en": "To create a table, open the console and choose New table. Name the table and save it.",
    "zh": "创建表格时，打开控制台并选择新建表格。然后为表格命名并保存。",
}


@pytest.mark.parametrize(
    ("lang", "answer"),
    [
        (
            "en",
            "To create a table, follow these steps: 1. Open the console and choose New table. "
            "2. Name the table and save it.",
        ),
        (
            "en",
            "Step 1: Open the console and choose New table. Step 2: Name the table and save it.",
        ),
        ("zh", "创建表格的步骤如下：1. 打开控制台并选择新建表格。2. 为表格命名并保存。"),
        ("zh", "第1步：打开控制台并选择新建表格。第2步：为表格命名并保存。"),
        ("zh", "步骤1：打开控制台并选择新建表格。步骤2：为表格命名并保存。"),
    ],
    ids=["en-list", "en-steps", "zh-list", "zh-steps", "zh-步骤"],
)
def test_list_markers_and_step_labels_are_layout_not_claims(
    lexical: LocalJudge, lang: Lang, answer: str
) -> None:
    result = faithfulness(lexical, lang, STEPS_CONTEXT[lang], answer)
    claims = [c.claim for c in result.evidence.claims]
    assert len(claims) == 2, claims  # the two steps, without "1." / "2." / "Step 1:"
    assert all(c.verdict == "supported" for c in result.evidence.claims), result.evidence.claims
    assert result.score == 1.0


def test_a_bare_number_answer_is_still_a_claim(lexical: LocalJudge) -> None:
    sample = Sample(
        case_id="n",
        question="How many days are refunds processed in?",
        contexts=["Refunds are processed within 14 days of the request."],
        answer="14.",
        lang="en",
    )
    result = lexical.judge_sync(sample, ("faithfulness",))["faithfulness"]
    assert [c.verdict for c in result.evidence.claims] == ["supported"]


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        (
            "The mask tradition spread from Africa to the Caribbean in the 18th century.",
            "The mask tradition has African roots and spread to the Caribbean.",
        ),
        (
            "Many rivers cross Europe from the Alps to the sea.",
            "Many rivers cross the European continent from the Alps.",
        ),
    ],
    ids=["African-Africa", "European-Europe"],
)
def test_a_name_made_from_a_place_is_mentioned_by_the_place(
    lexical: LocalJudge, context: str, answer: str
) -> None:
    (claim,) = faithfulness(lexical, "en", context, answer).evidence.claims
    assert "never mentioned" not in claim.reason
    assert claim.verdict == "supported"


def test_a_name_whose_root_is_not_mentioned_stays_unverified(lexical: LocalJudge) -> None:
    # Australian is not Austria ("austral" is nowhere in the context)
    context = "The mask tradition spread from Austria to the Caribbean."
    answer = "The mask tradition has Australian roots and spread to the Caribbean."
    (claim,) = faithfulness(lexical, "en", context, answer).evidence.claims
    assert claim.reason == "'Australian' is never mentioned in the contexts"
