"""`ragmeter generate`: an eval set from a folder of documents (extractive mode)."""

import re
from collections import Counter
from pathlib import Path

import pytest

from ragmeter._exceptions import ConfigError
from ragmeter.cases import load_cases
from ragmeter.cases.lint import lint_cases
from ragmeter.demo.corpus import DATA_DIR
from ragmeter.generate import (
    Candidate,
    chunk_documents,
    follow_up,
    generate_extractive,
    html_to_text,
    load_documents,
    quotas,
    write_generated,
)
from ragmeter.generate.templates import Casing
from ragmeter.vary import ABSTENTIONS

CORPUS = DATA_DIR / "corpus"


@pytest.fixture(scope="module")
def demo_docs():
    docs, skipped = load_documents(CORPUS)
    assert not skipped
    return docs


@pytest.fixture(scope="module")
def demo_set(demo_docs):
    return generate_extractive(demo_docs, n=60, seed=0)


def _candidate(sentence: str, lang: str, title: str = "Trash") -> Candidate:
    from ragmeter.demo.chunking import Chunk

    chunk = Chunk("x.md", title, lang, sentence, 0, len(sentence))  # type: ignore[arg-type]
    return Candidate("x.md#0", chunk, sentence, 1.0)


def test_documents_of_every_type_are_read_and_the_rest_named(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.md").write_text(
        "# Trash\n\nDeleted notes stay **30 days** in the [trash](https://x.example).\n\n"
        "```\ncode is dropped\n```\n",
        encoding="utf-8",
    )
    (tmp_path / "sub" / "b.txt").write_text(
        "回收站中的笔记会保留 30 天，之后永久删除。", encoding="utf-8"
    )
    (tmp_path / "c.html").write_text(
        "<html><head><title>Backups</title><style>p{color:red}</style></head><body>"
        "<h1>Backups</h1><p>Snapshots are taken every 4 hours.</p><script>var x=1;</script>"
        "<p>They are kept for 30 days.</p></body></html>",
        encoding="utf-8",
    )
    (tmp_path / "d.pdf").write_bytes(b"%PDF-1.4")
    (tmp_path / "e.png").write_bytes(b"\x89PNG")
    (tmp_path / ".hidden.md").write_text("# Hidden\n\nNot read.", encoding="utf-8")
    docs, skipped = load_documents(tmp_path)
    by_id = {doc.id: doc for doc in docs}
    assert sorted(by_id) == ["a.md", "c.html", "sub/b.txt"]
    assert by_id["a.md"].title == "Trash" and by_id["a.md"].lang == "en"
    assert by_id["a.md"].body == "Deleted notes stay 30 days in the trash."
    assert by_id["sub/b.txt"].lang == "zh" and by_id["sub/b.txt"].title == "b"
    assert by_id["c.html"].title == "Backups"
    assert "color" not in by_id["c.html"].body and "var x" not in by_id["c.html"].body
    assert "Snapshots are taken every 4 hours.\n\nThey are kept" in by_id["c.html"].body
    reasons = {s.path: s.reason for s in skipped}
    assert "PDF" in reasons["d.pdf"] and "not a document type" in reasons["e.png"]
    forced, _ = load_documents(tmp_path, "zh")
    assert {doc.lang for doc in forced} == {"zh"}
    with pytest.raises(ConfigError, match="not a folder"):
        load_documents(tmp_path / "a.md")


def test_html_text_keeps_blocks_apart_and_unescapes() -> None:
    title, body = html_to_text(
        "<title>A &amp; B</title><ul><li>one &lt;x&gt;</li><li>two</li></ul>"
    )
    assert title == "A & B"
    assert body == "one <x>\n\ntwo"


def test_quotas_split_categories_and_languages_and_add_up() -> None:
    counts = quotas(40, {"en": 100, "zh": 60})
    assert sum(counts.values()) == 40
    assert counts[("normal", "en")] > counts[("normal", "zh")] > counts[("typo", "zh")] > 0
    assert counts[("out_of_scope", "en")] >= 1 and counts[("out_of_scope", "zh")] >= 1
    with pytest.raises(ConfigError):
        quotas(0, {"en": 1})


def test_the_demo_handbook_gives_every_category_in_both_languages(demo_set, demo_docs) -> None:
    cases = demo_set.cases
    assert len(cases) == 60
    assert Counter((c.category, c.lang) for c in cases) == {
        ("normal", "en"): 19,
        ("normal", "zh"): 14,
        ("typo", "en"): 7,
        ("typo", "zh"): 5,
        ("multi_turn", "en"): 4,
        ("multi_turn", "zh"): 2,
        ("out_of_scope", "en"): 5,
        ("out_of_scope", "zh"): 4,
    }
    chunks = dict(chunk_documents(demo_docs))
    for case in cases:
        meta = case.metadata["generate"]
        assert meta["mode"] == "extractive" and meta["seed"] == 0
        if case.category == "out_of_scope":
            assert not case.reference_contexts
            assert case.ground_truth == ABSTENTIONS[case.lang]
            continue
        chunk = chunks[meta["chunk_id"]]
        assert meta["source"] == chunk.doc_id and case.metadata["source"] == [chunk.doc_id]
        assert case.reference_contexts == [chunk.text]
        assert case.ground_truth in chunk.text  # the sentence, verbatim
        assert case.lang == chunk.lang
        if case.category == "multi_turn":
            first, answer = case.history
            assert first.role == "user" and answer.role == "assistant"
            assert answer.content in chunks[meta["first_turn_chunk_id"]].text
            assert meta["subject"] not in case.question
            assert meta["subject"] in meta["clean_question"]
            assert re.search(r"\b(?:it|they)\b|它", case.question, re.I)
        if case.category == "typo":
            assert case.question != meta["clean_question"]
            assert "→" in meta["typo"] or meta["typo"].startswith("dropped")
    # many documents, not a few
    assert len({c.metadata["generate"].get("source") for c in cases}) > 40


def test_the_set_lints_without_errors_or_duplicates(demo_set) -> None:
    report = lint_cases(demo_set.cases)
    assert report.errors == []
    assert report.findings == []
    assert len({c.ground_truth for c in demo_set.cases if c.category != "out_of_scope"}) == len(
        [c for c in demo_set.cases if c.category != "out_of_scope"]
    )


def test_the_same_seed_gives_the_same_file_and_another_seed_another(
    demo_docs, demo_set, tmp_path: Path
) -> None:
    first = write_generated(demo_set.cases, tmp_path / "a.jsonl")
    again = write_generated(
        generate_extractive(demo_docs, n=60, seed=0).cases, tmp_path / "b.jsonl"
    )
    assert first.read_bytes() == again.read_bytes()
    other = generate_extractive(demo_docs, n=60, seed=1).cases
    assert [c.question for c in other] != [c.question for c in demo_set.cases]
    loaded = load_cases(first)
    assert [c.id for c in loaded] == [c.id for c in demo_set.cases]
    assert len(first.read_text(encoding="utf-8").splitlines()) == 60  # one case per line
    with pytest.raises(ConfigError, match="JSONL"):
        write_generated(demo_set.cases, tmp_path / "a.json")


def test_out_of_scope_questions_the_documents_cover_are_left_out(tmp_path: Path) -> None:
    (tmp_path / "running.md").write_text(
        "# Running\n\n"
        + " ".join(
            f"A marathon is long, and runner number {i} trains for the marathon distance."
            for i in range(1, 30)
        ),
        encoding="utf-8",
    )
    docs, _ = load_documents(tmp_path)
    result = generate_extractive(docs, n=200, seed=0)
    asked = {c.question for c in result.cases if c.category == "out_of_scope"}
    assert "How long is a marathon?" not in asked
    assert "How long is a marathon?" in next(iter(result.skipped.values()))
    assert len(asked) >= 10


@pytest.mark.parametrize(
    ("first", "second", "lang", "history", "question"),
    [
        (
            "The Pro plan costs $8 per member per month.",
            "The Pro plan is designed for small groups of up to 10 members.",
            "en",
            "How much does the Pro plan cost per member per month?",
            "Is it designed for small groups of up to 10 members?",
        ),
        (
            "Service credits are applied to the next invoice.",
            "Service credits must be requested within 30 days after the month ends.",
            "en",
            "Are service credits applied to the next invoice?",
            "Within how many days must they be requested after the month ends?",
        ),
        (
            "Black is a PEP 8 compliant opinionated formatter with its own style.",
            "Black supports formatting Jupyter Notebooks (.ipynb files) natively.",
            "en",
            "What is Black?",
            "Does it support formatting Jupyter Notebooks natively?",
        ),
        (
            "Larkspur Labs 于 2016 年在美国俄勒冈州波特兰创立。",
            "Larkspur Labs 约有 240 名员工。",
            "zh",
            "Larkspur Labs 于哪一年在美国俄勒冈州波特兰创立？",
            "它约有多少名员工？",
        ),
        (
            "桌面应用会在后台自动更新。",
            "桌面应用支持离线编辑，重新联网后自动同步。",
            "zh",
            "桌面应用会在后台自动更新吗？",
            "它支持离线编辑吗？",
        ),
    ],
)
def test_a_follow_up_names_the_shared_subject_with_a_pronoun(
    first, second, lang, history, question
) -> None:
    casing = Casing(["The docs say Black formats code, and Larkspur Labs writes them."])
    pair = follow_up(_candidate(first, lang), _candidate(second, lang), casing)
    assert pair is not None
    assert (pair.first_question.text, pair.question) == (history, question)


@pytest.mark.parametrize(
    ("first", "second", "lang"),
    [
        # not the same subject
        (
            "Enterprise contracts start at 50 seats and a one-year term.",
            "Enterprise customers are invoiced annually, with payment due in 30 days.",
            "en",
        ),
        # "What is it?" is no follow-up a person would ask
        (
            "Black supports formatting Jupyter Notebooks natively.",
            "Black is a PEP 8 compliant opinionated formatter with its own style.",
            "en",
        ),
        # "重置" goes on as "重置链接"
        ("重置密码需要先登录邮箱才能完成操作。", "重置链接在 60 分钟内有效，只能使用一次。", "zh"),
    ],
)
def test_no_follow_up_when_the_subject_is_unclear(first, second, lang) -> None:
    assert follow_up(_candidate(first, lang), _candidate(second, lang)) is None
