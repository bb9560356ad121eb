"""What a question asks for and whether an answer gives it, in English and Chinese."""

from __future__ import annotations

import pytest

from ragmeter.judges.local.needs import gives, question_need


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
