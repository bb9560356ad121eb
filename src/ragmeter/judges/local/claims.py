"""Splitting an answer (or a reference answer) into atomic statements."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from ...text import Lang, content_words, split_sentences
from .abstention import is_abstention, is_filler, is_hedge, without_qualifiers

Role = Literal["claim", "abstention", "hedge", "filler", "question"]

_LEAD_IN_EN = re.compile(
    r"^(?:(?:according\s+to|based\s+on|as\s+(?:stated|mentioned|described|noted|explained)\s+in|"
    r"per|from)\s+(?:the\s+)?[\w\s'-]{0,40}?,\s*|(?:in\s+summary|in\s+short|to\s+summarize|"
    r"overall|well|so|basically|essentially|note\s+that|importantly)\s*,\s*)",
    re.IGNORECASE,
)
_LEAD_IN_ZH = re.compile(
    r"^(?:(?:根据|按照|依据|据)[^，,。]{0,20}[，,]|(?:总之|总的来说|简而言之|另外|此外)[，,]?)"
)
# A bare yes/no reply opening an answer ("No." / "Yes, ..." / 不能。/ 是的，): it is neither a
# statement of its own nor a negation of what follows. ("No. 5" is a number, not a reply.)
_REPLY_EN = re.compile(
    r"^(?:yes|no|nope|yeah|yep|correct|right|indeed|exactly|absolutely|not\s+really|"
    r"not\s+at\s+all|of\s+course(?:\s+not)?)\s*"
    r"(?:[.!]+\s*(?=(?-i:[A-Z\"'(])|$)|[,;:]+\s*|\s[-\u2013\u2014]+\s*)",
    re.IGNORECASE,
)
_REPLY_ZH = re.compile(
    r"^(?:是的?|对的?|没错|不是|不对|能|不能|可以|不可以|不行|行|会|不会|有|没有|没|不|否|要|不要|"
    r"需要|不需要|不用|支持|不支持|当然(?:可以|能|会|不)?|并不)[啊呀的呢哦]?(?:[。！!，,；;：:]+|$)"
)
_SUBJECTS_EN = frozenset(
    re.findall(
        r"\w+",
        "i you we they it he she the this that these those there your our its their a an each "
        "all some",
    )
)
_COORD_EN = re.compile(r",\s+(?:and|but|while|whereas|so|although|though)\s+", re.IGNORECASE)
_COORD_ZH = re.compile(r"[，,](?=(?:但是?|而且?|并且|不过|同时|另外|此外|然而))")
_SEMI = re.compile(r"[;；]\s*")
_MIXED_CLAUSE_EN = re.compile(r"\s*[,;]\s*(?:but\s+|and\s+|though\s+)?|\s+but\s+")
_MIXED_CLAUSE_ZH = re.compile(r"[，,；;]")
_TOPIC_OPENER = re.compile(
    r"^(?:关于|对于|至于|根据|按照|依据|基于|从|就|抱歉|很遗憾|不好意思|about\b|regarding\b|"
    r"as\s+for\b|according\s+to\b|based\s+on\b|from\b|sorry\b|unfortunately\b)",
    re.IGNORECASE,
)
# A list's marker on its own ("2.") or glued to its introduction by sentence splitting
# ("Follow these steps: 1."), a step's label ("Step 2:", 第2步：): layout, not a statement
_LIST_MARKER = re.compile(r"^\s*\d{1,2}[.)．、]\s*$")
_TRAILING_MARKER = re.compile(r"(?<=[:：])\s*\d{1,2}[.)．、]\s*$")
_STEP_LABEL = re.compile(
    r"^(?:step\s+\d{1,2}|步骤\s*\d{1,2}|第\s*\d{1,2}\s*步)\s*[:：.．、]\s*(?=\S)", re.IGNORECASE
)
_HEADING = re.compile(r"^\*{1,2}[^*\n\d]{1,80}\*\*\s*[:：]?\s*(?=\S)")


@dataclass(frozen=True)
class Segment:
    """One statement of an answer and what it does."""

    text: str
    role: Role


def is_clause(text: str, lang: Lang) -> bool:
    """Whether `text` can stand alone as a statement (not a bare phrase, name or number)."""
    words = content_words(text, lang)
    if lang == "zh":
        return len("".join(words)) >= 4 and len(text) >= 6
    return len(words) >= 2 and len(text.split()) >= 3


def strip_reply(sentence: str, lang: Lang) -> str:
    """`sentence` without a bare yes/no reply at its start ('' when that is all it says)."""
    pattern = _REPLY_ZH if lang == "zh" else _REPLY_EN
    return pattern.sub("", sentence.strip(), count=1).strip()


def _strip_lead_in(sentence: str, lang: Lang) -> str:
    for _ in range(2):
        pattern = _LEAD_IN_ZH if lang == "zh" else _LEAD_IN_EN
        stripped = pattern.sub("", sentence, count=1).strip()
        if stripped == sentence or not stripped:
            break
        sentence = stripped
    return sentence


def _split_coordinated(sentence: str, lang: Lang) -> list[str]:
    parts: list[str] = []
    pattern = _COORD_ZH if lang == "zh" else _COORD_EN
    rest = sentence
    while True:
        match = next(
            (m for m in pattern.finditer(rest) if _splittable(rest, m, lang)),
            None,
        )
        if match is None:
            parts.append(rest)
            return parts
        parts.append(rest[: match.start()].strip())
        rest = rest[match.end() :].strip()


def _splittable(text: str, match: re.Match[str], lang: Lang) -> bool:
    left, right = text[: match.start()], text[match.end() :]
    if not (is_clause(left, lang) and is_clause(right, lang)):
        return False
    if lang == "zh":
        return True
    first = right.split(maxsplit=1)[0].lower().strip("\"'(")
    return first in _SUBJECTS_EN or right[:1].isupper()


def _split_sentence(sentence: str, lang: Lang) -> list[str]:
    pieces = [p for p in _SEMI.split(sentence) if p.strip()]
    merged: list[str] = []
    for piece in pieces:
        if merged and not (is_clause(piece, lang) and is_clause(merged[-1], lang)):
            merged[-1] = f"{merged[-1]}; {piece}" if lang == "en" else f"{merged[-1]}；{piece}"
        else:
            merged.append(piece)
    out = []
    for piece in merged:
        out.extend(_split_coordinated(piece, lang))
    return out


def _role(text: str, lang: Lang) -> Role:
    if is_abstention(text):
        return "abstention"
    if is_filler(text):
        return "filler"
    if is_hedge(text) and not re.search(r"\d", text) and not _states_through_hedge(text, lang):
        return "hedge"
    if text.rstrip().endswith(("?", "？")):
        return "question"
    if _is_intro(text):
        return "filler"  # an introduction ("Here are the steps:") or a heading
    return "claim"


def _states_through_hedge(text: str, lang: Lang) -> bool:
    """A hedge that only qualifies a statement ("In general, exports keep comments"): what
    remains without it is a clause and no deflection."""
    rest = without_qualifiers(text)
    if _ABOUT_THE_QUESTION.search(rest):
        return False  # "there is no single answer, it varies" declines to answer
    return rest != text.strip() and not is_hedge(rest) and is_clause(rest, lang)


_ABOUT_THE_QUESTION = re.compile(r"\b(?:answers?|questions?)\b|答案|问题", re.IGNORECASE)


def _is_intro(text: str) -> bool:
    return text.rstrip(" *").endswith((":", "："))


# Words of an introduction that announces without stating ("Here are the steps:", 步骤如下：)
_INTRO_EN = re.compile(
    r"\b(?:here|following|below|steps?|options?|ways?|list|summary|details?|examples?|"
    r"answer|points?|things?|follows?|information|key|main|some|few|these|those)\b",
    re.IGNORECASE,
)
_INTRO_ZH = re.compile(r"以下|如下|下面|几点|步骤|方法|几种|主要|具体|内容|信息|答案")


def _stated_intro(text: str, lang: Lang) -> bool:
    """An introduction that states something itself ("The Pro plan includes three tools:")."""
    if not _is_intro(text):
        return False
    pattern = _INTRO_ZH if lang == "zh" else _INTRO_EN
    return is_clause(pattern.sub(" ", text.rstrip(" *:：")), lang)


def _split_mixed(piece: str, lang: Lang) -> list[Segment]:
    """An abstaining sentence that also states a fact ("I couldn't find X; Y costs $12",
    团队版的上限我没查到，专业版有 100 GB): its factual clauses are claims of their own."""
    pattern = _MIXED_CLAUSE_ZH if lang == "zh" else _MIXED_CLAUSE_EN
    clauses = [c.strip() for c in pattern.split(piece) if c and c.strip()]
    facts = [
        c
        for c in clauses
        if _role(c, lang) == "claim" and is_clause(c, lang) and not _TOPIC_OPENER.match(c)
    ]
    if len(clauses) < 2 or not facts:
        return [Segment(piece, "abstention")]
    rest = [c for c in clauses if c not in facts]
    joiner = "，" if lang == "zh" else ", "
    return [Segment(joiner.join(rest), "abstention"), *(Segment(c, "claim") for c in facts)]


@lru_cache(maxsize=20_000)
def segment(text: str, lang: Lang) -> tuple[Segment, ...]:
    """Split `text` into statements, each tagged with its role."""
    segments = []
    sentences = split_sentences(text, lang)
    for sentence in sentences:
        sentence = strip_reply(sentence, lang)
        for piece in _split_sentence(sentence, lang) if sentence else []:
            piece = _strip_lead_in(_HEADING.sub("", piece.strip(), count=1), lang)
            piece = _STEP_LABEL.sub("", _TRAILING_MARKER.sub("", piece), count=1)
            if len(sentences) > 1 and _LIST_MARKER.match(piece):
                continue  # ("14." alone answers "How many days?")
            if not content_words(piece, lang) and not re.search(r"\d", piece):
                continue
            role = _role(piece, lang)
            if role == "claim" and is_hedge(piece):
                piece = without_qualifiers(piece, leading_only=True)  # "In general, X": X
            if role == "abstention":
                segments.extend(_split_mixed(piece, lang))
            else:
                segments.append(Segment(piece, role))
    if not any(s.role in ("claim", "abstention") for s in segments):
        # an answer that is only an introduction ("Exports keep three things:", a list
        # that never came) states what the introduction says
        segments = [
            Segment(s.text.rstrip(" *:："), "claim")
            if s.role == "filler" and _stated_intro(s.text, lang)
            else s
            for s in segments
        ]
    return tuple(segments)


def split_claims(text: str, lang: Lang) -> list[str]:
    """The factual statements of `text` (refusals, hedges, fillers and questions dropped)."""
    return [s.text for s in segment(text, lang) if s.role == "claim"]


def is_refusal(text: str, lang: Lang) -> bool:
    """Whether the whole answer abstains: it has an abstention and no factual claim."""
    segments = segment(text, lang)
    roles = {s.role for s in segments}
    return "abstention" in roles and "claim" not in roles
