from __future__ import annotations

from pathlib import Path

import pytest

from ragmeter.demo.chunking import chunk_corpus
from ragmeter.demo.corpus import load_corpus
from ragmeter.demo.retrieval import Retriever, terms


@pytest.fixture(scope="module")
def retriever(fixture_corpus: Path) -> Retriever:
    return Retriever(chunk_corpus(load_corpus(fixture_corpus), chunk_size=200, chunk_overlap=0))


def _top_doc(retriever: Retriever, question: str, lang: str) -> str:
    hits = retriever.search(terms(question, lang), lang, top_k=2)
    return hits[0].chunk.doc_id


def test_one_index_per_language(retriever: Retriever) -> None:
    assert retriever.languages == ["en", "zh"]


@pytest.mark.parametrize(
    ("question", "doc"),
    [
        ("如何开启双重验证？", "zh/security.md"),
        ("离线模式保留多少条笔记？", "zh/sync.md"),
        ("笔记可以导出成什么格式？", "zh/export.md"),
    ],
)
def test_chinese_question_retrieves_chinese_chunks(
    retriever: Retriever, question: str, doc: str
) -> None:
    hits = retriever.search(terms(question, "zh"), "zh", top_k=3)
    assert all(hit.chunk.lang == "zh" for hit in hits)
    assert hits[0].chunk.doc_id == doc


def test_english_question(retriever: Retriever) -> None:
    assert _top_doc(retriever, "How do I export a notebook as PDF?", "en") == "en/export.md"
    assert _top_doc(retriever, "Is two-factor authentication available?", "en") == (
        "en/security.md"
    )


def test_scores_are_ranked(retriever: Retriever) -> None:
    hits = retriever.search(terms("offline notes device", "en"), "en", top_k=4)
    assert len(hits) == 4
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_typos_are_corrected_against_the_vocabulary(retriever: Retriever) -> None:
    corrected = retriever.correct(terms("encrytped exprot", "en"), "en")
    assert corrected == terms("encrypted export", "en")
    # Words far from anything indexed are left alone.
    assert retriever.correct(["salesforc"], "en") == ["salesforc"]


def test_idf_is_highest_for_unknown_terms(retriever: Retriever) -> None:
    (export,) = terms("export", "en")
    (note,) = terms("notes", "en")
    assert retriever.idf("zzzz", "en") > retriever.idf(export, "en") > retriever.idf(note, "en")


def test_hybrid_without_embedder_falls_back_to_bm25(
    fixture_corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ragmeter.embeddings as embeddings

    monkeypatch.setattr(embeddings, "load_local_embedder", lambda *a, **k: None, raising=False)
    chunks = chunk_corpus(load_corpus(fixture_corpus), chunk_size=200, chunk_overlap=0)
    hybrid = Retriever(chunks, mode="hybrid")
    assert not hybrid.dense_available
    query = terms("export notebook PDF", "en")
    assert [h.chunk for h in hybrid.search(query, "en", 3)] == [
        h.chunk for h in Retriever(chunks).search(query, "en", 3)
    ]


@pytest.mark.slow
def test_hybrid_fuses_dense_ranking_when_embedder_installed(fixture_corpus: Path) -> None:
    from ragmeter.embeddings import load_local_embedder

    if load_local_embedder() is None:
        pytest.skip("local MiniLM embedder not installed")
    chunks = chunk_corpus(load_corpus(fixture_corpus), chunk_size=200, chunk_overlap=0)
    hybrid = Retriever(chunks, mode="hybrid")
    assert hybrid.dense_available
    question = "How can I download my notebooks as files?"
    hits = hybrid.search(terms(question, "en"), "en", top_k=2, text=question)
    assert hits[0].chunk.doc_id == "en/export.md"
    # Chinese stays keyword-only.
    zh = hybrid.search(terms("如何开启双重验证？", "zh"), "zh", top_k=1, text="如何开启双重验证？")
    assert zh[0].chunk.doc_id == "zh/security.md"
