"""The demo RAG pipeline and its variants: `DemoPipeline(DemoConfig.for_variant(name))`.

Use it from the command line as a callable pipeline::

    ragmeter run --cases <demo evalset> --pipeline ragmeter.demo.pipeline:answer
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ragmeter.text import detect_lang

from .chunking import Chunk, chunk_corpus
from .corpus import load_corpus
from .generator import Draft, generate
from .hallucination import distort
from .retrieval import CJK, Hit, Retriever, terms
from .scope import is_novel, question_words, topical

if TYPE_CHECKING:
    from ragmeter.text import Lang

VARIANTS: tuple[str, ...] = ("default", "weak-retrieval", "hallucinating")
"""Names accepted by `DemoConfig.for_variant`."""

_HISTORY_WEIGHT = 0.5
_UNKNOWN_WEIGHT = 0.25
_HISTORY_TURNS = 2


class DemoConfig(BaseModel):
    """Settings of the demo pipeline; each field is a knob a RAG team would tune."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    chunk_size: int = Field(default=400, ge=20)
    """Maximum chunk size in columns (a character is 1, a CJK character 2)."""
    chunk_overlap: int = Field(default=80, ge=0)
    """Columns of trailing sentences repeated at the start of the next chunk."""
    top_k: int = Field(default=3, ge=1)
    """How many chunks are retrieved and returned as contexts."""
    retrieval: Literal["bm25", "hybrid"] = "bm25"
    """BM25 only, or BM25 fused with MiniLM cosine for English (needs `ragmeter[embeddings]`)."""
    abstain_threshold: float = Field(default=0.5, ge=0.0, le=1.0)
    """Minimum question coverage of the best sentence; below it the generator says it doesn't
    know. 0.5 separates the bundled eval set's answerable and out-of-scope cases."""
    hallucinate: bool = False
    """Make the generator alter numbers and names, add an invented sentence and never abstain."""
    corpus_dir: Path | None = None
    """A corpus directory with `en/*.md` and `zh/*.md`; the bundled one when None."""

    @model_validator(mode="after")
    def _check_overlap(self) -> DemoConfig:
        if self.chunk_overlap >= self.chunk_size:
            raise ValueError("chunk_overlap must be smaller than chunk_size")
        return self

    @classmethod
    def for_variant(cls, name: str) -> DemoConfig:
        """Configuration of a named variant (see `VARIANTS`).

        `weak-retrieval` uses tiny chunks and one context, so context recall drops;
        `hallucinating` retrieves like `default` but its generator invents facts.
        """
        if name == "default":
            return cls()
        if name == "weak-retrieval":
            return cls(chunk_size=60, chunk_overlap=0, top_k=1)
        if name == "hallucinating":
            return cls(hallucinate=True)
        raise ValueError(f"unknown demo variant {name!r}; choose one of {', '.join(VARIANTS)}")


def _turns(history: Sequence[Any] | None) -> list[tuple[str, str]]:
    """(role, content) pairs from dicts or objects with `role` and `content`."""
    out = []
    for turn in history or ():
        if isinstance(turn, Mapping):
            out.append((str(turn.get("role", "")), str(turn.get("content", ""))))
        else:
            out.append((str(getattr(turn, "role", "")), str(getattr(turn, "content", ""))))
    return out


def question_lang(question: str) -> Lang:
    """`zh` for any question with two or more Chinese characters, else `en`.

    Chinese questions often name English products ("Nimbus Notes 支持 Linux 吗？"), which a
    letter-share detector would call English.
    """
    return "zh" if len(CJK.findall(question)) >= 2 else detect_lang(question)


class DemoPipeline:
    """Retrieve chunks of the bundled handbook and answer extractively; thread-safe.

    The index is built on first use and kept for the life of the instance.
    """

    def __init__(self, config: DemoConfig | None = None) -> None:
        self.config = config or DemoConfig()
        self._retriever: Retriever | None = None
        self._lock = threading.Lock()

    @classmethod
    def variant(cls, name: str) -> DemoPipeline:
        """A pipeline for a named variant (see `VARIANTS`)."""
        return cls(DemoConfig.for_variant(name))

    @property
    def retriever(self) -> Retriever:
        """The search index (built lazily, once)."""
        if self._retriever is None:
            with self._lock:
                if self._retriever is None:
                    self._retriever = self._build()
        return self._retriever

    def _build(self) -> Retriever:
        cfg = self.config
        chunks = chunk_corpus(load_corpus(cfg.corpus_dir), cfg.chunk_size, cfg.chunk_overlap)
        return Retriever(chunks, mode=cfg.retrieval)

    def _terms(
        self, question: str, history: Sequence[Any] | None, *, bigrams: bool = True
    ) -> tuple[list[str], list[str]]:
        """Typo-corrected terms of the question, and new terms of the latest earlier turns."""
        retriever = self.retriever
        lang = question_lang(question)
        skip = question_words()
        own = retriever.correct(topical(terms(question, lang, bigrams=bigrams)), lang, skip)
        turns = _turns(history)
        users = [content for role, content in turns if role == "user"][-_HISTORY_TURNS:]
        replies = [content for role, content in turns if role == "assistant"][-1:]
        earlier: list[str] = []
        for turn in users + replies:
            turn_terms = retriever.correct(topical(terms(turn, lang, bigrams=bigrams)), lang, skip)
            earlier += [t for t in turn_terms if t not in own and t not in earlier]
        return own, earlier

    def query(
        self, question: str, history: Sequence[Any] | None = None
    ) -> tuple[dict[str, float], dict[str, float]]:
        """Weighted terms of the question, and of the conversation so far.

        Question terms weigh their idf; words the handbook lacks that name no topic (everyday
        words, typos) weigh less. Conversation terms weigh half their idf: they resolve
        coreference ("How much does it cost?" after a turn about the Team plan).
        """
        lang = question_lang(question)
        retriever = self.retriever
        own, earlier = self._terms(question, history, bigrams=False)
        weights = {}
        for t in own:
            known = retriever.knows(t, lang) or is_novel(t, lang, retriever)
            weights[t] = retriever.idf(t, lang) * (1.0 if known else _UNKNOWN_WEIGHT)
        context = {t: _HISTORY_WEIGHT * retriever.idf(t, lang) for t in earlier}
        return weights, context

    def retrieve(self, question: str, history: Sequence[Any] | None = None) -> list[Chunk]:
        """The `top_k` chunks for a question, best first."""
        return [hit.chunk for hit in self._search(question, history)]

    def _search(self, question: str, history: Sequence[Any] | None) -> list[Hit]:
        own, earlier = self._terms(question, history)
        # BM25 takes a bag of terms: the question's own count twice, over the history's.
        bag = own + own + list(dict.fromkeys(earlier))
        users = [c for r, c in _turns(history) if r == "user"]
        text = " ".join([*users[-1:], question])
        return self.retriever.search(bag, question_lang(question), self.config.top_k, text=text)

    def draft(self, question: str, history: Sequence[Any] | None = None) -> tuple[list[Hit], Draft]:
        """Retrieved hits and the generator's draft (with its abstention reason), undistorted."""
        lang = question_lang(question)
        hits = self._search(question, history)
        own, _ = self._terms(question, history, bigrams=False)
        novel = tuple(t for t in own if is_novel(t, lang, self.retriever))
        query, context = self.query(question, history)
        draft = generate(
            query,
            hits,
            lang,
            context=context,
            abstain_threshold=self.config.abstain_threshold,
            novel_terms=novel,
            always_answer=self.config.hallucinate,
        )
        return hits, draft

    def __call__(self, question: str, history: Sequence[Any] | None = None) -> dict[str, Any]:
        """Answer a question: `{"contexts": [chunk texts, best first], "answer": str}`."""
        hits, draft = self.draft(question, history)
        text = draft.answer
        if self.config.hallucinate:
            text = distort(text, question_lang(question), seed=question)
        return {"contexts": [hit.chunk.text for hit in hits], "answer": text}


_DEFAULTS: dict[str, DemoPipeline] = {}
_DEFAULTS_LOCK = threading.Lock()


def get_pipeline(variant: str = "default") -> DemoPipeline:
    """The shared pipeline instance of a variant (built once per process)."""
    with _DEFAULTS_LOCK:
        if variant not in _DEFAULTS:
            _DEFAULTS[variant] = DemoPipeline.variant(variant)
        return _DEFAULTS[variant]


def answer(question: str, history: Sequence[Any] | None = None) -> dict[str, Any]:
    """The default demo pipeline as a function: `--pipeline ragmeter.demo.pipeline:answer`."""
    return get_pipeline("default")(question, history)


def answer_weak_retrieval(question: str, history: Sequence[Any] | None = None) -> dict[str, Any]:
    """The `weak-retrieval` variant as a plain function."""
    return get_pipeline("weak-retrieval")(question, history)


def answer_hallucinating(question: str, history: Sequence[Any] | None = None) -> dict[str, Any]:
    """The `hallucinating` variant as a plain function."""
    return get_pipeline("hallucinating")(question, history)
