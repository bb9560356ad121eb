"""Dates, ordinals, decades and centuries as a careful reader reads them (issue 31): the same
date written another way supports a claim, a value inside a decade or century supports it and
one outside contradicts it, and a wrong day written as an ordinal contradicts it. Each case
was misread before: "14th" read as the number 1, "1910s" as 191, a day-first date as two loose
numbers, a year inside a full date as found nowhere."""

from __future__ import annotations

import pytest

from ragmeter.judges.base import Sample
from ragmeter.judges.local import LocalJudge

EN_CONTEXTS = [
    "The city museum reopened on 14 March 2021 after a long renovation. Its oldest building "
    "was built in 1914 by the city council. The east wing was added in 1994.",
    "The new library opened on June 5, 2019, next to the museum.",
    "The 14th congress of the historical society was held in Vienna.",
]
ZH_CONTEXTS = [
    "市博物馆于2021年3月14日重新开放。它最古老的建筑建于1914年。东翼建于1994年。",
    "历史学会第十四届大会在维也纳举行。",
]


def judge_claim(judge: LocalJudge, lang: str, answer: str) -> tuple[str, float, str]:
    sample = Sample(
        case_id="dates",
        question="When was it?",
        answer=answer,
        contexts=ZH_CONTEXTS if lang == "zh" else EN_CONTEXTS,
        lang=lang,  # type: ignore[arg-type]
    )
    result = judge.judge_sync(sample, ("faithfulness",))["faithfulness"]
    (claim,) = result.evidence.claims
    assert result.score is not None
    return claim.verdict, result.score, claim.reason


SUPPORTED = [
    # an ordinal day, day first, against the same date written plainly
    ("en", "The city museum reopened on the 14th of March 2021."),
    # month first against day first; a month abbreviation
    ("en", "The city museum reopened on March 14, 2021."),
    ("en", "The city museum reopened on Mar. 14th, 2021."),
    # the day alone, as an ordinal, and the year alone, both inside the full date
    ("en", "The city museum reopened on the 14th."),
    ("en", "The new library opened in 2019."),
    # a decade, an early part of a century, a two-digit decade, a century
    ("en", "Its oldest building was built in the 1910s by the city council."),
    ("en", "Its oldest building was built in the early 1900s by the city council."),
    ("en", "The east wing was added in the '90s."),
    ("en", "Its oldest building was built in the 20th century by the city council."),
    ("zh", "市博物馆于3月14日重新开放。"),
    ("zh", "市博物馆于三月十四日重新开放。"),
    ("zh", "市博物馆于2021年重新开放。"),
    ("zh", "东翼建于上世纪九十年代。"),
    ("zh", "东翼建于1990年代。"),
    ("zh", "它最古老的建筑建于20世纪。"),
]

CONTRADICTED = [
    # a wrong day written as an ordinal, with and without its month (read as "1" before)
    ("en", "The city museum reopened on the 15th of March 2021.", "2021-03-15", "2021-03-14"),
    ("en", "The city museum reopened on the 15th.", "15th", "2021-03-14"),
    # a decade, a late part of a century, a two-digit decade, a century, all excluding the year
    ("en", "Its oldest building was built in the 1920s by the city council.", "1920-1929", "1914"),
    ("en", "Its oldest building was built in the late 1900s.", "1960-1999", "1914"),
    ("en", "The east wing was added in the '80s.", "1980-1989", "1994"),
    ("en", "Its oldest building was built in the 19th century.", "1800-1900", "1914"),
    # another ordinal of the same thing
    ("en", "The 15th congress of the historical society was held in Vienna.", "15th", "14th"),
    ("zh", "市博物馆于3月15日重新开放。", "03-15", "2021-03-14"),
    ("zh", "东翼建于上世纪八十年代。", "1980-1989", "1994"),
    ("zh", "它最古老的建筑建于19世纪。", "1800-1900", "1914"),
    ("zh", "历史学会第十五届大会在维也纳举行。", "15th", "14th"),
]


@pytest.mark.parametrize(("lang", "answer"), SUPPORTED, ids=[a for _, a in SUPPORTED])
def test_the_same_date_or_a_year_inside_the_span_supports(
    judge: LocalJudge, lang: str, answer: str
) -> None:
    verdict, score, _ = judge_claim(judge, lang, answer)
    assert verdict == "supported"
    assert score >= 0.9


@pytest.mark.parametrize(
    ("lang", "answer", "says", "context_says"), CONTRADICTED, ids=[c[1] for c in CONTRADICTED]
)
def test_another_day_or_a_year_outside_the_span_contradicts(
    judge: LocalJudge, lang: str, answer: str, says: str, context_says: str
) -> None:
    verdict, score, reason = judge_claim(judge, lang, answer)
    assert verdict == "contradicted"
    assert score == 0.0
    assert f"it says {says}" in reason and reason.endswith(f"the context says {context_says}")
