from __future__ import annotations

import pytest

from ragmeter.judges.local import is_abstention, is_refusal, segment, split_claims


def test_english_claims_drop_lead_ins_and_fillers() -> None:
    text = (
        "According to the handbook, refunds take 14 days; exchanges are free, and you can "
        "return items in store. Hope this helps!"
    )
    assert split_claims(text, "en") == [
        "refunds take 14 days",
        "exchanges are free",
        "you can return items in store.",
    ]


def test_lists_are_not_split_into_fragments() -> None:
    assert split_claims("Red, green, and blue cases are available.", "en") == [
        "Red, green, and blue cases are available."
    ]


def test_bullets_are_claims() -> None:
    text = "Steps:\n- Open the settings page.\n- Click Reset password."
    assert split_claims(text, "en")[-2:] == ["Open the settings page.", "Click Reset password."]


def test_chinese_claims() -> None:
    text = "根据员工手册，退款需要14天，但是国际订单需要30天。希望对您有帮助！"
    assert split_claims(text, "zh") == ["退款需要14天", "但是国际订单需要30天。"]


def test_roles() -> None:
    roles = [s.role for s in segment("It depends. Please contact support. Anything else?", "en")]
    assert roles == ["hedge", "hedge", "question"]


@pytest.mark.parametrize(
    "text",
    [
        "I don't know.",
        "The handbook does not mention parking.",
        "That is not covered in the documentation.",
        "I'm not able to answer that from the provided context.",
        "There is no information about parking.",
        "我不知道。",
        "手册中没有提到停车政策。",
        "抱歉，我无法回答这个问题。",
        "资料中没有相关信息。",
        "文档未提及此事。",
    ],
)
def test_abstentions(text: str) -> None:
    assert is_abstention(text)


@pytest.mark.parametrize(
    "text",
    [
        "Water damage is not covered by the warranty.",
        "We are unable to offer refunds on digital goods.",
        "The plan does not include roaming.",
        "标准套餐不包含国际漫游。",
        "我们无法提供数字商品的退款。",
        "退款会在14天内处理。",
    ],
)
def test_factual_negatives_are_not_abstentions(text: str) -> None:
    assert not is_abstention(text)


def test_refusal_needs_no_claims() -> None:
    assert is_refusal("I don't know. The handbook does not cover this.", "en")
    assert not is_refusal("Refunds take 14 days, but I don't know about enterprise plans.", "en")


@pytest.mark.parametrize(
    ("lang", "text", "claims"),
    [
        ("en", "No. Templates are created on the web.", ["Templates are created on the web."]),
        ("en", "Yes, admins can do it.", ["admins can do it."]),
        ("en", "Nope - exports are not encrypted.", ["exports are not encrypted."]),
        ("en", "No.", []),
        ("en", "No. 5 is the default port.", ["No. 5 is the default port."]),
        ("en", "No limit applies to notebooks.", ["No limit applies to notebooks."]),
        ("zh", "不能。移动端无法创建模板。", ["移动端无法创建模板。"]),
        ("zh", "可以，管理员可以恢复。", ["管理员可以恢复。"]),
        ("zh", "不是所有套餐都支持导出。", ["不是所有套餐都支持导出。"]),
        ("zh", "不能超过三十天。", ["不能超过三十天。"]),
    ],
)
def test_a_bare_yes_or_no_reply_is_no_claim(lang: str, text: str, claims: list[str]) -> None:
    assert split_claims(text, lang) == claims  # type: ignore[arg-type]
