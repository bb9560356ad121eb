"""Whether a negation in one of two matching clauses contradicts the other.

A clause and its evidence that differ in negation contradict each other only when the negation
bears on what both say: "the bank cannot go after you" against "in states where mortgages are
non-recourse loans" share words, but the negation bears on "go", which the evidence never
states; "locate parents that do not have custody" negates "custody", which "locate
non-custodial parents" never states. And an affirmative clause may say the negative in other
words ("avoid putting personal information" for "do not put personal information"; 避免 for
不要), so its polarity cannot be read from negation words alone.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ...text import Lang, is_stopword, stem, tokenize
from .features import negated, passage_keys

_NOT_NEGATING_EN = re.compile(r"\bnot\s+(?:only|just|merely|simply)\b", re.IGNORECASE)
"""'not only X but Y' adds to X; it does not deny it."""
_NEGATION_PARTS_EN = frozenset({"longer", "yet", "ever", "even", "really", "actually"})
"""Words that belong to the negation ("no longer", "not yet", "not really"), not to what it
negates."""
_IMPLICIT_EN = re.compile(
    r"\b(?:avoid\w*|prevent\w*|lack\w*|fail\w*|refrain\w*|instead|rather\s+than|unless|"
    r"except\w*|exclud\w*|non-\w+)\b",
    re.IGNORECASE,
)
_IMPLICIT_ZH = (
    "避免",
    "防止",
    "缺乏",
    "缺少",
    "拒绝",
    "而非",
    "除非",
    "除了",
    "以免",
    "免得",
    "无需",
)


def without_additive_not(text: str, lang: Lang) -> str:
    """`text` with "not only", "not just" ... blanked (English): they add, not deny."""
    return _NOT_NEGATING_EN.sub(" ", text) if lang == "en" else text


def says_negative_in_words(text: str, lang: Lang) -> bool:
    """Whether `text` holds a word that negates without a negation word ("avoid", "instead",
    "non-custodial"; 避免, 除非): its polarity cannot be read from negation words."""
    if lang == "zh":
        return any(word in text for word in _IMPLICIT_ZH)
    return bool(_IMPLICIT_EN.search(text))


SCOPE_WORDS = 2
"""Content words after a negation that it bears on: the word it negates and the head of what
follows ("not available on the free plan": available, free)."""


@lru_cache(maxsize=10_000)
def negated_words(text: str, lang: Lang) -> tuple[str, ...]:
    """What the negations of `text` bear on: the first `SCOPE_WORDS` content words after
    each, within the clause (stemmed in English): "you don't have to pay a costly fee" → pay,
    costly; 没有一个短视频APP → 短, 视频. A negation with nothing after it ("whether you are a
    victim or not") bears on nothing."""
    tokens = tokenize(without_additive_not(text, lang).lower().replace("’", "'"), lang)
    out: list[str] = []
    pending = 0
    for token in tokens:
        if negated(token, lang):
            pending = SCOPE_WORDS
            continue
        if pending and not is_stopword(token) and token not in _NEGATION_PARTS_EN:
            out.append(stem(token) if lang == "en" else token)
            pending -= 1
    return tuple(out)


def negation_bears_on(negated: str, other: str, lang: Lang) -> bool:
    """Whether the negation of `negated` denies something `other` states: a word it bears on
    is in `other`, and `other` does not itself say the negative in other words."""
    if says_negative_in_words(other, lang):
        return False
    keys = passage_keys(other, lang)
    return any(word in keys for word in negated_words(negated, lang))
