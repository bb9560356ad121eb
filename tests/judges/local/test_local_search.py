"""The window search picks exactly what a scan of every window (the former code) picks."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from ragmeter.demo import demo_cases_path
from ragmeter.judges.local.alignment import ContextIndex, align
from ragmeter.judges.local.features import numbers, statement_keys
from ragmeter.judges.local.settings import LocalSettings
from ragmeter.judges.local.vectors import Vectors
from ragmeter.text import Lang, split_sentences

SETTINGS = LocalSettings()


def corpus(lang: Lang) -> list[str]:
    folder = demo_cases_path().parent / "corpus" / lang
    return [p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.md"))[:6]]


def fake_vector(text: str) -> np.ndarray:
    """A unit vector fixed by the text, float32 like MiniLM's."""
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")
    row = np.random.default_rng(seed).standard_normal(16).astype(np.float32)
    return row / np.float32(np.linalg.norm(row))


def scan(statement: str, index: ContextIndex, chunk: int | None) -> tuple | None:
    """The former selection: every window scored in order, replaced only by a higher score."""
    keys, nums = statement_keys(statement, index.lang), numbers(statement)
    total = max(1, len(keys) + len(nums))
    vector = index.vectors.get(statement)
    best, sims = None, []
    for i, w in enumerate(index.windows):
        if chunk is not None and w.chunk != chunk:
            continue
        # a window holds a number by its value or by what its dates imply (2021-03-14 holds
        # "2021"); a span of years (the 1910s) by any year in it
        held = {v for m in w.numbers for v in (m.value, *m.implied)}
        found = sum(1 for n in nums if held & set(n.lookups))
        lexical = (len(keys & w.keys) + found) / total
        sim = index.vectors.cosine(vector, index.vectors.mean(w.parts))
        if sim is not None:
            sims.append(sim)
        if lexical >= SETTINGS.lexical_sufficient:
            sim = None
        ranked = SETTINGS.blend(lexical, sim) + (SETTINGS.pair_margin if len(w.parts) == 1 else 0)
        if best is None or ranked > best[0] + 1e-9:
            best = (ranked, i, lexical, sim)
    if best is None:
        return None
    return best[1], best[2], best[3], max(sims) if sims else None


def statements(contexts: list[str], lang: Lang) -> list[str]:
    sentences = [s for c in contexts for s in split_sentences(c, lang)]
    words = " ".join(sentences[::7]).split()
    mixed = [" ".join(words[i : i + 9]) for i in range(0, min(len(words), 400), 9)]
    return sentences[::3] + mixed + ["Nothing here matches at all."]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("embedded", [False, True])
def test_best_window_matches_a_full_scan(lang: Lang, embedded: bool) -> None:
    docs = corpus(lang)
    contexts = [*docs, docs[0]]  # a repeated chunk: every window of it ties with an earlier one
    index = ContextIndex(contexts, lang)
    probes = statements(docs, lang)
    if embedded:
        texts = probes + [s for c in contexts for s in split_sentences(c, lang)][::2]
        index.vectors = Vectors({t: fake_vector(t) for t in texts if t.strip()})
    assert probes
    for statement in probes:
        for chunk in (None, 0, len(contexts) - 1):
            pick = index.table.best(statement, index.vectors, SETTINGS, chunk)
            expected = scan(statement, index, chunk)
            assert expected is not None and pick is not None
            assert (pick.index, pick.lexical, pick.similarity, pick.best_similarity) == expected


def test_candidates_are_the_best_single_sentences_in_order() -> None:
    index = ContextIndex(corpus("en"), "en")
    singles = [i for i, w in enumerate(index.windows) if len(w.parts) == 1]
    for statement in statements(corpus("en"), "en")[:40]:
        scores = index.lexical(statement).tolist()
        for k in (1, 2, 5, len(singles) + 3):
            order = sorted(singles, key=lambda i: -scores[i])[:k]
            assert index.candidates(statement, k) == [index.windows[i].text for i in order]


def test_a_chunk_without_sentences_has_no_window() -> None:
    index = ContextIndex(["Refunds take 14 days.", "   "], "en")
    found = align("Refunds take 14 days.", index, SETTINGS, chunk=1)
    assert found.window is None
    assert found.reason == "there is no context to check it against"
    assert align("Refunds take 14 days.", index, SETTINGS, chunk=0).label == "supported"
