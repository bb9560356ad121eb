"""The linear sentence splitter against the previous (quadratic) one, kept here as an oracle."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragmeter import text as t
from ragmeter.demo import demo_cases_path
from ragmeter.text import Lang, sentence_spans, split_sentences

DEMO_CORPUS = Path(t.__file__).parent / "demo" / "data" / "corpus"
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
# (file, fields holding text or lists of texts) read from the shared data, when present
SHARED_FIELDS = {
    "expertqa/expertqa_claims_rand_test.jsonl": ("answer", "claim", "revised_claim"),
    "alce_utility/alce_human_utility.jsonl": ("answer",),
    "halluqa/halluqa.jsonl": ("correct_answers", "wrong_answers", "source_evidence"),
    "halueval/halueval_qa_first300_pairs.jsonl": ("knowledge", "answer"),
    "halueval/halueval_general_human_sample.jsonl": ("chatgpt_response",),
    "summedits/summedits_sample.jsonl": ("doc", "summary"),
    "cmrc2018/cmrc2018_dev_sample.jsonl": ("context",),
    "mtrag_human_eval/mtragun_reference_tasks_sample.jsonl": ("reference_answer",),
    "begin/begin_dev_wow_cmu_sample.jsonl": ("knowledge", "response"),
}
PER_FILE = 100


def _old_en_cuts(text: str, start: int, end: int) -> list[int]:
    cuts = []
    for match in t._EN_END_RE.finditer(text, start, end):
        rest = text[match.end() : end].lstrip()
        if not rest:
            continue
        if rest[0].islower() or t._BULLET_RE.fullmatch(text[start : match.end()] + " "):
            continue
        word = re.search(r"([A-Za-z.]+)\.$", text[start : match.start() + 1])
        if text[match.start()] == "." and word:
            token = word.group(1).lower().rstrip(".")
            if token in t._ABBREVIATIONS or (len(token) == 1 and token.isalpha()):
                continue
        cuts.append(match.end())
    return cuts


def old_sentence_spans(text: str, lang: Lang | None = None) -> list[tuple[int, int]]:
    """`sentence_spans` as it was before the linear `_en_cuts`."""
    lang = lang or t.detect_lang(text)
    spans: list[tuple[int, int]] = []
    for b_start, b_end in t._blocks(text):
        cuts = set(_old_en_cuts(text, b_start, b_end))
        if lang == "zh" or t._CJK_RE.search(text, b_start, b_end):
            cuts.update(m.end() for m in t._ZH_END_RE.finditer(text, b_start, b_end))
        prev = b_start
        for cut in [*sorted(cuts), b_end]:
            span = t._strip_span(text, prev, cut)
            if span:
                spans.append(span)
            prev = cut
    return spans


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def demo_texts() -> list[str]:
    docs = [p.read_text(encoding="utf-8") for p in sorted(DEMO_CORPUS.glob("*/*.md"))]
    cases = [json.loads(line) for line in demo_cases_path().read_text("utf-8").splitlines()]
    fields = [c.get(k, "") for c in cases for k in ("question", "ground_truth")]
    return [*docs, *(" ".join(d.split()) for d in docs), *fields]


def shared_texts() -> list[str]:
    out: list[str] = []
    for name, fields in SHARED_FIELDS.items():
        path = SHARED_DATA / name
        if not path.exists():
            continue
        with path.open(encoding="utf-8") as lines:
            for _, line in zip(range(PER_FILE), lines, strict=False):
                row = json.loads(line)
                out.extend(s for field in fields for s in _strings(row.get(field)))
    return out


def fuzz_texts(n: int = 3000, seed: int = 7) -> list[str]:
    """Short random strings of sentence ends, markers, abbreviations and odd spaces."""
    alphabet = [
        *"aB. !?\n  1)2(-*#、。！”\")", "e.g.", "Dr.", " i.e. ", "No.", "U.S.", "\u3000",
        "\xa0", "中文", "1. ", "a) ", "  - ", "## ", "8.50", "…", "；",
    ]  # fmt: skip
    rng = random.Random(seed)
    return ["".join(rng.choices(alphabet, k=rng.randint(0, 40))) for _ in range(n)]


def _assert_same(texts: list[str]) -> None:
    assert texts
    for text in texts:
        for lang in (None, "en", "zh"):
            assert sentence_spans(text, lang) == old_sentence_spans(text, lang), (text, lang)


def test_matches_the_old_splitter_on_the_demo_corpus_and_eval_set() -> None:
    _assert_same(demo_texts())


@pytest.mark.skipif(not SHARED_DATA.exists(), reason="shared data sets are not present")
def test_matches_the_old_splitter_on_the_shared_data_sets() -> None:
    texts = shared_texts()
    assert len(texts) > 1000
    _assert_same(texts)


def test_matches_the_old_splitter_on_random_edge_cases() -> None:
    _assert_same(fuzz_texts())


def test_one_long_paragraph_splits_like_its_sentences() -> None:
    sentence = "Refunds take 14 days, e.g. for Dr. Smith. The fee is 8.50 dollars! Is it ok?"
    text = " ".join([sentence] * 2000)
    parts = split_sentences(text)
    assert len(parts) == 6000
    assert parts[:3] == [
        "Refunds take 14 days, e.g. for Dr. Smith.",
        "The fee is 8.50 dollars!",
        "Is it ok?",
    ]


def test_a_list_marker_is_not_a_sentence_on_its_own() -> None:
    assert split_sentences("1. First step. Then more.") == ["First step.", "Then more."]
    assert split_sentences("a. Alpha here") == ["Alpha here"]
