"""Antonym swaps: a claim that says the opposite of its evidence with almost the same words."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ragmeter.judges.base import Sample
from ragmeter.judges.local import LocalJudge
from ragmeter.judges.local.antonyms import antonym_swap

Make = Callable[..., Sample]


@pytest.mark.parametrize(
    ("claim", "evidence", "lang", "swap"),
    [
        ("Prices increased sharply in May.", "Prices decreased sharply in May.", "en",
         ("increased", "decreased")),
        ("Funds went to a single hedge fund.", "Funds went to several hedge funds.", "en",
         ("single", "several")),
        ("Smoking is allowed in the lobby.", "Smoking is prohibited in the lobby.", "en",
         ("allowed", "prohibited")),
        ("价格上涨了百分之五。", "价格下跌了百分之五。", "zh", ("上涨", "下跌")),
        ("访客必须登记。", "访客登记是可选的。", "zh", ("必须", "可选")),
    ],
)  # fmt: skip
def test_swap_is_found(claim: str, evidence: str, lang, swap: tuple[str, str]) -> None:
    assert antonym_swap(claim, evidence, lang) == swap


@pytest.mark.parametrize(
    ("claim", "evidence", "lang"),
    [
        ("Prices increased sharply in May.", "Prices increased sharply in May.", "en"),
        # both opposites on each side: a range, not a swap
        ("Pages run from the first to the last.", "Pages run from the last to the first.", "en"),
        # converse pairs are not contradictions
        ("Ann bought the car from Bob.", "Bob sold the car to Ann.", "en"),
        ("The audit came before the launch.", "The launch came after the audit.", "en"),
        # words outside the lexicon, however different
        ("The cat sat on the mat.", "The dog sat on the mat.", "en"),
        ("价格上涨了。", "价格上涨了，之前曾下跌。", "zh"),
    ],
)
def test_no_swap(claim: str, evidence: str, lang) -> None:
    assert antonym_swap(claim, evidence, lang) is None


def test_judge_contradicts_a_claim_that_says_the_opposite(judge: LocalJudge, make: Make) -> None:
    contexts = ["Pets are allowed in the office on Fridays. The lobby closes at 6pm."]
    result = judge.judge_sync(
        make("en", "Pets are prohibited in the office on Fridays.", contexts=contexts),
        ("faithfulness",),
    )["faithfulness"]
    (claim,) = result.evidence.claims
    assert result.score == 0.0 and claim.verdict == "contradicted"
    assert "'prohibited'" in claim.reason and "'allowed'" in claim.reason
    assert claim.evidence == "Pets are allowed in the office on Fridays."


def test_judge_contradicts_the_opposite_in_chinese(judge: LocalJudge, make: Make) -> None:
    contexts = ["本季度销售额增长了百分之十二。办公室周五下午关闭。"]
    result = judge.judge_sync(
        make("zh", "本季度销售额下降了百分之十二。", contexts=contexts), ("faithfulness",)
    )["faithfulness"]
    (claim,) = result.evidence.claims
    assert claim.verdict == "contradicted" and "下降" in claim.reason


def test_same_meaning_is_still_supported(judge: LocalJudge, make: Make) -> None:
    contexts = ["Pets are allowed in the office on Fridays."]
    result = judge.judge_sync(
        make("en", "Pets are allowed in the office on Fridays.", contexts=contexts),
        ("faithfulness",),
    )["faithfulness"]
    assert result.score == 1.0
