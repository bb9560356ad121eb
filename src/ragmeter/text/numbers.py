"""Numbers, dates and spans of years in English and Chinese text, read as a careful reader
reads them.

`find_numbers` gives every mention a normalised value and a kind (its unit). A date also
carries its (year, month, day), each None where the text leaves it out, and a year or a span
of years (a decade, a century) its first and last year, so that :func:`relation` can tell
whether two mentions state the same thing, one states part of the other, or they conflict:
"the 14th of March 2021" and "March 14, 2021" are one date and state the year 2021; "the
1910s" includes 1914 and excludes 1923; "the 15th" is not March 14.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Literal

from . import stem


def _split(blob: str) -> tuple[str, ...]:
    return tuple(blob.split())


_NUMBER_WORDS = _split(
    """zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen
    fifteen sixteen seventeen eighteen nineteen twenty"""
)
_MONTH_NAMES = _split(
    """january february march april may june july august september october november
    december"""
)
_ZH_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6,
              "七": 7, "八": 8, "九": 9}  # fmt: skip
_ZH_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10000}
_EN_WORDS = {w: i for i, w in enumerate(_NUMBER_WORDS)}
_EN_WORDS.update(thirty=30, forty=40, fifty=50, sixty=60, ninety=90, hundred=100)
_MONTHS = {m: i + 1 for i, m in enumerate(_MONTH_NAMES)}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_UNITS_ORDINAL = _split("first second third fourth fifth sixth seventh eighth ninth")
_ORDINAL_WORDS = {
    w: i + 1
    for i, w in enumerate(
        _split(
            """first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth
            thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth
            twentieth"""
        )
    )
}
for _tens, _base in (("twenty", 20), ("thirty", 30)):
    for _i, _w in enumerate(_UNITS_ORDINAL, 1):
        _ORDINAL_WORDS[f"{_tens}-{_w}"] = _ORDINAL_WORDS[f"{_tens} {_w}"] = _base + _i
_ORDINAL_WORDS["thirtieth"] = 30

_UNIT_KINDS = {
    "day": "day", "天": "day", "日": "day", "business": "day", "working": "day",
    "工作日": "day", "week": "week", "周": "week", "星期": "week", "个星期": "week",
    "month": "month", "个月": "month", "year": "year", "年": "year", "hour": "hour",
    "hr": "hour", "小时": "hour", "个小时": "hour", "minute": "minute", "min": "minute",
    "分钟": "minute", "second": "second", "秒": "second", "percent": "percent", "%": "percent",
    "dollar": "money", "usd": "money", "eur": "money", "euro": "money", "yuan": "money",
    "rmb": "money", "元": "money", "块": "money", "美元": "money", "人民币": "money",
    "time": "times", "次": "times", "gb": "size", "mb": "size", "tb": "size", "kb": "size",
}  # fmt: skip
_DURATIONS = frozenset({"second", "minute", "hour", "day", "week", "month", "year"})
_EN_UNIT_WORDS = "|".join(sorted((k for k in _UNIT_KINDS if k.isascii() and k.isalpha()),
                                 key=len, reverse=True))  # fmt: skip
_ZH_UNIT_WORDS = "|".join(sorted((k for k in _UNIT_KINDS if not k.isascii()), key=len,
                                 reverse=True))  # fmt: skip


def _alternation(words: Iterable[str]) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


_MONTH_ANY = "(?:" + _alternation(_MONTHS) + ")"
# Before a day-first date's month, "may" and "march" are words ("10 may be enough") unless
# capitalised.
_MONTH_CASED = (
    "(?:(?-i:May|March|Mar|MAY|MARCH)|"
    + _alternation(k for k in _MONTHS if k not in ("may", "march", "mar"))
    + ")"
)
_WORD_ORDINAL = "(?:" + _alternation(_ORDINAL_WORDS).replace(" ", r"\s") + ")"
_SUFFIX = r"(?:st|nd|rd|th)"
_ZH_NUMERAL = "[零〇一二两三四五六七八九十百千]"
_ZH_SMALL = "[一二三四五六七八九十]{1,3}"
_QUALIFIER_EN = r"(?:early|mid|late)"
_QUALIFIER_ZH = r"(?:初期?|前期|上半叶|中期|中叶|下半叶|末期?|后期)"

# Where a mention can start: a digit, a currency sign, an apostrophe ('90s), a Chinese numeral
# or 第/上/百, or a word that opens one (a month, an ordinal or number word, early/mid/late).
# Checked first, it spares the alternatives below at every other position.
_START = (
    r"(?=[\d$€£¥'’第上下晚早百千万零〇一二两三四五六七八九十]|\b(?:"
    + _alternation([*_MONTHS, *_ORDINAL_WORDS, *_EN_WORDS, "early", "mid", "late"]).replace(
        " ", r"\s"
    )
    + r")\b)"
)
_NUMBER_RE = re.compile(
    _START + r"(?:(?P<iso>\b\d{4}[-/.]\d{1,2}[-/.]\d{1,2}\b)"
    r"|(?P<zhdecade>(?:(?:上个?世纪|\d{1,2}\s*世纪|" + _ZH_SMALL + r"世纪)\s*)?"
    r"(?:\d{2,4}|" + _ZH_SMALL + r")\s*年代" + _QUALIFIER_ZH + "?)"
    r"|(?P<zhcentury>(?:上个?世纪|(?:\d{1,2}|" + _ZH_SMALL + r")\s*世纪)" + _QUALIFIER_ZH + "?)"
    r"|(?P<zhdate>(?:(?:\d{4}|[〇零一二三四五六七八九]{4})\s*年\s*)?(?:\d{1,2}|" + _ZH_SMALL + r")"
    r"\s*月(?:\s*(?:\d{1,2}|" + _ZH_SMALL + r")\s*[日号])?)"
    r"|(?P<zhday>\d{1,2}\s*号)"
    r"|(?P<zhordinal>第\s*(?:\d{1,4}|" + _ZH_NUMERAL + "+))"
    r"|(?P<century>\b(?:"
    + _QUALIFIER_EN
    + r"[\s-]+(?:the\s+)?)?(?:\d{1,2}"
    + _SUFFIX
    + "|"
    + _WORD_ORDINAL
    + r")[\s-]+century\b)"
    r"|(?P<decade>(?:\b" + _QUALIFIER_EN + r"[\s-]+(?:the\s+)?)?(?:\b(?:1\d|20)\d0['’]?s\b"
    r"(?!\s+of\b)|['’]\d0s\b)|\b" + _QUALIFIER_EN + r"[\s-]+\d0s\b|(?<=\bthe\s)\d0s\b)"
    r"|(?P<dayfirst>\b(?:\d{1,2}" + _SUFFIX + "?|" + _WORD_ORDINAL + r"(?=\s+of\s))(?:\s+of)?"
    r"\s+" + _MONTH_CASED + r"\b\.?(?:,?\s+\d{4}\b)?)"
    r"|(?P<endate>\b" + _MONTH_ANY + r"\.?\s+\d{1,2}" + _SUFFIX + r"?(?:,?\s+\d{4})?\b"
    r"|\b" + _MONTH_CASED + r"\.?\s+" + _WORD_ORDINAL + r"\b(?:,?\s+\d{4}\b)?"
    r"|\b" + _MONTH_ANY + r"\.?,?\s+(?:of\s+)?\d{4}\b)"
    r"|(?P<dayordinal>(?<=\bthe\s)(?:[1-9]|[12]\d|3[01])" + _SUFFIX + r"\b"
    r"(?!\s+(?!(?:of|at|and|or|to|through|until|till|in|on|from|before|after|by)\b)[A-Za-z]))"
    r"|(?P<ordinal>\b\d{1,4}" + _SUFFIX + r"\b)"
    r"|(?P<time>\b\d{1,2}(?::\d{2})?\s*(?:[ap]\.?m\.?)(?![a-z])|\b\d{1,2}:\d{2}\b)"
    r"|(?P<zhtime>(?:上午|下午|晚上|早上)?\d{1,2}\s*点(?:\s*\d{1,2}\s*分|半)?)"
    r"|(?P<slash>\b\d+/\d+(?:/\d+)?\b)"
    r"|(?P<num>(?:[$€£¥]\s?)?(?<![A-Za-z\d.,])\d+(?:,\d{3})*(?:\.\d+)?(?!\d)(?:\s?%)?"
    r"(?![A-Za-z]{1,2}\b))"
    r"|(?P<enword>\b(?:" + _alternation(_EN_WORDS) + r")\b"
    r"(?=[\s-]+(?:" + _EN_UNIT_WORDS + r")))"
    r"|(?P<zhnum>百分之[零〇一二两三四五六七八九十百千万]+|[零〇一二两三四五六七八九十百千万]+(?=\s*(?:"
    + _ZH_UNIT_WORDS
    + r"|%|倍|个|人|岁|页|条|项|名))))",
    re.IGNORECASE,
)

Date = tuple[int | None, int | None, int | None]
Relation = Literal["same", "within", "consistent", "conflict"]


@dataclass(frozen=True)
class NumberMention:
    """A number found in text: its normalised value, its kind (unit) and where it is."""

    value: str
    kind: str
    start: int
    end: int
    date: Date | None = None
    """A date's (year, month, day), each None where the text leaves it out."""
    years: tuple[int, int] | None = None
    """The first and last year it names: one year (1914, a date's year) or a span (the 1910s:
    1910-1919; the 19th century: 1800-1900)."""

    @property
    def is_span(self) -> bool:
        return self.years is not None and self.years[0] != self.years[1]

    @property
    def implied(self) -> tuple[str, ...]:
        """Values a reader also finds stated here: a date's year, year and month, month and
        day, month and day alone (2021-03-14 states 2021, 2021-03, 03-14, march and 14th)."""
        if self.date is None:
            return ()
        y, m, d = self.date
        parts = [(y, None, None), (y, m, None), (None, m, d), (None, m, None), (None, None, d)]
        found = {
            _date_value(*p)
            for p in parts
            if any(p) and all(a is None or a == b for a, b in zip(p, self.date, strict=True))
        }
        found.discard(self.value)
        return tuple(sorted(found))

    @property
    def lookups(self) -> tuple[str, ...]:
        """Values a passage may state it by: its own, and every year of a span."""
        if not self.is_span or self.years is None:
            return (self.value,)
        first, last = self.years
        return (self.value, *(str(y) for y in range(first, last + 1)))


def family(kind: str) -> str:
    """The kind two numbers must share to be rivals: any unit of time is a duration."""
    return "duration" if kind in _DURATIONS else kind


def relation(claim: NumberMention, other: NumberMention) -> Relation | None:
    """How `other` bears on `claim`: `same` value; `within` (other states what the claim says
    and maybe more: March 14, 2021 for "in 2021"; 1914 for "the 1910s"); `consistent` (they
    agree, but the claim says more: March 14 for "March 14, 2021", the 1910s for "1914");
    `conflict` (a rival of its kind: another day, a year outside the span, another number of
    the same unit); None when they are not comparable."""
    if claim.value == other.value:
        return "same"
    if claim.date is not None and other.date is not None:
        pairs = [(a, b) for a, b in zip(claim.date, other.date, strict=True) if a is not None]
        shared = [(a, b) for a, b in pairs if b is not None]
        if not shared:
            return None
        if any(a != b for a, b in shared):
            return "conflict"
        return "within" if len(shared) == len(pairs) else "consistent"
    dated = claim.date is not None or other.date is not None or claim.is_span or other.is_span
    if dated and claim.years is not None and other.years is not None:
        (first, last), (low, high) = claim.years, other.years
        if high < first or low > last:
            # a full date beside a bare year of something else ("born on July 5, 1984" in
            # a sentence about a 2013 series) is no rival; a span is one of years
            return "conflict" if claim.is_span or other.is_span else None
        finer = claim.date is not None and any(claim.date[1:]) and other.date is None
        return "within" if first <= low and high <= last and not finer else "consistent"
    if dated:
        return None
    return "conflict" if family(claim.kind) == family(other.kind) else None


def parse_zh_numeral(text: str) -> int | None:
    """`三十` -> 30, `一百二十` -> 120, `两万` -> 20000; None when not a numeral."""
    total, section, digit = 0, 0, None
    for ch in text:
        if ch in _ZH_DIGITS:
            digit = _ZH_DIGITS[ch]
        elif ch in _ZH_UNITS:
            unit = _ZH_UNITS[ch]
            if unit == 10000:
                total += (section + (digit or 0)) * unit
                section = 0
            else:
                section += (1 if digit is None else digit) * unit
            digit = None
        else:
            return None
    return total + section + (digit or 0)


def _zh_int(text: str) -> int:
    """Digits, a Chinese numeral (十四) or Chinese digits read one by one (二〇二一)."""
    text = text.strip()
    if text.isdigit() and text.isascii():
        return int(text)
    if len(text) == 4 and all(ch in _ZH_DIGITS for ch in text):
        return int("".join(str(_ZH_DIGITS[ch]) for ch in text))
    return parse_zh_numeral(text) or 0


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _date_value(y: int | None, m: int | None, d: int | None) -> str:
    if m and d:
        return f"{y}-{m:02d}-{d:02d}" if y else f"{m:02d}-{d:02d}"
    if y and m:
        return f"{y}-{m:02d}"
    if m:
        return _MONTH_NAMES[m - 1]
    if d:
        return _ordinal(d)
    return str(y)


def _clean_number(raw: str) -> str:
    value = raw.replace(",", "").replace(" ", "").lstrip("$€£¥")
    if "." in value and not value.endswith("%"):
        value = value.rstrip("0").rstrip(".") if re.fullmatch(r"\d+\.\d+", value) else value
    return value


def _kind_after(text: str, end: int) -> str:
    rest = text[end : end + 12]
    zh = re.match(r"\s*(" + _ZH_UNIT_WORDS + ")", rest)
    if zh:
        return _UNIT_KINDS[zh.group(1)]
    en = re.match(r"[\s-]*([A-Za-z]+)", rest)
    if en:
        word = stem(en.group(1).lower())
        return _UNIT_KINDS.get(word, _UNIT_KINDS.get(en.group(1).lower(), ""))
    return ""


def _part(span: tuple[int, int], qualifier: str) -> tuple[int, int]:
    """The early, middle or late part of a span of years (about two fifths of it)."""
    first, last = span
    size = last - first + 1
    if qualifier in ("early", "初", "初期", "前期", "上半叶"):
        return first, first + max(1, round(size * 0.4)) - 1
    if qualifier in ("mid", "中期", "中叶"):
        return first + round(size * 0.3), first + round(size * 0.7) - 1
    if qualifier in ("late", "末", "末期", "后期", "下半叶"):
        return last - max(1, round(size * 0.4)) + 1, last
    return span


def _century(n: int) -> tuple[int, int]:
    # the 19th century is 1801-1900 strictly and 1800-1899 as most people count: both
    return (n - 1) * 100, n * 100


def _decade(raw: str) -> tuple[int, int]:
    """The 1910s, the '90s (1990s; the '00s and '10s are this century's), 1900s (1900-1999,
    which holds the decade 1900-1909 as well)."""
    digits = re.search(r"\d+", raw)
    text = digits.group() if digits else "0"
    value = int(text)
    if len(text) <= 2:
        return _ten(value)
    return (value, value + 99) if value % 100 == 0 else (value, value + 9)


def _ten(value: int) -> tuple[int, int]:
    first = value + (2000 if value < 20 else 1900)
    return first, first + 9


def _date(group: str, raw: str) -> Date | None:
    """The (year, month, day) of a date match (None for other groups)."""
    lowered = raw.lower()
    if group == "iso":
        y, mo, d = (int(p) for p in re.split(r"[-/.]", raw))
        return y, mo, d
    if group == "zhdate":
        year = re.search(r"(\d{4}|[〇零一二三四五六七八九]{4})\s*年", raw)
        month = re.search(r"(\d{1,2}|" + _ZH_SMALL + r")\s*月", raw)
        day = re.search(r"(\d{1,2}|" + _ZH_SMALL + r")\s*[日号]", raw)
        return (
            _zh_int(year.group(1)) if year else None,
            _zh_int(month.group(1)) if month else None,
            _zh_int(day.group(1)) if day else None,
        )
    if group in ("zhday", "dayordinal"):
        return None, None, int(re.sub(r"\D", "", raw))
    if group in ("dayfirst", "endate"):
        words = re.sub(r"[,.]", " ", lowered).split()
        month_of = next(_MONTHS[w] for w in words if w in _MONTHS)
        written = next((w for w in words if re.fullmatch(r"\d{1,2}(?:st|nd|rd|th)?", w)), None)
        ordinal = re.search(_WORD_ORDINAL, lowered)
        day_of = int(re.sub(r"\D", "", written)) if written else None
        if day_of is None and ordinal:
            day_of = _ORDINAL_WORDS[re.sub(r"\s+", " ", ordinal.group())]
        year_of = re.search(r"\d{4}", raw)
        return int(year_of.group()) if year_of else None, month_of, day_of
    return None


def _years(group: str, raw: str) -> tuple[int, int] | None:
    """The span of years of a decade or century match (None for other groups)."""
    lowered = raw.lower()
    if group == "decade":
        first, last = _decade(raw)
    elif group in ("century", "zhcentury"):
        number = re.search(r"\d+|" + _WORD_ORDINAL + "|" + _ZH_SMALL, lowered)
        written = re.sub(r"\s+", " ", number.group()) if number else ""
        if "上" in raw or not written:
            n = 20
        elif written in _ORDINAL_WORDS:
            n = _ORDINAL_WORDS[written]
        else:
            n = _zh_int(written)
        first, last = _century(n)
    elif group == "zhdecade":  # 九十年代, 1990年代, 上世纪九十年代, 20世纪90年代
        decade = re.search(r"(\d{2,4}|" + _ZH_SMALL + r")\s*年代", raw)
        digits = decade.group(1) if decade else "0"
        century = re.match(r"(\d{1,2}|" + _ZH_SMALL + r")\s*世纪", raw)
        if len(digits) == 4 and digits.isdigit():
            first, last = _decade(digits)
        elif century or "世纪" in raw:
            first = _century(_zh_int(century.group(1)) if century else 20)[0] + _zh_int(digits)
            last = first + 9
        else:
            first, last = _ten(_zh_int(digits))
    else:
        return None
    qualifier = re.search(_QUALIFIER_EN + "|" + _QUALIFIER_ZH + "$", lowered)
    return _part((first, last), qualifier.group() if qualifier else "")


def _plain(group: str, raw: str, text: str, end: int) -> NumberMention | None:
    """A number, time, ordinal or fraction match (offsets filled in by the caller)."""
    if group in ("ordinal", "zhordinal"):
        digits = re.search(r"\d+", raw)
        number = int(digits.group()) if digits else _zh_int(raw.lstrip("第").strip())
        return NumberMention(_ordinal(number), "ordinal", 0, 0)
    kind = ""
    if group in ("time", "zhtime"):
        clock = [int(x) for x in re.findall(r"\d+", raw)]
        hour, minute = clock[0], clock[1] if len(clock) > 1 else 0
        if ("p" in raw.lower() and hour < 12) or (("下午" in raw or "晚上" in raw) and hour < 12):
            hour += 12
        if "半" in raw:
            minute = 30
        value, kind = f"{hour}:{minute:02d}", "time"
    elif group == "slash":
        value = raw
    elif group == "num":
        value = _clean_number(raw)
        kind = "money" if raw.lstrip()[0] in "$€£¥" else ""
        if value.endswith("%"):
            kind = "percent"
    elif group == "enword":
        value = str(_EN_WORDS[raw.lower()])
    else:  # zhnum
        percent = raw.startswith("百分之")
        parsed = parse_zh_numeral(raw[3:] if percent else raw)
        if parsed is None or (raw == "一" and _kind_after(text, end) == ""):
            return None
        value = f"{parsed}%" if percent else str(parsed)
        kind = "percent" if percent else ""
    if not kind:
        kind = _kind_after(text, end)
        if kind == "percent" and not value.endswith("%"):
            value += "%"
    years = None
    if group == "num" and re.fullmatch(r"\d{4}", raw) and kind in ("", "year"):
        year = int(raw)
        years = (year, year) if 1000 <= year <= 2199 else None  # a year, perhaps
    return NumberMention(value, kind, 0, 0, None, years)


def _read(group: str, raw: str, text: str, end: int) -> NumberMention | None:
    """One match of `_NUMBER_RE` as a mention (offsets filled in by the caller)."""
    date = _date(group, raw)
    if date is not None:
        y = date[0]
        return NumberMention(
            _date_value(*date), "date", 0, 0, date, (y, y) if y is not None else None
        )
    span = _years(group, raw)
    if span is not None:
        return NumberMention(f"{span[0]}-{span[1]}", "years", 0, 0, None, span)
    return _plain(group, raw, text, end)


def find_numbers(text: str) -> list[NumberMention]:
    """Numbers, dates, spans of years and ordinals in `text`, normalised, with their kind
    (unit) and offsets."""
    mentions = []
    for m in _NUMBER_RE.finditer(text):
        found = _read(m.lastgroup or "", m.group(), text, m.end())
        if found is None:
            continue
        end = m.end()
        if found.years is not None and text.startswith("年", end):
            end += 1  # a year's 年 is part of it, as a month's name is part of a date
        mentions.append(replace(found, start=m.start(), end=end))
    return mentions


def extract_numbers(text: str) -> list[str]:
    """Normalised numbers in order: `1,000`->`1000`, `$8`->`8`, `50%`, `三十`->`30`, dates."""
    return [m.value for m in find_numbers(text)]
