"""What a question asks for and whether an answer gives it, in English and Chinese."""

from __future__ import annotations

import pytest

from ragmeter.judges.local.needs import gives, question_need, question_needs


@pytest.mark.parametrize(
    ("lang", "question", "need"),
    [
        ("en", "How long are deleted notes kept?", "duration"),
        ("zh", "删除的笔记会保留多久？", "duration"),
        ("en", "When was the first iPhone released?", "date"),
        ("zh", "第一代iPhone是什么时候发布的？", "date"),
        ("en", "How many members can a Free workspace have?", "number"),
        ("zh", "免费工作区最多可以有几个成员？", "number"),
        ("en", "Can I export notes to PDF?", "yes_no"),
        ("zh", "笔记可以导出为PDF吗？", "yes_no"),
        ("en", "Who wrote Pride and Prejudice?", "person"),
        ("zh", "《傲慢与偏见》的作者是谁？", "person"),
        ("en", "Where do penguins live?", "place"),
        ("zh", "企鹅生活在哪里？", "place"),
        ("en", "In which country is the Eiffel Tower?", "place"),
        ("zh", "埃菲尔铁塔在哪个国家？", "place"),
        ("en", "Why is the sky blue?", None),
        ("zh", "天空为什么是蓝色的？", None),
    ],
)
def test_the_kind_of_thing_a_question_asks_for(lang: str, question: str, need: str | None) -> None:
    assert question_need(question, lang) == need  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("lang", "need", "answer", "given"),
    [
        ("en", "duration", "They stay in the trash for 30 days.", True),
        ("en", "duration", "Deleted notes are erased after a month.", True),
        ("en", "duration", "Deleted notes go to the trash.", False),
        ("zh", "duration", "它们会在回收站里保留30天。", True),
        ("zh", "duration", "保留一个月后清除。", True),
        ("zh", "duration", "删除的笔记会进入回收站。", False),
        ("en", "date", "It was released on June 29, 2007.", True),
        ("en", "date", "Apple released it in the United States.", False),
        ("zh", "date", "2007年6月29日在美国发售。", True),
        ("zh", "date", "苹果公司在美国发售。", False),
        ("en", "number", "Up to three members.", True),
        ("en", "number", "Members are invited from the settings page.", False),
        ("zh", "number", "最多三个成员。", True),
        ("zh", "number", "在设置页面邀请成员。", False),
        ("en", "place", "Mostly in Antarctica and the southern oceans.", True),
        ("en", "place", "Penguins eat fish and krill.", False),
        ("zh", "place", "企鹅主要生活在南极。", True),
        ("zh", "place", "企鹅吃鱼和磷虾。", False),
        ("en", "person", "Only workspace owners can do that.", True),
        ("en", "person", "It was published in 1813.", False),
        ("zh", "person", "只有工作区所有者可以删除。", True),
        ("en", "yes_no", "Yes, from the Share menu.", True),
        ("zh", "yes_no", "可以，在分享菜单里导出。", True),
    ],
)
def test_whether_an_answer_gives_it(lang: str, need: str, answer: str, given: bool) -> None:
    assert gives(answer, need, lang) is given  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("lang", "answer"),
    [("en", "Notes are exported from the Share menu."), ("zh", "在分享菜单里导出笔记。")],
)
def test_a_statement_to_a_yes_no_question_gets_no_verdict(lang: str, answer: str) -> None:
    """It may well answer the question ("Can I export to PDF?"): words alone cannot tell."""
    assert gives(answer, "yes_no", lang) is None  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("question", "answer", "given"),
    [
        ("Who wrote Pride and Prejudice?", "Austen wrote it in 1813.", True),
        ("Who wrote Pride and Prejudice?", "Pride and Prejudice was published in 1813.", False),
        ("Where was the treaty signed?", "It was signed in Versailles.", True),
        ("Where was the treaty signed?", "The Treaty was signed in 1919.", False),
        ("Where can I find my invoices?", "They are listed under Billing > Invoices.", True),
        ("Where can I find my invoices?", "Open Billing and choose Invoices.", True),
        ("Where is the export button?", "It is at the top right of every note.", True),
        ("Where can I get the app?", "Download it from nimbusnotes.example/download.", True),
        ("Where are exports saved?", "Exports are saved as PDF files.", False),
        ("Who can see my private notes?", "Only you can see them.", True),
    ],
)
def test_a_name_answers_who_or_where_unless_the_question_already_holds_it(
    question: str, answer: str, given: bool
) -> None:
    """A capitalised word the question lacks names a person; after a preposition or a verb
    of going there ("open Billing"), a place; so do a web address and a position on the
    screen. The question's own names ("Pride and Prejudice", "Treaty") answer nothing."""
    need = question_need(question, "en")
    assert need is not None
    assert gives(answer, need, "en", question) is given


def test_a_chinese_who_question_answered_with_a_bare_name_gets_no_verdict() -> None:
    """张伟 or 米开朗基罗 is not told from other words: no verdict rather than a wrong one."""
    assert gives("米开朗基罗画的。", "person", "zh", "西斯廷教堂的天顶画是谁画的？") is None


@pytest.mark.parametrize(
    ("lang", "question", "needs"),
    [
        ("en", "Who founded Larkspur Labs, and when?", ["date", "person"]),
        ("zh", "谁创办了Larkspur Labs，什么时候？", ["date", "person"]),
        ("en", "When and where was the treaty signed?", ["date", "place"]),
        ("en", "How many days do refunds take?", ["duration"]),
        ("zh", "会议几点开始？", ["date"]),
    ],
)
def test_a_question_can_ask_for_several_things(lang: str, question: str, needs: list[str]) -> None:
    """A compound question asks for each of its kinds; a number that is part of a duration
    or a time is not asked for on its own."""
    assert question_needs(question, lang) == needs  # type: ignore[arg-type]
