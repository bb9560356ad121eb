"""Recognising refusals, hedges and filler sentences in English and Chinese answers."""

from __future__ import annotations

import re

from .refusal import refuses

_HEDGE_EN = re.compile(
    r"\bit\s+(?:really\s+)?depends\b|\bmay\s+vary\b|\bvaries\b|\bcase[-\s]by[-\s]case\b"
    r"|\bplease\s+(?:refer|check|consult|contact|reach\s+out)\b|\b(?:contact|ask)\s+"
    r"(?:our\s+|the\s+|your\s+)?(?:support|customer\s+service|administrator|admin|team|help\s*desk)"
    r"|\bfor\s+more\s+(?:information|details)\b|\bvarious\s+factors\b|\bseveral\s+factors\b"
    r"|\bgenerally\s+speaking\b|\bin\s+general\b|\bthere\s+are\s+many\s+(?:ways|options|factors)\b"
    r"|\byou\s+(?:may|might|could|should)\s+(?:want\s+to\s+|need\s+to\s+)?(?:ask|contact|check\s+with|"
    r"reach\s+out\s+to|consult|get\s+in\s+touch\s+with)\b"
    r"|\b(?:ask|contact|check\s+with|consult)\s+(?:the\s+|your\s+|our\s+)?(?:vendor|provider|"
    r"manufacturer|sales|company|service\s+provider)\b",
    re.IGNORECASE,
)
_HEDGE_ZH = re.compile(
    r"视情况而定|因情况而异|因人而异|请(?:参考|查阅|参阅|咨询|联系)|具体.{0,8}请|可能会有所不同"
    r"|有多种(?:因素|方式|情况)|一般来说|联系客服|咨询客服"
    r"|建议(?:您|你)?(?:直接)?(?:咨询|联系|询问|向)|(?:直接|可以)(?:咨询|联系|询问)(?:厂商|官方|客服|销售|管理员)"
)
# Hedges that qualify a statement rather than replace it: what remains may still state a fact
# ("In general, exports keep comments"; 一般来说，专业版支持导出), where a deflection ("please
# contact support") says nothing about the question.
_QUALIFIER_EN = re.compile(
    r"\bit\s+(?:really\s+)?depends\b|\bmay\s+vary\b|\bvaries\b|\bcase[-\s]by[-\s]case\b"
    r"|\bgenerally\s+speaking\b|\bin\s+general\b|\bthere\s+are\s+many\s+(?:ways|options|factors)\b"
    r"|\b(?:various|several)\s+factors\b",
    re.IGNORECASE,
)
_QUALIFIER_ZH = re.compile(
    r"视情况而定|因情况而异|因人而异|可能会有所不同|一般来说|有多种(?:因素|方式|情况)"
)
_FILLER_EN = re.compile(
    r"^(?:i\s+hope\s+(?:this|that)\s+helps|hope\s+(?:this|that)\s+helps|let\s+me\s+know\b|"
    r"feel\s+free\b|thanks?\b|thank\s+you\b|great\s+question|good\s+question|sure\b|certainly\b|"
    r"of\s+course\b|happy\s+to\s+help|is\s+there\s+anything\s+else|"
    r"you(?:'re|\s+are)\s+(?:very\s+|most\s+)?welcome|my\s+pleasure|"
    r"glad\s+(?:i\s+could|to)\s+help|(?:no\s+problem|anytime)[\s!.]*$)",
    re.IGNORECASE,
)
_FILLER_ZH = re.compile(
    r"^(?:希望(?:对您|能)?有(?:所)?帮助|如有其他问题|还有其他问题|谢谢|感谢|好的|当然|不客气|不用谢"
    r"|很高兴(?:能)?(?:为您|帮)?)"
)
# A whole turn that is social, not a question: thanks, greetings, goodbyes, acknowledgements.
_SOCIAL_EN = re.compile(
    r"^(?:(?:ok(?:ay)?|great|cool|perfect|awesome|nice|got\s+it|understood|alright)[\s,!.]*)?"
    r"(?:thanks?(?:\s+you)?|thank\s+you|thx|many\s+thanks|cheers|hi|hello|hey|bye|goodbye|"
    r"good\s*bye|see\s+you|good\s+(?:morning|afternoon|evening|night)|ok(?:ay)?|great|cool|"
    r"perfect|awesome|nice|got\s+it|understood|alright|that(?:'s|\s+is)\s+(?:all|it|helpful|"
    r"great|perfect))"
    r"(?:[\s,]+(?:so\s+much|a\s+lot|very\s+much|again|for\s+(?:your|the)\s+help|"
    r"for\s+that|that(?:'s|\s+is)\s+(?:all|helpful|great)))*[\s!.,:)]*$",
    re.IGNORECASE,
)
_SOCIAL_ZH = re.compile(
    r"^(?:好的|好|明白了|知道了|了解了|懂了|收到)?[，,！!。]*"
    r"(?:谢谢(?:你|您)?|多谢|感谢(?:你|您)?|你好|您好|再见|拜拜|好的|明白了|知道了|收到)"
    r"(?:你|您|啦|了|哈)?[！!。，,~～]*$"
)


def is_abstention(sentence: str) -> bool:
    """Whether one sentence says the answer is unknown or not in the sources."""
    return refuses(sentence)


def is_hedge(sentence: str) -> bool:
    """Whether one sentence deflects (it depends, please contact support, 请参考 ...)."""
    return bool(_HEDGE_EN.search(sentence) or _HEDGE_ZH.search(sentence))


def without_qualifiers(sentence: str, *, leading_only: bool = False) -> str:
    """`sentence` without the hedges that only qualify it (in general, it depends, 一般来说),
    or only without the one it opens with."""
    if leading_only:
        for pattern in (_QUALIFIER_EN, _QUALIFIER_ZH):
            match = pattern.match(sentence.lstrip())
            if match:
                return sentence.lstrip()[match.end() :].lstrip(" ,，;；")
        return sentence
    return _QUALIFIER_ZH.sub("", _QUALIFIER_EN.sub(" ", sentence)).strip(" ,，;；")


def is_filler(sentence: str) -> bool:
    """Whether one sentence carries no content (hope this helps, 希望对您有帮助 ...)."""
    stripped = sentence.strip()
    return bool(_FILLER_EN.match(stripped) or _FILLER_ZH.match(stripped))


def is_social_turn(text: str) -> bool:
    """Whether a whole user turn is social, not a request: thanks, a greeting, a goodbye or
    an acknowledgement ("Thank you!", "ok, got it", 谢谢！)."""
    stripped = text.strip()
    return bool(stripped) and bool(_SOCIAL_EN.match(stripped) or _SOCIAL_ZH.match(stripped))
