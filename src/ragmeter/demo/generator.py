"""The demo's offline generator: extract the retrieved sentences that best match the question.

Each candidate sentence is scored by *coverage*: the idf-weighted share of the question's terms it
contains (English words also match approximately, by character trigrams, so "plans" matches
"plan"). The answer is the best one to three sentences; when even the best sentence covers too
little of the question, the generator abstains.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from ragmeter.text import normalize, split_sentences

from .retrieval import CJK, Hit, terms

if TYPE_CHECKING:
    from ragmeter.text import Lang

ABSTENTIONS = {
    "en": "I don't know: the handbook does not cover this.",
    "zh": "抱歉，手册中没有相关信息，我无法回答。",
}
"""What the generator says when nothing relevant was retrieved, per language."""

_MARKUP = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+|>\s*)|[*_`]{1,2}")
_TITLE_WEIGHT = 0.5
_SECOND_SENTENCE_RATIO = 0.9
_RANK_PENALTY = 0.1
_SENTENCE_POOL = 3  # sentences come from the best three chunks only


@dataclass(frozen=True)
class Draft:
    """What the generator produced, with the score behind the decision to answer."""

    answer: str
    abstained: bool
    coverage: float
    """Question-term coverage of the best sentence, in [0, 1]."""
    reason: str = ""
    """Why the generator abstained (empty when it answered)."""
    sentences: tuple[str, ...] = ()
    """The extracted sentences (empty when abstaining)."""


@lru_cache(maxsize=4096)
def _trigrams(word: str) -> frozenset[str]:
    padded = f"  {word} "
    return frozenset(padded[i : i + 3] for i in range(len(padded) - 2))


def _similarity(a: str, b: str) -> float:
    """1 for equal terms, trigram Jaccard for close English words, else 0."""
    if a == b:
        return 1.0
    if len(a) < 4 or len(b) < 4 or not (a.isascii() and b.isascii()):
        return 0.0
    ta, tb = _trigrams(a), _trigrams(b)
    jaccard = len(ta & tb) / len(ta | tb)
    return jaccard if jaccard >= 0.5 else 0.0


@dataclass(frozen=True)
class Span:
    """A sentence or title prepared for matching: its terms and its normalised text."""

    terms: frozenset[str]
    norm: str

    @classmethod
    def of(cls, text: str, lang: Lang) -> Span:
        return cls(frozenset(terms(text, lang, bigrams=False)), normalize(text))


def match(term: str, span: Span) -> float:
    """How well `span` contains `term`, in [0, 1].

    Chinese terms match as substrings (segmentation-independent), partly by character bigrams;
    English terms exactly or approximately.
    """
    if term in span.terms:
        return 1.0
    if CJK.search(term):
        if term in span.norm:
            return 1.0
        # A mistyped character ("密马" for "密码") still leaves part of the word matching.
        grams = [term[i : i + 2] for i in range(len(term) - 1)]
        share = sum(g in span.norm for g in grams) / len(grams) if grams else 0.0
        if len(term) >= 3 and share >= 0.5:
            return share
        chars = sum(ch in span.norm for ch in term) / len(term)
        return 0.5 * chars if chars >= 0.5 else 0.0
    return max((_similarity(term, t) for t in span.terms), default=0.0)


def coverage(
    query: dict[str, float],
    sentence: Span,
    title: Span | None = None,
    context: dict[str, float] | None = None,
) -> float:
    """Weighted share of the query terms found in the sentence, in [0, 1].

    Title matches count half. `context` terms (from earlier turns) can only add: they make up for
    what a follow-up question leaves implicit, and their absence costs nothing.
    """
    total = sum(query.values())
    if total <= 0:
        return 0.0
    got = 0.0
    for term, weight in [*query.items(), *(context or {}).items()]:
        best = match(term, sentence)
        if best < 1.0 and title is not None:
            best = max(best, _TITLE_WEIGHT * match(term, title))
        got += weight * best
    return min(1.0, got / total)


def clean_sentence(sentence: str) -> str:
    """Strip Markdown list markers and emphasis from a sentence."""
    return _MARKUP.sub("", sentence).strip()


def candidate_sentences(hits: list[Hit], lang: Lang) -> list[tuple[int, str, str]]:
    """(chunk rank, sentence, chunk title) for the sentences of the best chunks, deduplicated."""
    seen: set[str] = set()
    out: list[tuple[int, str, str]] = []
    for rank, hit in enumerate(hits[:_SENTENCE_POOL]):
        for raw in split_sentences(hit.chunk.text, lang=lang):
            if raw.lstrip().startswith("#"):
                continue
            sentence = clean_sentence(raw)
            if len(sentence) < 4 or sentence in seen:
                continue
            seen.add(sentence)
            out.append((rank, sentence, hit.chunk.title))
    return out


def generate(
    query: dict[str, float],
    hits: list[Hit],
    lang: Lang,
    *,
    abstain_threshold: float,
    max_sentences: int = 3,
    context: dict[str, float] | None = None,
    novel_terms: tuple[str, ...] = (),
    always_answer: bool = False,
) -> Draft:
    """Answer from the retrieved hits, or abstain when the best sentence covers too little.

    `query` maps each question term to its weight (usually its idf); `context` does the same for
    terms of earlier turns, which can add to coverage but never lower it. `novel_terms` are question
    terms the corpus never mentions; any of them makes the generator abstain. With
    `always_answer` the generator never abstains while there is any sentence at all (a reckless
    generator).
    """
    scored: list[tuple[float, int, str]] = []
    titles: dict[str, Span] = {}
    for order, (rank, sentence, title) in enumerate(candidate_sentences(hits, lang)):
        if title not in titles:
            titles[title] = Span.of(title, lang)
        score = coverage(query, Span.of(sentence, lang), titles[title], context)
        # A small preference for higher-ranked chunks, then for earlier sentences, breaks ties.
        scored.append((score * (1 - _RANK_PENALTY * rank), order, sentence))
    scored.sort(key=lambda item: (-item[0], item[1]))
    best = scored[0][0] if scored else 0.0
    abstain_text = ABSTENTIONS.get(lang, ABSTENTIONS["en"])
    reason = ""
    if not scored:
        reason = "nothing retrieved"
    elif novel_terms:
        reason = "the handbook never mentions: " + ", ".join(novel_terms)
    elif best < abstain_threshold:
        reason = f"best sentence covers {best:.2f} of the question (< {abstain_threshold})"
    if not scored or (reason and not always_answer):
        return Draft(abstain_text, True, best, reason)
    chosen = [s for s in scored if s[0] >= _SECOND_SENTENCE_RATIO * best and s[0] > 0]
    chosen = sorted(chosen[:max_sentences] or scored[:1], key=lambda item: item[1])
    sentences = tuple(s for _, _, s in chosen)
    joiner = "" if lang == "zh" else " "
    return Draft(joiner.join(sentences), False, best, "", sentences)
