from __future__ import annotations

import pytest

from ragmeter.text import (
    char_ngrams,
    content_words,
    detect_lang,
    has_negation,
    sentence_spans,
    split_sentences,
    stem,
    tokenize,
)
from ragmeter.text.numbers import extract_numbers, find_numbers, parse_zh_numeral


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("How long do refunds take?", "en"),
        ("退款需要多久？", "zh"),
        ("我的PayPal账户怎么绑定？", "zh"),
        ("Is 退款 possible for my PayPal subscription order?", "en"),
        ("", "en"),
        ("1234 !!", "en"),
    ],
)
def test_detect_lang(text: str, lang: str) -> None:
    assert detect_lang(text) == lang


def test_tokenize_english_keeps_numbers_and_compounds() -> None:
    tokens = tokenize("The fee is $8.50, support is 24/7; enable 2FA. Don't wait 1,000 days!")
    assert tokens == [
        "the", "fee", "is", "8.50", "support", "is", "24/7", "enable", "2fa",
        "don't", "wait", "1,000", "days",
    ]  # fmt: skip


def test_tokenize_chinese_with_ascii_inside() -> None:
    tokens = tokenize("退款政策是14天内，支持PayPal和2FA验证。")
    assert "退款" in tokens and "政策" in tokens
    assert "14" in tokens and "paypal" in tokens and "2fa" in tokens
    assert "，" not in tokens and "。" not in tokens


def test_stem_is_consistent_across_forms() -> None:
    assert stem("refunds") == stem("refund") == stem("refunded") == stem("refunding")
    assert stem("requires") == stem("required") == stem("require")
    assert stem("policies") == stem("policy")
    assert stem("process") == stem("processes")


def test_content_words_drop_stopwords() -> None:
    assert content_words("How do I reset my password after the refunds?") == [
        "reset",
        "password",
        "refund",
    ]
    zh = content_words("我应该如何在App里重置密码？")
    assert zh == ["app", "重置", "密码"]


def test_split_sentences_english() -> None:
    text = (
        "Refunds take 14 days, e.g. for Dr. Smith. The fee is 8.50 dollars! "
        "Is it ok? yes it is.\n- Bullet one\n- Bullet two\n1. First step"
    )
    assert split_sentences(text) == [
        "Refunds take 14 days, e.g. for Dr. Smith.",
        "The fee is 8.50 dollars!",
        "Is it ok? yes it is.",
        "Bullet one",
        "Bullet two",
        "First step",
    ]


def test_split_sentences_joins_wrapped_lines() -> None:
    assert split_sentences("It was wrapped\nover two lines. Next one") == [
        "It was wrapped\nover two lines.",
        "Next one",
    ]


def test_split_sentences_chinese() -> None:
    text = "退款需要14天。请联系客服！可以吗？可以；但要登录\n- 第一条\n第二行"
    assert split_sentences(text) == [
        "退款需要14天。",
        "请联系客服！",
        "可以吗？",
        "可以；",
        "但要登录",
        "第一条",
        "第二行",
    ]


def test_sentence_spans_are_offsets() -> None:
    text = "  First one. Second one."
    spans = sentence_spans(text)
    assert [text[s:e] for s, e in spans] == ["First one.", "Second one."]


def test_char_ngrams_ignore_space_and_punctuation() -> None:
    assert char_ngrams("退款 需要，") == {"退款", "款需", "需要"}
    assert char_ngrams("a") == {"a"}
    assert char_ngrams("") == set()


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("Pay $8 or 1,000 points", ["8", "1000"]),
        ("50% off, fee 3.50", ["50%", "3.5"]),
        ("on 2024-3-1 or March 5, 2024", ["2024-03-01", "2024-03-05"]),
        ("open 9am to 5:30 pm, 24/7", ["9:00", "17:30", "24/7"]),
        ("within fourteen days; enable 2FA", ["14"]),
        ("三十天内退款，百分之五十，两万元", ["30", "50%", "20000"]),
        ("2024年3月1日下午5点，14天", ["2024-03-01", "17:00", "14"]),
        ("一些用户", []),
    ],
)
def test_extract_numbers(text: str, numbers: list[str]) -> None:
    assert extract_numbers(text) == numbers


def test_number_kinds() -> None:
    kinds = [(m.value, m.kind) for m in find_numbers("within 14 days, 20% and $5, 30天")]
    assert kinds == [("14", "day"), ("20%", "percent"), ("5", "money"), ("30", "day")]


def test_parse_zh_numeral() -> None:
    assert parse_zh_numeral("十四") == 14
    assert parse_zh_numeral("一百二十") == 120
    assert parse_zh_numeral("两万") == 20000
    assert parse_zh_numeral("天") is None


@pytest.mark.parametrize(
    ("text", "negated"),
    [
        ("You cannot get a refund.", True),
        ("Refunds aren't available.", True),
        ("There is no fee.", True),
        ("You can get a refund.", False),
        ("不支持退款", True),
        ("没有手续费", True),
        ("非常方便，未来可期", False),
        ("支持退款", False),
    ],
)
def test_has_negation(text: str, negated: bool) -> None:
    assert has_negation(text) is negated


def test_detect_lang_weighs_ideographs_against_words():
    from ragmeter.text import detect_lang

    assert detect_lang("Nimbus Notes 支持 Linux 吗？") == "zh"
    assert detect_lang("You can log in with 微信 on the phone app today.") == "en"
    assert detect_lang("") == "en"
    assert detect_lang("回收站") == "zh"
