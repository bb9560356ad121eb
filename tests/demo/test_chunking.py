from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from ragmeter.demo.chunking import chunk_corpus, chunk_document, text_width
from ragmeter.demo.corpus import load_corpus, parse_document

EN = parse_document(
    "en/a.md",
    "en",
    "# Alpha\n\nOne short sentence here. Another sentence follows it. A third one ends the "
    "paragraph.\n\nA new paragraph starts. It has two sentences.",
)
ZH = parse_document("zh/a.md", "zh", "# 标题\n\n第一句话在这里。第二句话跟着。第三句话结束段落。")


def test_load_corpus_reads_titles_and_languages(fixture_corpus: Path) -> None:
    docs = load_corpus(fixture_corpus)
    assert [d.id for d in docs] == sorted(d.id for d in docs)
    pricing = next(d for d in docs if d.id == "en/pricing.md")
    assert pricing.title == "Plans and pricing"
    assert not pricing.body.startswith("#")
    assert {d.lang for d in docs} == {"en", "zh"}


def test_text_width_counts_cjk_twice() -> None:
    assert text_width("abc") == 3
    assert text_width("笔记") == 4
    assert text_width("a笔") == 3


@pytest.mark.parametrize("size", [30, 60, 120, 1000])
def test_chunks_respect_size_and_offsets(size: int) -> None:
    for doc in (EN, ZH):
        chunks = chunk_document(doc, chunk_size=size, chunk_overlap=0)
        assert chunks
        for chunk in chunks:
            assert text_width(chunk.text) <= size
            assert doc.body[chunk.start : chunk.end] == chunk.text
            assert chunk.doc_id == doc.id and chunk.title == doc.title


def test_chunks_cover_every_sentence_without_overlap() -> None:
    chunks = chunk_document(EN, chunk_size=60, chunk_overlap=0)
    assert re.sub(r"\s", "", "".join(c.text for c in chunks)) == re.sub(r"\s", "", EN.body)
    for a, b in itertools.pairwise(chunks):
        assert a.end <= b.start


def test_whole_sentences_when_they_fit() -> None:
    for chunk in chunk_document(EN, chunk_size=60, chunk_overlap=0):
        assert chunk.text.endswith(".")


def test_overlap_repeats_trailing_sentences() -> None:
    chunks = chunk_document(EN, chunk_size=80, chunk_overlap=40)
    assert len(chunks) >= 3
    overlapping = [b for a, b in itertools.pairwise(chunks) if b.start < a.end]
    assert overlapping
    for chunk in overlapping:
        assert text_width(chunk.text) <= 80


def test_large_chunk_holds_whole_document() -> None:
    chunks = chunk_document(EN, chunk_size=10_000, chunk_overlap=100)
    assert len(chunks) == 1
    assert chunks[0].text == EN.body


def test_over_long_sentence_is_windowed_at_spaces() -> None:
    doc = parse_document("en/b.md", "en", "# B\n\n" + " ".join(["word"] * 40) + ".")
    chunks = chunk_document(doc, chunk_size=25, chunk_overlap=5)
    assert len(chunks) > 4
    for chunk in chunks:
        assert text_width(chunk.text) <= 25
        assert not chunk.text.startswith(" ")
        assert all(w in ("word", "word.") for w in chunk.text.split())


def test_invalid_sizes_are_refused() -> None:
    with pytest.raises(ValueError):
        chunk_document(EN, chunk_size=50, chunk_overlap=50)
    with pytest.raises(ValueError):
        chunk_document(EN, chunk_size=0)


def test_chunk_corpus_keeps_languages(fixture_corpus: Path) -> None:
    chunks = chunk_corpus(load_corpus(fixture_corpus), chunk_size=120, chunk_overlap=20)
    zh = [c for c in chunks if c.lang == "zh"]
    assert zh and all(text_width(c.text) <= 120 for c in zh)
