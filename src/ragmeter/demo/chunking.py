"""Sentence-aware chunking of demo documents.

Sizes are measured in display columns: one per character, two per CJK character (the width a
terminal gives it). A 400-column chunk thus holds about 400 English characters or 200 Chinese
ones, which carry roughly the same amount of information.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragmeter.text import sentence_spans

from .corpus import Document

if TYPE_CHECKING:
    from ragmeter.text import Lang


@dataclass(frozen=True)
class Chunk:
    """A contiguous slice of a document's body."""

    doc_id: str
    """Id of the source document, e.g. `en/pricing.md`."""
    title: str
    """Title of the source document."""
    lang: Lang
    """`en` or `zh`."""
    text: str
    """The chunk text, exactly `body[start:end]`."""
    start: int
    """Offset of the first character in the document body."""
    end: int
    """Offset just past the last character in the document body."""


def text_width(text: str) -> int:
    """Display width: CJK (East Asian wide/full-width) characters count as two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _window_spans(
    body: str, start: int, end: int, size: int, overlap: int
) -> list[tuple[int, int]]:
    """Cut an over-long sentence into windows of at most `size` columns, at spaces if possible."""
    windows: list[tuple[int, int]] = []
    pos = start
    while pos < end:
        stop, width = pos, 0
        while stop < end and width + text_width(body[stop]) <= size:
            width += text_width(body[stop])
            stop += 1
        stop = max(stop, pos + 1)
        if stop < end:
            space = body.rfind(" ", pos + 1, stop)
            if space > pos:
                stop = space
        windows.append((pos, stop))
        if stop >= end:
            break
        back, width = stop, 0
        while back > pos + 1 and width + text_width(body[back - 1]) <= overlap:
            back -= 1
            width += text_width(body[back])
        if overlap and back < stop:
            space = body.find(" ", back, stop)
            back = space + 1 if 0 <= space < stop - 1 else back
        pos = back if back > pos else stop
        while pos < end and body[pos].isspace():
            pos += 1
    return windows


def chunk_document(doc: Document, chunk_size: int, chunk_overlap: int = 0) -> list[Chunk]:
    """Split a document into chunks of whole sentences, each at most `chunk_size` columns.

    Consecutive chunks share trailing sentences worth at most `chunk_overlap` columns. A sentence
    longer than `chunk_size` is cut into word-aligned windows overlapping by `chunk_overlap`.
    """
    if chunk_size < 1:
        raise ValueError("chunk_size must be at least 1")
    if not 0 <= chunk_overlap < chunk_size:
        raise ValueError("chunk_overlap must be between 0 and chunk_size - 1")
    body = doc.body
    spans: list[tuple[int, int]] = []
    current: list[tuple[int, int]] = []

    def width_of(group: list[tuple[int, int]]) -> int:
        return text_width(body[group[0][0] : group[-1][1]]) if group else 0

    for start, end in sentence_spans(body, doc.lang):
        if text_width(body[start:end]) > chunk_size:
            if current:
                spans.append((current[0][0], current[-1][1]))
                current = []
            spans.extend(_window_spans(body, start, end, chunk_size, chunk_overlap))
            continue
        if current and width_of([*current, (start, end)]) > chunk_size:
            spans.append((current[0][0], current[-1][1]))
            carried: list[tuple[int, int]] = []
            for sent in reversed(current):
                candidate = [sent, *carried]
                if width_of([*candidate, (start, end)]) > chunk_size:
                    break
                if width_of(candidate) > chunk_overlap:
                    break
                carried = candidate
            current = carried
        current.append((start, end))
    if current:
        spans.append((current[0][0], current[-1][1]))
    return [
        Chunk(doc.id, doc.title, doc.lang, body[s:e], s, e) for s, e in spans if body[s:e].strip()
    ]


def chunk_corpus(docs: list[Document], chunk_size: int, chunk_overlap: int = 0) -> list[Chunk]:
    """Chunk every document, in corpus order."""
    return [chunk for doc in docs for chunk in chunk_document(doc, chunk_size, chunk_overlap)]
