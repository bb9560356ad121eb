"""Deliberate corruption of answers, for the `hallucinating` demo variant.

`distort` changes every number, swaps product and plan names, and appends one invented sentence,
in the answer's language. It is deterministic: the same seed always gives the same answer.
"""

from __future__ import annotations

import hashlib
import re

_NUMBER = re.compile(r"(?<![\w.])(\d+(?:,\d{3})*(?:\.\d+)?)(?![\d])")

# Each pair swaps both ways; longer names first so "Nimbus Notes" wins over "Notes".
_SWAPS = {
    "en": [
        ("Enterprise plan", "Team plan"),
        ("Pro plan", "Free plan"),
        ("Larkspur Labs", "Bluebird Software"),
        ("Android", "iOS"),
        ("Windows", "macOS"),
        ("Team", "Enterprise"),
        ("Pro", "Free"),
        ("monthly", "yearly"),
        ("days", "weeks"),
        ("Settings", "Help"),
    ],
    "zh": [
        ("企业版", "团队版"),
        ("专业版", "免费版"),
        ("Larkspur Labs", "Bluebird Software"),
        ("Android", "iOS"),
        ("Windows", "macOS"),
        ("每月", "每年"),
        ("设置", "帮助"),
    ],
}

_INVENTIONS = {
    "en": [
        "Every plan also includes 3 free printed notebooks per year.",
        "This feature was introduced in version 7.2 after a survey of 12,000 users.",
        "Larkspur Labs guarantees a full refund within 90 days, no questions asked.",
        "Customers in Europe get an extra 25% discount on this.",
        "The same limit applies on the smartwatch app, which syncs every 45 seconds.",
        "Support staff can also restore anything deleted in the last 5 years.",
        "A 2-hour onboarding call with an engineer is included at no cost.",
        "Nimbus Notes was the first app to offer this, back in 2009.",
    ],
    "zh": [
        "每个套餐每年还赠送 3 本免费的纸质笔记本。",
        "这项功能在 7.2 版本中推出，此前调查了 12000 名用户。",
        "Larkspur Labs 承诺 90 天内无条件全额退款。",
        "欧洲地区的用户还可额外享受 25% 的折扣。",
        "智能手表应用同样适用此限制，并且每 45 秒同步一次。",
        "客服还可以恢复过去 5 年内删除的任何内容。",
        "每位用户都可免费获得一次 2 小时的工程师入门指导。",
        "Nimbus Notes 早在 2009 年就率先提供了这项功能。",
    ],
}


def _seed(seed: str) -> int:
    return int.from_bytes(hashlib.sha256(seed.encode("utf-8")).digest()[:8], "big")


def _alter_number(raw: str, salt: int) -> str:
    """A plausible but different number: 14 -> 30, 8 -> 12, 2024 -> 2026, 99.9 -> 89.9."""
    plain = raw.replace(",", "")
    decimals = len(plain.split(".")[1]) if "." in plain else 0
    value = float(plain)
    if decimals == 0 and 1900 <= value <= 2100:
        new = value + 1 + salt % 3
    elif value > 50 and decimals:
        new = value - 10
    else:
        factor = (1.5, 2.0, 2.5)[salt % 3]
        new = round(value * factor + (2 if value >= 10 and factor == 2.0 else 0), decimals)
        if new == value:
            new = value + 1
    text = f"{new:.{decimals}f}"
    if "," in raw:
        text = f"{int(new):,}"
    return text


def _swap_names(text: str, lang: str) -> str:
    pairs = _SWAPS.get(lang, _SWAPS["en"])
    table: dict[str, str] = {}
    for a, b in pairs:
        table.setdefault(a, b)
        table.setdefault(b, a)
    names = sorted(table, key=len, reverse=True)
    if lang == "zh":
        pattern = re.compile("|".join(re.escape(n) for n in names))
    else:
        pattern = re.compile(r"\b(?:" + "|".join(re.escape(n) for n in names) + r")\b")
    return pattern.sub(lambda m: table[m.group()], text)


def distort(answer: str, lang: str, seed: str) -> str:
    """Return `answer` with numbers changed, names swapped and one invented sentence appended."""
    salt = _seed(seed)
    counter = iter(range(1_000_000))
    changed = _NUMBER.sub(lambda m: _alter_number(m.group(1), salt + next(counter)), answer)
    changed = _swap_names(changed, lang)
    inventions = _INVENTIONS.get(lang, _INVENTIONS["en"])
    invented = inventions[salt % len(inventions)]
    joiner = "" if lang == "zh" else " "
    return f"{changed}{joiner}{invented}"
