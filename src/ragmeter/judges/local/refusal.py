"""Recognising a refusal in free wording, in English and Chinese.

A sentence refuses when it says that the speaker cannot answer (`I wasn't able to locate any
details`, 我无法确定) or that the sources lack the answer (`the excerpts don't say`, 资料里没有
提到). Rather than listing phrases, each rule pairs two kinds of words inside one clause: who
or what is lacking (the speaker; a source such as documentation, context, passages, 资料,
文档; information, details, 信息) and a negated verb of knowing or covering (know, find,
confirm; mention, cover, say; 知道, 找到; 提到, 涉及), a few words apart. A negated fact about
the product ("The Pro plan is not available for schools", 专业版不对学校开放) names neither,
so it stays a claim; a source that reports a negative fact ("the handbook says exports do not
include comments") is not a refusal either.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_CONTRACTIONS = (
    (re.compile(r"\bcan'?t\b|\bcannot\b"), "can not"),
    (re.compile(r"\bwon'?t\b"), "will not"),
    (re.compile(r"n't\b"), " not"),
    (re.compile(r"\b(do|does|did|is|are|was|were|has|have|had|could|would|should)nt\b"), r"\1 not"),
    (re.compile(r"'m\b"), " am"),
    (re.compile(r"'re\b"), " are"),
    (re.compile(r"'ve\b"), " have"),
    (re.compile(r"\b(that|there|it|this|what)'s\b"), r"\1 is"),
)
_CLAUSE_EN = re.compile(r"[,;:()\u2013\u2014]|\s-\s|\b(?:but|so|because|although|though)\b")
_WORD = re.compile(r"[a-z0-9]+")


def _words(blob: str) -> frozenset[str]:
    return frozenset(blob.split())


SPEAKER = _words("i me")
WE = _words("we")
NEGATION = _words("not no never nothing none unable without lack lacks lacking neither nor")
# Verbs, adjectives and nouns of knowing or being able to answer, after "I ... not".
KNOWING = _words(
    """know knowing answer answering say tell telling find finding found locate locating
    confirm confirming determine verify see seeing access help comment speak sure certain
    aware able idea way clue information info details detail data knowledge record records
    mention answer answers specifics"""
)
KNOWING_WE = _words("know find found locate confirm determine sure certain aware information")
# Where answers live: the documentation, the retrieved context, the sources.
SOURCE = _words(
    """documentation docs doc documents document handbook handbooks manual manuals context
    contexts source sources material materials passage passages excerpt excerpts article
    articles knowledge guide guides faq snippets excerpts"""
)
# Words that are a source only after a modifier ("the retrieved content", "the given text").
SOURCE_AFTER_MODIFIER = _words("content contents text texts results information info data")
SOURCE_MODIFIER = _words("retrieved provided given available search supplied attached these")
# Verbs of covering a topic, negated after a source ("the guide doesn't specify").
COVERING = _words(
    """cover covers covered covering mention mentions mentioned say says said specify specifies
    specified include includes included contain contains contained address addresses addressed
    discuss discusses discussed describe describes described state states stated explain
    explains explained answer answers answered go goes talk talks touch touches list lists
    listed document documented detail details tell tells show shows indicate indicates
    give gives provide provides reference references appear appears feature features"""
)
# Verbs through which a source reports a fact; a negation after them belongs to the fact.
REPORTING = _words(
    """says say states explains notes recommends confirms shows indicates specifies mentions
    lists describes tells suggests advises warns clarifies notes"""
)
INFORMATION = _words(
    "information info details detail data mention answer answers record records specifics word"
)
OTHER = _words("other different unrelated")


def _near(tokens: Sequence[str], i: int, words: frozenset[str], span: int) -> int | None:
    """Index of the first token in `words` within `span` tokens after position `i`."""
    for k in range(i + 1, min(len(tokens), i + span + 1)):
        if tokens[k] in words:
            return k
    return None


def _speaker_cannot(tokens: Sequence[str]) -> bool:
    """I ... not/unable ... know/find/answer/sure (`I wasn't able to locate`)."""
    for i, token in enumerate(tokens):
        knowing = KNOWING if token in SPEAKER else KNOWING_WE if token in WE else None
        if knowing is None:
            continue
        neg = _near(tokens, i, NEGATION, 4)
        if neg is not None and _near(tokens, neg, knowing, 4) is not None:
            return True
    return False


def _sources(tokens: Sequence[str]) -> list[int]:
    """Positions of words naming where answers live."""
    return [
        i
        for i, t in enumerate(tokens)
        if t in SOURCE
        or (t in SOURCE_AFTER_MODIFIER and i > 0 and tokens[i - 1] in SOURCE_MODIFIER)
    ]


def _source_lacks(tokens: Sequence[str]) -> bool:
    """A source with a negated covering verb (`the excerpts don't say`, `isn't covered in the
    docs`), covering nothing (`says nothing`), silent, or nothing/none of it (`none of the
    documents discuss`)."""
    sources = _sources(tokens)
    if not sources:
        return False
    for j, token in enumerate(tokens):
        if token == "silent":
            return True
        if token not in NEGATION:
            continue
        if (
            j > 0
            and tokens[j - 1] in COVERING | _words("has have had")
            and token in _words("nothing no")
        ):
            return True
        if any(j < i <= j + 4 for i in sources) and _near(tokens, j, _words("in within from"), 2):
            return True  # not in the provided material
        reported = any(
            tokens[r] in REPORTING and (r == 0 or tokens[r - 1] not in NEGATION)
            for r in range(sources[0] + 1, j)
        )
        if reported and j > sources[0]:
            continue
        if _near(tokens, j, COVERING, 6) is not None:
            return True
        if token in _words("nothing none") and any(j < i <= j + 5 for i in sources):
            return True
    return False


def _nothing_there(tokens: Sequence[str]) -> bool:
    """There is no information / no details are given / nothing about it."""
    text = " ".join(tokens)
    info = "|".join(sorted(INFORMATION))
    return bool(
        re.search(
            rf"\bthere (?:is|are|was|were) (?:no|not any|nothing)\b(?: \w+){{0,3}}? ({info})\b",
            text,
        )
        or re.search(
            rf"\bno (?:\w+ )?({info}) (?:is|are|was|were) (?:\w+ )?(?:available|given|provided|"
            r"mentioned|included|found|listed|specified|stated)\b",
            text,
        )
        or re.search(r"\b(?:there is|i have|i found|i see) nothing (?:about|on|regarding)\b", text)
    )


def _out_of_scope(tokens: Sequence[str]) -> bool:
    """Out of scope / outside the scope / beyond what the documents (or I) can tell."""
    text = " ".join(tokens)
    if re.search(r"\bout of scope\b|\b(?:outside|beyond) (?:of )?(?:the |my |this )?scope\b", text):
        return True
    match = re.search(r"\b(?:outside|beyond) what\b", text)
    if match is None:
        return False
    rest = _WORD.findall(text[match.end() :])
    return bool(_sources(rest)) or any(t in SPEAKER or t == "my" for t in rest)


def _about_other_things(tokens: Sequence[str]) -> bool:
    """The sources are about something else (`the handbook only talks about other topics`)."""
    return bool(_sources(tokens)) and any(
        t in OTHER and _near(tokens, i, _words("topics topic subjects things matters areas"), 2)
        for i, t in enumerate(tokens)
    )


_RULES_EN = (_speaker_cannot, _source_lacks, _nothing_there, _out_of_scope, _about_other_things)


def refuses_en(sentence: str) -> bool:
    """Whether an English sentence says the answer is unknown or not in the sources."""
    text = sentence.lower().replace("\u2019", "'")
    for pattern, repl in _CONTRACTIONS:
        text = pattern.sub(repl, text)
    for clause in _CLAUSE_EN.split(text):
        tokens = _WORD.findall(clause)
        if tokens and any(rule(tokens) for rule in _RULES_EN):
            return True
    return False


# --- Chinese: the same pairs, matched on characters within one clause ---------------------

_SPEAKER_ZH = r"(?:我们|我|本助手)"
_NEG_ZH = r"(?:并没有|并未|没有|没能|没法|没|未能|未|无法|无从|不太|不能|不足以|不|暂无|无)"
_KNOW_ZH = r"(?:知道|清楚|确定|回答|答复|解答|作答|找到|查到|确认|判断|得知|了解|掌握)"
_CANNOT_ZH = (
    r"(?:回答不了|答不了|答不上|回答不上|确定不了|判断不了|找不到|找不着|查不到|查不着|查不出|"
    r"给不出|看不出|说不准|说不好|无从得知|无从判断)"
)
_SOURCE_ZH = (
    r"(?:资料|文档|手册|知识库|上下文|材料|文本|段落|检索结果|检索到的|检索内容|参考|来源|原文|所给|给定|"
    r"文中|文内|掌握的信息|"
    r"(?:提供|现有|已有|相关)的?(?:内容|信息|资料|文本|材料))"
)
_COVER_ZH = (
    r"(?:提到|提及|涉及|说明|讲到|讲|写|记载|记录|包含|包括|介绍|回答|给出|覆盖|说|谈到|谈及|"
    r"列出|描述|提)"
)
_INFO_ZH = r"(?:信息|内容|资料|说明|记录|数据|答案|依据|描述|介绍|线索|记载)"
_RULES_ZH = (
    # the speaker cannot know or answer: 我无法确定, 我不太确定, 我没能在手册里查到
    re.compile(_SPEAKER_ZH + r".{0,6}?" + _NEG_ZH + r".{0,6}?" + _KNOW_ZH),
    # ... or the clause opens with it: 不清楚，... / 无法回答
    re.compile(r"^(?:抱歉|对不起|不好意思|很遗憾|恐怕)?.{0,2}?(?:不知道|不清楚|不确定|不太确定)"),
    re.compile(
        r"(?:无法|无从|没法|没办法|不能)(?:回答|解答|答复)|"
        + _CANNOT_ZH
        + r"(?=.{0,12}?(?:答案|问题|信息|内容|资料))"
    ),
    # a verb that cannot reach its object, said of the speaker or a source: 文档中找不到
    re.compile(r"(?:" + _SPEAKER_ZH + "|" + _SOURCE_ZH + r").{0,10}?" + _CANNOT_ZH),
    re.compile(_CANNOT_ZH + r".{0,10}?" + _SOURCE_ZH),
    # a source that does not cover it: 资料里没有提到, 所给文档并没有说明, 检索结果中不包含
    re.compile(
        _SOURCE_ZH + r".{0,10}?" + _NEG_ZH + r".{0,4}?(?:" + _COVER_ZH + "|" + _KNOW_ZH + ")"
    ),
    # no information of that kind: 没有这方面的记录, 暂无相关信息, 没有找到…依据
    re.compile(
        r"(?:没有|暂无|并无|缺乏|缺少|无)(?:任何)?(?:相关|这方面|这一方面|关于[^，。]{0,12}|具体|更多)的?"
        + _INFO_ZH
    ),
    re.compile(r"(?:没有|没|未|未能|没能)找到.{0,14}?(?:" + _INFO_ZH + r"|回答|答案)"),
    # out of scope: 超出了资料的范围, 在我能看到的资料之外
    re.compile(r"超出.{0,10}?(?:范围|能力)|(?:范围|资料|文档|手册|知识|内容)(?:之外|以外)"),
    # the sources are about something else: 手册里只讲了别的内容
    re.compile(_SOURCE_ZH + r".{0,8}?(?:别的|其他|其它)(?:内容|话题|主题|方面|问题|事情)"),
)
_CLAUSE_ZH = re.compile(r"[，,；;。！!？?：:]")


def refuses_zh(sentence: str) -> bool:
    """Whether a Chinese sentence says the answer is unknown or not in the sources."""
    for clause in _CLAUSE_ZH.split(sentence):
        clause = clause.strip()
        if clause and any(rule.search(clause) for rule in _RULES_ZH):
            return True
    return False


# A quotation is someone else's words, a title most often ("I Still Haven't Found What I'm
# Looking For" belongs to the War album): it says nothing about what the speaker knows.
_QUOTED = re.compile(r'"[^"\n]{1,200}"|“[^”\n]{1,200}”|《[^》\n]{1,80}》|「[^」\n]{1,80}」')


def refuses(sentence: str) -> bool:
    """Whether one sentence (English or Chinese) refuses to answer (quotations aside)."""
    unquoted = _QUOTED.sub(" ", sentence)
    if unquoted != sentence and re.search(r"\w", unquoted):
        sentence = unquoted
    if re.search(r"[\u4e00-\u9fff]", sentence) and refuses_zh(sentence):
        return True
    return refuses_en(sentence)
