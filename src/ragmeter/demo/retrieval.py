"""BM25 retrieval over demo chunks, one index per language, with optional dense fusion."""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ragmeter.text import EN_STOPWORDS, char_ngrams, content_words

from .chunking import Chunk

if TYPE_CHECKING:
    import numpy as np

    from ragmeter.text import Lang

RetrievalMode = Literal["bm25", "hybrid"]

CJK = re.compile(r"[\u3400-\u9fff]")
_RRF_K = 60


def terms(text: str, lang: Lang, *, bigrams: bool = True) -> list[str]:
    """Index terms: content words (English stemmed), plus CJK character bigrams for Chinese.

    Bigrams make Chinese matching robust to jieba segmenting a query and a chunk differently.
    """
    words = [w.lower() for w in content_words(text, lang=lang) if w.strip()]
    if lang != "zh" or not bigrams:
        return words
    grams = [g for g in char_ngrams(text, n=2) if len(g) == 2 and all(CJK.match(c) for c in g)]
    return words + grams


def _one_edit(a: str, b: str) -> bool:
    """Whether `a` and `b` differ by exactly one insertion, deletion or substitution."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return a[i + 1 :] == b[i + 1 :] if len(a) == len(b) else a[i:] == b[i + 1 :]
    return True


@dataclass(frozen=True)
class Hit:
    """A retrieved chunk and its score (BM25, or the fused score in hybrid mode)."""

    chunk: Chunk
    score: float


@dataclass
class _LangIndex:
    chunks: list[Chunk]
    bm25: Any
    df: dict[str, int]
    text: str = ""
    vocab_by_len: dict[int, list[str]] = field(default_factory=dict)
    dense: np.ndarray | None = None


class Retriever:
    """Keyword (BM25) or hybrid (BM25 + MiniLM, reciprocal-rank fusion) search over chunks.

    Each language has its own index, so a Chinese question only ever retrieves Chinese chunks.
    Hybrid mode applies to English only (the bundled embedder is English-only) and falls back to
    BM25 when no local embedder is installed; `dense_available` says which happened.
    """

    def __init__(self, chunks: list[Chunk], mode: RetrievalMode = "bm25") -> None:
        from rank_bm25 import BM25Okapi

        self.mode = mode
        self._indexes: dict[str, _LangIndex] = {}
        for lang in sorted({c.lang for c in chunks}):
            lang_chunks = [c for c in chunks if c.lang == lang]
            # The title is indexed with every chunk: a chunk about "the price" of a plan that
            # never names the plan is still found by the plan's name.
            tokenized = [terms(f"{c.title}\n{c.text}", lang) or ["\0"] for c in lang_chunks]
            df: dict[str, int] = {}
            for toks in tokenized:
                for tok in set(toks):
                    df[tok] = df.get(tok, 0) + 1
            by_len: dict[int, list[str]] = {}
            for tok in sorted(df):
                if tok.isascii() and tok.isalpha():
                    by_len.setdefault(len(tok), []).append(tok)
            text = "\n".join(sorted({c.title for c in lang_chunks}) + [c.text for c in lang_chunks])
            self._indexes[lang] = _LangIndex(
                lang_chunks, BM25Okapi(tokenized), df, text.lower(), by_len
            )
        self.dense_available = False
        if mode == "hybrid" and "en" in self._indexes:
            self._build_dense(self._indexes["en"])

    def _build_dense(self, index: _LangIndex) -> None:
        try:
            from ragmeter.embeddings import load_local_embedder
        except ImportError:
            return
        embedder = load_local_embedder()
        if embedder is None:
            return
        self._embedder = embedder
        index.dense = embedder.embed([f"{c.title}. {c.text}" for c in index.chunks])
        self.dense_available = True

    @property
    def languages(self) -> list[str]:
        """Languages that have an index."""
        return list(self._indexes)

    def knows(self, term: str, lang: str) -> bool:
        """Whether the corpus of `lang` has the term (Chinese: anywhere in its text)."""
        index = self._indexes.get(lang)
        if index is None:
            return False
        return term in index.df or bool(CJK.search(term) and term in index.text)

    def idf(self, term: str, lang: str) -> float:
        """Smoothed inverse chunk frequency; terms absent from the corpus get the highest value."""
        index = self._indexes.get(lang)
        if index is None:
            return 1.0
        n = len(index.chunks)
        return math.log(1 + (n + 1) / (index.df.get(term, 0) + 0.5))

    def correct(
        self, words: list[str], lang: str, ignorable: frozenset[str] = frozenset()
    ) -> list[str]:
        """Fix typos: out-of-vocabulary English words become their closest indexed word.

        This is what lets "pirce of the Tem plan" find the chunk about the Team plan's price.
        Short unknown words one edit away from a stopword or from an `ignorable` word ("wht",
        "hw") are dropped.
        """
        index = self._indexes.get(lang)
        if index is None:
            return words
        fixed: list[str] = []
        for word in words:
            if word in index.df or not (word.isascii() and word.isalpha()):
                fixed.append(word)
                continue
            if len(word) <= 4 and any(_one_edit(word, w) for w in (*EN_STOPWORDS, *ignorable)):
                continue
            if len(word) < 4:
                fixed.append(word)
                continue
            # Typos rarely hit the first letter; requiring it avoids "gmail" -> "email".
            pool = [
                cand
                for size in range(len(word) - 2, len(word) + 3)
                for cand in index.vocab_by_len.get(size, [])
                if cand[0] == word[0]
            ]
            match = difflib.get_close_matches(word, pool, n=1, cutoff=0.8)
            if not match:  # a swap of two letters ("plna") scores low on difflib's ratio
                match = [c for c in pool if len(c) == len(word) and sorted(c) == sorted(word)]
            fixed.append(match[0] if match else word)
        return fixed

    def search(self, query_terms: list[str], lang: str, top_k: int, text: str = "") -> list[Hit]:
        """The `top_k` best chunks of language `lang` for `query_terms`, best first.

        `text` is the raw query, used for the dense half of hybrid mode.
        """
        index = self._indexes.get(lang) or self._indexes.get("en")
        if index is None or top_k < 1:
            return []
        scores = index.bm25.get_scores(query_terms) if query_terms else [0.0] * len(index.chunks)
        order = sorted(range(len(index.chunks)), key=lambda i: (-scores[i], i))
        if index.dense is not None and text.strip():
            order, fused = self._fuse(index, order, text)
            return [Hit(index.chunks[i], fused[i]) for i in order[:top_k]]
        return [Hit(index.chunks[i], float(scores[i])) for i in order[:top_k]]

    def _fuse(self, index: _LangIndex, bm25_order: list[int], text: str) -> tuple[list[int], dict]:
        query_vec = self._embedder.embed([text])[0]
        sims = index.dense @ query_vec
        dense_order = sorted(range(len(index.chunks)), key=lambda i: (-float(sims[i]), i))
        fused: dict[int, float] = {}
        for ranking in (bm25_order, dense_order):
            for rank, i in enumerate(ranking):
                fused[i] = fused.get(i, 0.0) + 1.0 / (_RRF_K + rank + 1)
        return sorted(fused, key=lambda i: (-fused[i], i)), fused
