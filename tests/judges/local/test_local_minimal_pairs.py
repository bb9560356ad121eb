"""Hand-written minimal pairs, English and Chinese: what the local judge can and cannot tell.

Each pair has a faithful answer (often a paraphrase, with fewer of the evidence's words) and an
unfaithful one that reuses the evidence's words (negation, swapped entity, swapped roles, moved
number). Word overlap ranks every unfaithful answer above its twin. The lexical judge tells
the English negation and the Chinese moved number apart; the rest are strict expected
failures, kept as a record of what issue 10's trained verifier must fix: when one starts
passing, the xfail breaks and says so.
"""

from __future__ import annotations

import pytest

from ragmeter.judges.base import Sample
from ragmeter.judges.local import LocalJudge
from ragmeter.text import Lang

# (language, kind, evidence, faithful answer, unfaithful answer)
PAIRS = [
    (
        "en",
        "paraphrase / negation",
        "The library closes at 8 pm on weekdays and stays closed all day on Sundays.",
        "On weekdays the library shuts at 8 pm, and on Sundays it does not open at all.",
        "The library stays open all day on Sundays.",
    ),
    (
        "en",
        "swapped roles",
        "In 2019 Maria Lopez hired Tom Reed as her research assistant.",
        "Tom Reed started working for Maria Lopez as a research assistant in 2019.",
        "In 2019 Tom Reed hired Maria Lopez as his research assistant.",
    ),
    (
        "en",
        "swapped entity",
        "The Dom Luis I bridge links Porto with Vila Nova de Gaia. The Vasco da Gama "
        "bridge is in Lisbon.",
        "The Dom Luis I bridge joins Porto and Vila Nova de Gaia.",
        "The Dom Luis I bridge is in Lisbon.",
    ),
    (
        "en",
        "moved number",
        "The starter plan costs $10 a month and the team plan costs $25 a month.",
        "You pay $10 monthly for the starter plan.",
        "The starter plan costs $25 a month and the team plan costs $10 a month.",
    ),
    (
        "zh",
        "paraphrase / negation",
        "图书馆工作日晚上八点闭馆，星期天全天不开放。",
        "星期天图书馆整天关闭，工作日八点关门。",
        "图书馆星期天全天开放。",
    ),
    (
        "zh",
        "swapped roles",
        "2019年，王芳聘请李强担任她的研究助理。",
        "李强从2019年起给王芳当研究助理。",
        "2019年，李强聘请王芳担任他的研究助理。",
    ),
    (
        "zh",
        "swapped entity",
        "复旦大学位于上海，南京大学位于南京。",
        "复旦大学在上海。",
        "复旦大学位于南京。",
    ),
    (
        "zh",
        "moved number",
        "基础套餐每月10元，团队套餐每月25元。",
        "基础套餐一个月收费10元。",
        "基础套餐每月25元，团队套餐每月10元。",
    ),
]

TOLD_APART = {("en", "paraphrase / negation"), ("zh", "moved number")}
"""The pairs the local judge already gets right."""


def faithfulness(judge: LocalJudge, lang: Lang, evidence: str, answer: str) -> float:
    sample = Sample(case_id="p", question="", contexts=[evidence], answer=answer, lang=lang)
    result = judge.judge_sync(sample, ("faithfulness",))["faithfulness"]
    assert result.score is not None, result.unscored_reason
    return result.score


def cases() -> list[object]:
    out: list[object] = []
    for pair in PAIRS:
        marks = []
        if (pair[0], pair[1]) not in TOLD_APART:
            reason = "the lexical judge is fooled (issue 10)"
            marks.append(pytest.mark.xfail(strict=True, reason=reason))
        out.append(pytest.param(*pair, marks=marks, id=f"{pair[0]}-{pair[1]}"))
    return out


@pytest.mark.parametrize(("lang", "kind", "evidence", "faithful", "unfaithful"), cases())
def test_the_faithful_answer_scores_above_the_one_that_reuses_the_words(
    judge: LocalJudge, lang: Lang, kind: str, evidence: str, faithful: str, unfaithful: str
) -> None:
    good = faithfulness(judge, lang, evidence, faithful)
    bad = faithfulness(judge, lang, evidence, unfaithful)
    assert good > bad, f"{kind}: faithful {good:.2f} <= unfaithful {bad:.2f}"
    assert bad < 0.5, f"{kind}: the unfaithful answer passes at {bad:.2f}"
