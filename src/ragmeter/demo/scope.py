"""Which question words matter for deciding that the handbook does not cover a question.

A question that names something the handbook never mentions ("weather", "年薪") is out of scope,
however well its other words match. But many words absent from the handbook are harmless: words
that say what kind of answer is wanted ("how much", "多少钱"), everyday words ("big", "以后"), and
typos. This module tells them apart.
"""

from __future__ import annotations

import math
from functools import lru_cache

from ragmeter.text import stem, tokenize

from .retrieval import CJK, Retriever

# Words that say what kind of answer is wanted, not what it is about.
_QUESTION_WORDS = (
    "much many long often tell know explain describe happen happens exactly actually really "
    "anyone someone something anything way possible able want like wonder curious "
    "请问 告诉 介绍 一下 知道 想 想要 能否 是否 可不可以 怎么办 多久 多长时间 几 哪个 哪种 呢 吗"
)
# Everyday English words that a handbook may well not use but that change no topic.
_GENERIC_EN = (
    "big small large tiny fast quick quickly slow long short wrong right good bad best better new "
    "old first last next still even already soon ever again come go get make take give put keep "
    "let see look find try work use used thing things stuff kind sort type lot lots bit whole part "
    "people person someone guy guys folks everyone everybody anybody stop start happen okay fine "
    "sure hey thanks say said mean means need needs allowed allow specific certain particular"
)
# Query words rewritten to the handbook's vocabulary (question idioms only).
_REWRITES = {"钱": "价格"}
# Chinese words more common than this in general text (jieba's dictionary) change no topic.
_ZH_GENERIC_SURPRISAL = 10.5
_ZH_QUESTION_PREFIXES = ("几", "多少", "哪")


@lru_cache(maxsize=1)
def question_words() -> frozenset[str]:
    """Question words, stemmed like index terms."""
    return frozenset(stem(w) for w in _QUESTION_WORDS.split())


@lru_cache(maxsize=1)
def _generic_en() -> frozenset[str]:
    return frozenset(stem(w) for w in _GENERIC_EN.split())


def topical(words: list[str]) -> list[str]:
    """Drop question words and apply rewrites, keeping order."""
    skip = question_words()
    return [_REWRITES.get(w, w) for w in words if w not in skip]


@lru_cache(maxsize=4096)
def zh_surprisal(word: str) -> float | None:
    """-log of the word's frequency in jieba's general dictionary; None when jieba lacks it."""
    tokenize("预热", "zh")  # makes sure jieba's dictionary is loaded
    import jieba

    freq = jieba.dt.FREQ.get(word, 0)
    return math.log(jieba.dt.total / freq) if freq else None


def is_novel(term: str, lang: str, retriever: Retriever) -> bool:
    """Whether `term` names something the handbook never mentions (a sign of out-of-scope).

    Known terms, everyday words, single Chinese characters and words jieba does not know (typos
    and segmentation debris, judged by coverage instead) are not novel.
    """
    if retriever.knows(term, lang):
        return False
    if not CJK.search(term):
        return term not in _generic_en()
    for prefix in _ZH_QUESTION_PREFIXES:
        if term.startswith(prefix):
            term = term[len(prefix) :]
    if len(term) < 2 or retriever.knows(term, lang):
        return False
    surprisal = zh_surprisal(term)
    return surprisal is not None and surprisal > _ZH_GENERIC_SURPRISAL
