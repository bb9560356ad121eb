"""What kind of thing a question asks for, and whether an answer gives one (English, Chinese).

"How long" wants a duration, "when" a date or time, "how many/much" a number, a yes/no question
a yes or a no. An answer with no word of the question can still answer it ("They stay in the
trash for 30 days." to "How long are deleted notes kept?"), and a topical answer can miss what
was asked ("Deleted notes go to the trash."). Questions of other kinds (what, why, how to, who)
get no verdict here.
"""

from __future__ import annotations

import re
from typing import Literal

from ..base import Lang

Need = Literal["duration", "date", "number", "yes_no"]

_EN_UNITS = r"(?:second|sec|minute|min|hour|hr|day|night|week|month|year|decade|century)s?"
_EN_COUNT = (
    r"(?:\d[\d.,]*|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"fifteen|twenty|thirty|forty|fifty|sixty|ninety|hundred|several|few|many|couple of)"
)
_ZH_NUM = r"[\d一二两三四五六七八九十百千万半几数]"
_EN_MONTHS = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)"
)
_EN_DAYS = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|weekday)s?"
_EN_NUMBER_WORDS = (
    r"\b(?:zero|none|no|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|"
    r"fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion|dozen|single|both|"
    r"once|twice|half|free)\b"
)

_QUESTION: dict[Lang, list[tuple[Need, re.Pattern[str]]]] = {
    "en": [
        ("duration", re.compile(rf"\bhow long\b|\bhow many {_EN_UNITS}\b", re.I)),
        (
            "date",
            re.compile(
                r"^\W*when\b|[,;]\s*when\b|\b(?:what|which)\s+(?:year|date|day|month|time)\b"
                r"|\bwhat time\b|\bhow soon\b",
                re.I,
            ),
        ),
        (
            "number",
            re.compile(r"\bhow (?:many|much|often|far|old|big|tall|large|high|fast)\b", re.I),
        ),
        (
            "yes_no",
            re.compile(
                r"^\W*(?:is|are|am|was|were|can|could|do|does|did|will|would|should|shall|has|"
                r"have|had|may|might|must)\b",
                re.I,
            ),
        ),
    ],
    "zh": [
        (
            "duration",
            re.compile(r"多久|多长时间|多少天|几天|几个月|几年|几个小时|多少小时|多少分钟|几分钟"),
        ),
        ("date", re.compile(r"什么时候|何时|哪一年|哪年|哪一天|哪天|几月|几号|几点|什么时间")),
        ("number", re.compile(r"多少|几个|几次|几位|几名|几岁|多大|多高|多远|多重|多快|几")),
        (
            "yes_no",
            re.compile(r"吗\s*[？?]?\s*$|是否|能否|能不能|可不可以|是不是|有没有|会不会|要不要"),
        ),
    ],
}

_ANSWER: dict[Lang, dict[Need, re.Pattern[str]]] = {
    "en": {
        "duration": re.compile(
            rf"\b{_EN_COUNT}[\s-]*(?:business\s+|working\s+|calendar\s+)?{_EN_UNITS}\b"
            r"|\b(?:immediately|instantly|forever|indefinitely|permanently|overnight|until)\b",
            re.I,
        ),
        "date": re.compile(
            rf"\b(?:1\d{{3}}|20\d{{2}})\b|\b{_EN_MONTHS}\b|\b{_EN_DAYS}\b"
            r"|\b\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\b\d{1,2}:\d{2}\b"
            r"|\b(?:today|tomorrow|yesterday|tonight|noon|midnight|daily|weekly|monthly|yearly"
            r"|annually|every|each|before|after|once|whenever|immediately|instantly)\b",
            re.I,
        ),
        "number": re.compile(rf"\d|{_EN_NUMBER_WORDS}|\b(?:unlimited|no limit)\b", re.I),
        "yes_no": re.compile(
            r"^\W*(?:yes|no|yeah|yep|nope|sure|certainly|of course|absolutely|definitely|not|never"
            r"|correct|indeed)\b",
            re.I,
        ),
    },
    "zh": {
        "duration": re.compile(
            rf"{_ZH_NUM}+\s*(?:个)?(?:工作日|秒|分钟|小时|钟头|天|日|周|星期|个月|月|年)"
            r"|立即|立刻|马上|永久|一直|随时"
        ),
        "date": re.compile(
            r"\d+\s*[年月日号点]|[一二三四五六七八九十]+[月日号点]|星期[一二三四五六日天]"
            r"|周[一二三四五六日末]|[早中下晚]上|今天|明天|昨天|每天|每周|每月|每年|凌晨|中午|之前|之后|以前|以后"
        ),
        "number": re.compile(rf"{_ZH_NUM}|无限|不限"),
        "yes_no": re.compile(r"^\W*(?:是|对|可以|能|会|有|不|没|当然|确实|无法)"),
    },
}


def question_need(question: str, lang: Lang) -> Need | None:
    """The kind of thing `question` asks for, None when it is none of these (what, why, how)."""
    for need, pattern in _QUESTION[lang]:
        if pattern.search(question):
            return need
    return None


def gives(answer: str, need: Need, lang: Lang) -> bool | None:
    """Whether `answer` gives what `need` asks for. None for a yes/no question answered without
    a yes or no up front: a statement ("Notes can be exported from the Share menu.") may
    answer it, which words alone cannot tell."""
    found = bool(_ANSWER[lang][need].search(answer))
    if need == "yes_no" and not found:
        return None
    return found
