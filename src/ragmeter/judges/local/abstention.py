"""Recognising refusals, hedges and filler sentences in English and Chinese answers."""

from __future__ import annotations

import re

_SOURCE_EN = (
    r"(?:the\s+)?(?:provided\s+|given\s+|available\s+|retrieved\s+)?(?:handbook|document(?:ation)?s?|"
    r"docs|context|contexts|information|manual|knowledge\s+base|sources?|text|passages?|faq|"
    r"materials?|guide|policy\s+documents?|excerpts?)"
)
_ABSTAIN_EN = re.compile(
    r"\bi\s+(?:really\s+)?(?:don'?t|do\s+not)\s+know\b"
    r"|\bi\s*(?:'m|\s+am)\s+not\s+(?:sure|certain|able\s+to)\b"
    r"|\bi\s+(?:don'?t|do\s+not)\s+have\s+(?:any\s+|enough\s+|the\s+|that\s+|specific\s+)*"
    r"(?:information|details|data|context|knowledge|answer)"
    r"|\bi\s+(?:cannot|can'?t|can\s+not|could\s+not|couldn'?t|am\s+unable\s+to|"
    r"(?:am|was)\s+not\s+able\s+to|was\s+unable\s+to)\s+(?:answer|help\s+with|find|determine|"
    r"say|tell|confirm|locate|provide\s+(?:\w+\s+)?(?:information|details|an?\s+answer))\b"
    r"|\bunable\s+to\s+(?:answer|find\s+(?:any\s+)?(?:information|details|an?\s+answer))\b"
    r"|\b(?:is|are|was|were)\s+not\s+(?:covered|mentioned|addressed|specified|included|provided|"
    r"described|documented|discussed|stated)\s+(?:in|by)\s+" + _SOURCE_EN + r"\b"
    r"|\b" + _SOURCE_EN + r"\s+(?:does\s+not|doesn'?t|do\s+not|don'?t|did\s+not)\s+(?:cover|"
    r"mention|say|specify|include|contain|address|provide|discuss|state|describe)\b"
    r"|\bno\s+(?:relevant\s+|specific\s+|such\s+)?(?:information|details|mention|data)\s+"
    r"(?:about|on|regarding|is|was|in|available|provided)\b"
    r"|\bthere\s+is\s+no\s+(?:relevant\s+)?(?:information|mention|details)\b"
    r"|\b(?:outside|beyond)\s+(?:the\s+)?scope\b|\bout\s+of\s+scope\b"
    r"|\bnot\s+something\s+i\s+can\b",
    re.IGNORECASE,
)
_SOURCE_ZH = (
    r"(?:手册|文档|资料|知识库|上下文|材料|文件|提供的(?:信息|内容|资料)|现有(?:信息|资料))"
)
_ABSTAIN_ZH = re.compile(
    r"不知道|不清楚|无法(?:回答|确定|找到|回复|判断|解答|给出答案)|没有找到|找不到|未找到|查不到"
    r"|无法提供(?:相关|具体|更多|准确)?的?(?:信息|答案|资料|回答)"
    r"|(?:没有|暂无|缺乏|未有)(?:相关|关于|具体|这方面)的?(?:信息|内容|资料|说明|记录|数据|答案)"
    r"|(?:未|没有|并未|并没有)(?:提及|提到|涉及)"
    r"|超出.{0,8}范围|不在.{0,8}范围"
    r"|" + _SOURCE_ZH + r".{0,4}(?:中|里|里面)?(?:并)?(?:没有|未|不)"
)
_HEDGE_EN = re.compile(
    r"\bit\s+(?:really\s+)?depends\b|\bmay\s+vary\b|\bvaries\b|\bcase[-\s]by[-\s]case\b"
    r"|\bplease\s+(?:refer|check|consult|contact|reach\s+out)\b|\b(?:contact|ask)\s+"
    r"(?:our\s+|the\s+|your\s+)?(?:support|customer\s+service|administrator|admin|team|help\s*desk)"
    r"|\bfor\s+more\s+(?:information|details)\b|\bvarious\s+factors\b|\bseveral\s+factors\b"
    r"|\bgenerally\s+speaking\b|\bin\s+general\b|\bthere\s+are\s+many\s+(?:ways|options|factors)\b",
    re.IGNORECASE,
)
_HEDGE_ZH = re.compile(
    r"视情况而定|因情况而异|因人而异|请(?:参考|查阅|参阅|咨询|联系)|具体.{0,8}请|可能会有所不同"
    r"|有多种(?:因素|方式|情况)|一般来说|联系客服|咨询客服"
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
    return bool(_ABSTAIN_EN.search(sentence) or _ABSTAIN_ZH.search(sentence))


def is_hedge(sentence: str) -> bool:
    """Whether one sentence deflects (it depends, please contact support, 请参考 ...)."""
    return bool(_HEDGE_EN.search(sentence) or _HEDGE_ZH.search(sentence))


def is_filler(sentence: str) -> bool:
    """Whether one sentence carries no content (hope this helps, 希望对您有帮助 ...)."""
    stripped = sentence.strip()
    return bool(_FILLER_EN.match(stripped) or _FILLER_ZH.match(stripped))


def is_social_turn(text: str) -> bool:
    """Whether a whole user turn is social, not a request: thanks, a greeting, a goodbye or
    an acknowledgement ("Thank you!", "ok, got it", 谢谢！)."""
    stripped = text.strip()
    return bool(stripped) and bool(_SOCIAL_EN.match(stripped) or _SOCIAL_ZH.match(stripped))
