"""What kind of thing a question asks for, and whether an answer gives one (English, Chinese).

"How long" wants a duration, "when" a date or time, "how many/much" a number, "who" a person
(a name or a word for people), "where" a place, a yes/no question a yes or a no. An answer with
no word of the question can still answer it ("They stay in the trash for 30 days." to "How long
are deleted notes kept?"), and a topical answer can miss what was asked ("Deleted notes go to
the trash."). Questions of other kinds (what, why, how to) get no verdict here, nor a Chinese
谁 answered without a word for a person (a bare name such as 张伟 is not told from other
words).
"""

from __future__ import annotations

import re
from typing import Literal

from ...text import is_stopword, stem
from ..base import Lang

Need = Literal["duration", "date", "number", "person", "place", "yes_no"]

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

_EN_PLACE_NOUNS = (
    r"(?:city|cities|town|village|country|countries|state|province|county|region|island|continent"
    r"|ocean|sea|river|lake|mountain|valley|coast|street|road|avenue|building|room|house|office"
    r"|hospital|school|park|stadium|church|temple|airport|station|library|museum|headquarters"
    r"|campus|theat(?:re|er)|cent(?:re|er)|area|location|place|site|website|page|menu|tab|folder"
    r"|directory|sidebar|toolbar|panel|screen|settings|section|app|server|cloud|drive|disk"
    r"|account|dashboard|console|north|south|east|west|world|abroad|overseas|online|everywhere"
    r"|anywhere|nowhere|locally|nearby|home|outdoors|indoors|underground|top|bottom|left"
    r"|right|corner|side|edge|header|footer|bar)s?"
)
_EN_PEOPLE = (
    r"\b(?:people|person|persons|someone|somebody|anyone|anybody|everyone|everybody|nobody"
    r"|no one|owners?|admins?|administrators?|members?|users?|team|teams|staff|support"
    r"|managers?|employees?|customers?|clients?|developers?|engineers?|authors?|writers?"
    r"|singers?|actors?|actress(?:es)?|players?|artists?|founders?|inventors?|scientists?"
    r"|president|king|queen|government|company|companies|band|group|family|parents?"
    r"|doctors?|teachers?|students?|children|men|women|man|woman|you|yourself|yourselves|we"
    r"|us|me)\b"
)
_ZH_PLACE_QUESTION = r"哪里|哪儿|在哪|什么地方|何处|何地|哪个(?:国家|城市|省|地方)|哪座城市|哪国"
_ZH_PEOPLE = (
    r"[A-Z][a-z]|人|者|家|员|师|长|手|王|帝|后|主|士|官|总统|主席|团队|公司|部门|乐队|组合|政府"
)

_QUESTION: dict[Lang, list[tuple[Need, re.Pattern[str]]]] = {
    "en": [
        ("duration", re.compile(rf"\bhow long\b|\bhow many {_EN_UNITS}\b", re.I)),
        (
            "date",
            re.compile(
                r"^\W*when\b|[,;]\s*when\b|\band\s+when\b|\b(?:what|which)\s+(?:year|date|day|month|time)\b"
                r"|\bwhat time\b|\bhow soon\b",
                re.I,
            ),
        ),
        (
            "number",
            re.compile(r"\bhow (?:many|much|often|far|old|big|tall|large|high|fast)\b", re.I),
        ),
        (
            "person",
            re.compile(
                r"^\W*(?:who|whom)\b|[,;]\s*(?:who|whom)\b|\band\s+(?:who|whom)\b",
                re.I,
            ),
        ),
        (
            "place",
            re.compile(
                r"^\W*where\b|[,;]\s*where\b|\band\s+where\b|\b(?:what|which|in what|in which)\s+"
                r"(?:country|city|state|province|town|place|region|continent|part of)\b",
                re.I,
            ),
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
        ("place", re.compile(_ZH_PLACE_QUESTION)),
        ("number", re.compile(r"多少|几个|几次|几位|几名|几岁|多大|多高|多远|多重|多快|几")),
        ("person", re.compile(r"谁|哪位|哪个人|哪些人")),
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
        "person": re.compile(_EN_PEOPLE, re.I),
        "place": re.compile(
            r"\b(?:in|at|on|near|from|inside|outside|under|into|within|throughout|across|along"
            r"|off|via|beside|behind|between|to)\s+(?:the\s+|a\s+|an\s+|your\s+|their\s+|its\s+"
            rf"|his\s+|her\s+|our\s+)?(?:[\w'-]+\s+){{0,2}}?{_EN_PLACE_NOUNS}\b"
            r"|\b(?:here|there)\s*[.!]?$|https?://|\bwww\.|\b\w+\.\w+/\S",
            re.I,
        ),
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
        "person": re.compile(_ZH_PEOPLE),
        "place": re.compile(
            r"在|位于|于|省|市|县|区|国|州|镇|村|路|街|山|河|湖|岛|海|洲|城|页面|菜单|设置|目录|文件夹|网站"
        ),
        "yes_no": re.compile(r"^\W*(?:是|对|可以|能|会|有|不|没|当然|确实|无法)"),
    },
}


def question_need(question: str, lang: Lang) -> Need | None:
    """The kind of thing `question` asks for, None when it is none of these (what, why, how)."""
    needs = question_needs(question, lang)
    return needs[0] if needs else None


def question_needs(question: str, lang: Lang) -> list[Need]:
    """Every kind of thing `question` asks for ("Who founded it, and when?": a person and a
    date). A number that is part of a duration or a date (how many days, 几点) is not asked
    for again, nor a yes or no beside a question word."""
    needs = [need for need, pattern in _QUESTION[lang] if pattern.search(question)]
    if "number" in needs and ("duration" in needs or "date" in needs):
        needs.remove("number")
    if "yes_no" in needs and len(needs) > 1:
        needs.remove("yes_no")
    return needs


def gives(answer: str, need: Need, lang: Lang, question: str = "") -> bool | None:
    """Whether `answer` gives what `need` asks for (names the question already holds are not
    an answer to "who" or "where"). None for a yes/no question answered without a yes or no
    up front: a statement ("Notes can be exported from the Share menu.") may answer it, which
    words alone cannot tell; likewise a Chinese 谁 answered without a word for a person."""
    found = bool(_ANSWER[lang][need].search(answer))
    if lang == "en" and need in ("person", "place") and not found:
        found = _names_something(answer, question, after_preposition=need == "place")
    if not found and (need == "yes_no" or (need == "person" and lang == "zh")):
        return None
    return found


_CAPITALISED = re.compile(r"\b[A-Z][\w'’.-]*")
_BEFORE_A_PLACE = re.compile(
    r"\b(?:in|at|on|near|from|inside|outside|into|within|throughout|across|along|off|to|under"
    r"|via|below|above|beside|behind|open|opening|click|tap|select|choose|visit|navigate\s+to)"
    r"\s+(?:the\s+)?$",
    re.I,
)
_NOT_NAMES = frozenset(
    re.findall(
        r"\S+",
        "i i'm i've i'd i'll the a an it its he she they this that these those there here in on "
        "at as if when while however although yes no",
    )
)


def _names_something(answer: str, question: str, *, after_preposition: bool) -> bool:
    """Whether `answer` has a name the question lacks: a capitalised word that is not a
    function word nor a form of one of the question's words ("Austen wrote it."); for a
    place, one after a preposition or a verb of going there ("in Kansas", "open Billing")."""
    asked = {stem(w.lower()) for w in re.findall(r"[\w'’-]+", question)}
    for match in _CAPITALISED.finditer(answer):
        word = match.group().rstrip(".").lower()
        if stem(word) in asked or word in _NOT_NAMES:
            continue  # the question's own word, in any form ("Deleting" after "delete")
        before = answer[: match.start()]
        if after_preposition:
            if _BEFORE_A_PLACE.search(before):
                return True
            continue
        if not is_stopword(word):
            return True
    return False
