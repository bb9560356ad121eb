"""Cached lexical features of statements and passages: key words, numbers, names."""

from __future__ import annotations

import re
from functools import lru_cache

from ...text import (
    Lang,
    char_ngrams,
    content_words,
    has_negation,
    is_stopword,
    sentence_spans,
    stem,
    tokenize,
)
from ...text.numbers import NumberMention, find_numbers

_NUMERIC_RE = re.compile(r"^[\d.,/:%]+$")
_PUNCT_RE = re.compile(r"[，。！？；：、,.!?;:()（）《》“”\"'\s]+")
_CJK_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_NAME_RE = re.compile(r"\b[A-Z][A-Za-z0-9]*[A-Z0-9][A-Za-z0-9]*\b|(?<=[a-z,;] )[A-Z][a-z]{2,}\b")
_HEADING_RE = re.compile(r"\*\*[^*\n]{1,80}\*\*|^#+ .*$", re.MULTILINE)
_CACHE = 50_000


def _is_number(token: str) -> bool:
    return bool(_NUMERIC_RE.match(token))


@lru_cache(maxsize=_CACHE)
def statement_keys(text: str, lang: Lang) -> frozenset[str]:
    """What a passage must contain to support `text`: stemmed content words (en) or the
    character bigrams of content-word runs plus ASCII words (zh). Numbers are left out, with
    the words that are part of them ("March" and "14th" in "the 14th of March", "century",
    年代): they are checked as numbers."""
    mentions = numbers(text)
    if mentions:
        chars = list(text)
        for m in mentions:
            chars[m.start : m.end] = " " * (m.end - m.start)
        text = "".join(chars)
    if lang == "en":
        return frozenset(t for t in content_words(text, "en") if not _is_number(t))
    keys: set[str] = set()
    run = ""
    # punctuation ends a run: no bigram may straddle a comma
    tokens = [t for piece in _PUNCT_RE.split(text) for t in [*tokenize(piece, "zh"), ""]]
    for token in tokens:
        if token and _CJK_RE.match(token) and not is_stopword(token):
            run += token
            continue
        if run:
            keys.update(char_ngrams(run, 2))
            run = ""
        if token and not _CJK_RE.match(token) and not is_stopword(token) and not _is_number(token):
            keys.add(token)
    return frozenset(keys)


@lru_cache(maxsize=_CACHE)
def passage_keys(text: str, lang: Lang) -> frozenset[str]:
    """Everything `statement_keys` of a supported statement can match in a passage."""
    if lang == "en":
        return frozenset(tokenize(text, "en", stem_words=True))
    keys = set(char_ngrams(text, 2))
    keys.update(_CJK_RE.findall(text))
    keys.update(content_words(text, "zh"))
    return frozenset(keys)


def coverage(keys: frozenset[str], passage: frozenset[str]) -> float:
    """Share of `keys` found in `passage` (1.0 for no keys)."""
    if not keys:
        return 1.0
    return len(keys & passage) / len(keys)


_ENUMERATOR_RE = re.compile(r"^\s*\d{1,2}[.)](?=\s|$)", re.MULTILINE)
# a step's label ("Step 3:", 步骤3, 第3步): how the answer is laid out, not what it claims
_STEP_RE = re.compile(r"\bstep\s+\d{1,2}\b|步骤\s*\d{1,2}|第\s*\d{1,2}\s*步", re.IGNORECASE)
_CITATION_RE = re.compile(r"\[\d{1,3}(?:\s*[,\u2013-]\s*\d{1,3})*\]")


@lru_cache(maxsize=_CACHE)
def numbers(text: str) -> tuple[NumberMention, ...]:
    """Numbers of `text` (cached); citation markers such as `[2]` or `[1, 3]`, list markers
    and step labels ("Step 3", 第3步) are not numbers."""
    if "[" in text:
        text = _CITATION_RE.sub(lambda m: " " * len(m.group()), text)
    text = _ENUMERATOR_RE.sub(lambda m: " " * len(m.group()), text)
    text = _STEP_RE.sub(lambda m: " " * len(m.group()), text)
    return tuple(find_numbers(text))


@lru_cache(maxsize=_CACHE)
def negated(text: str, lang: Lang) -> bool:
    """Whether `text` is negated (cached)."""
    return has_negation(text, lang)


@lru_cache(maxsize=_CACHE)
def sentences(text: str, lang: Lang) -> tuple[tuple[int, int], ...]:
    """Sentence spans of `text` (cached)."""
    return tuple(sentence_spans(text, lang))


@lru_cache(maxsize=_CACHE)
def names(text: str) -> tuple[str, ...]:
    """Proper-name-like words: inner capitals (`PayPal`, `2FA`) or capitalised mid-sentence."""
    found = []
    text = _HEADING_RE.sub(lambda m: " " * len(m.group()), text)  # title-cased headings
    for match in _NAME_RE.finditer(text):
        word = match.group()
        if not is_stopword(word.lower()) and not word.isdigit():
            found.append(word)
    return tuple(dict.fromkeys(found))


def word_trigrams(word: str) -> frozenset[str]:
    """Character trigrams of a padded word, for typo-tolerant matching."""
    padded = f"#{word}#"
    return frozenset(padded[i : i + 3] for i in range(len(padded) - 2))


@lru_cache(maxsize=_CACHE)
def word_similarity(a: str, b: str) -> float:
    """Typo-tolerant word similarity: the better of trigram Dice and 1 - edit distance / length
    (`pasword` vs `password` ~ 0.88, `refnds` vs `refunds` ~ 0.86)."""
    if a == b:
        return 1.0
    ta, tb = word_trigrams(a), word_trigrams(b)
    dice = 2 * len(ta & tb) / (len(ta) + len(tb))
    return max(dice, 1 - edit_distance(a, b) / max(len(a), len(b)))


def edit_distance(a: str, b: str) -> int:
    """Optimal-string-alignment distance (insertions, deletions, substitutions, swaps)."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]


MISSING_SHOWN = 4
"""Key words a reason names at most."""


@lru_cache(maxsize=_CACHE)
def _readable_keys(text: str, lang: Lang) -> tuple[tuple[str, frozenset[str]], ...]:
    """Each readable word of `text` that `statement_keys` draws keys from, with those keys:
    an English content word (as written) with its stem, a Chinese word with its character
    bigrams, an ASCII word among Chinese with itself; words of one character left out."""
    keys = statement_keys(text, lang)
    out: dict[str, frozenset[str]] = {}
    for token in tokenize(text, lang):
        if len(token) == 1 or token in out or is_stopword(token) or _is_number(token):
            continue  # a one-character word is too weak a clue to name
        if _CJK_RE.match(token):
            own = frozenset(g for g in char_ngrams(token, 2) if g in keys)
        else:
            own = frozenset({stem(token) if lang == "en" else token}) & keys
        if own:
            out[token] = own
    return tuple(out.items())


def missing_words(text: str, lang: Lang, present: frozenset[str]) -> list[str]:
    """The readable words of `text` whose keys (`statement_keys`) are not all in `present`
    (keys of a passage, or of every chunk), in the order they appear: English content words as
    written (their stems are what is matched), Chinese words with a character bigram missing,
    and ASCII words among Chinese; words of one character are left out."""
    return [word for word, own in _readable_keys(text, lang) if not own <= present]
