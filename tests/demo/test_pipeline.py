from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from ragmeter.demo import VARIANTS, DemoConfig, DemoPipeline
from ragmeter.demo.generator import ABSTENTIONS
from ragmeter.demo.hallucination import distort
from ragmeter.text import split_sentences


def _pipeline(corpus: Path, variant: str = "default") -> DemoPipeline:
    config = DemoConfig.for_variant(variant).model_copy(update={"corpus_dir": corpus})
    return DemoPipeline(config)


@pytest.fixture(scope="module")
def default(fixture_corpus: Path) -> DemoPipeline:
    return _pipeline(fixture_corpus)


def test_answers_from_the_right_chunk(default: DemoPipeline) -> None:
    out = default("How much does the Pro plan cost?", [])
    assert set(out) == {"contexts", "answer"}
    assert len(out["contexts"]) == default.config.top_k
    assert "$8" in out["contexts"][0]
    assert "$8" in out["answer"]
    for sentence in split_sentences(out["answer"]):
        assert any(sentence in context for context in out["contexts"])


def test_chinese_question_gets_chinese_answer(default: DemoPipeline) -> None:
    out = default("如何开启双重验证？", [])
    assert "双重验证" in out["answer"]
    assert all(re.search(r"[\u4e00-\u9fff]", c) for c in out["contexts"])


def test_typo_question_is_answered(default: DemoPipeline) -> None:
    out = default("How mch does the Pro plna cost?", [])
    assert "$8" in out["answer"]


def test_history_resolves_coreference(default: DemoPipeline) -> None:
    history = [
        {"role": "user", "content": "Tell me about the Team plan."},
        {"role": "assistant", "content": "The Team plan adds shared notebooks."},
    ]
    with_history = default("How much does it cost?", history)
    assert "$12" in with_history["answer"]


@pytest.mark.parametrize(
    "question", ["What is the capital of France?", "Who won the 1998 football world cup?"]
)
def test_out_of_scope_abstains(default: DemoPipeline, question: str) -> None:
    assert default(question, [])["answer"] == ABSTENTIONS["en"]


def test_out_of_scope_chinese_abstains(default: DemoPipeline) -> None:
    assert default("法国的首都是哪里？", [])["answer"] == ABSTENTIONS["zh"]


def test_variants(fixture_corpus: Path) -> None:
    assert VARIANTS == ("default", "weak-retrieval", "hallucinating")
    weak = _pipeline(fixture_corpus, "weak-retrieval")
    out = weak("How much does the Pro plan cost?", [])
    assert len(out["contexts"]) == 1
    assert len(out["contexts"][0]) <= 60
    with pytest.raises(ValueError, match="unknown demo variant"):
        DemoConfig.for_variant("nope")


def test_hallucinating_alters_facts_deterministically(fixture_corpus: Path) -> None:
    a = _pipeline(fixture_corpus, "hallucinating")
    b = _pipeline(fixture_corpus, "hallucinating")
    question = "How much does the Pro plan cost?"
    out = a(question, [])
    assert out == b(question, [])
    assert (
        out["contexts"]
        == DemoPipeline(DemoConfig(corpus_dir=fixture_corpus))(question, [])["contexts"]
    )
    assert "$8 " not in out["answer"]
    context_numbers = set(re.findall(r"\d+", " ".join(out["contexts"])))
    assert set(re.findall(r"\d+", out["answer"])) - context_numbers


def test_distort() -> None:
    text = "The Team plan costs $12 per month with a 14-day trial."
    once = distort(text, "en", seed="q")
    assert once == distort(text, "en", seed="q")
    assert "Enterprise plan" in once
    assert "$12 " not in once and "14-day" not in once
    assert len(once) > len(text)
    zh = distort("团队版每月 12 美元。", "zh", seed="q")
    assert "企业版" in zh and "12 " not in zh
    assert re.search(r"[\u4e00-\u9fff]。$", zh)


def test_config_validation() -> None:
    with pytest.raises(ValidationError):
        DemoConfig(chunk_size=100, chunk_overlap=100)
    with pytest.raises(ValidationError):
        DemoConfig(retrieval="dense")  # type: ignore[arg-type]


def test_history_accepts_turn_objects(default: DemoPipeline) -> None:
    from ragmeter.judges.base import Turn

    turns = [Turn(role="user", content="Tell me about the Team plan.")]
    assert "$12" in default("How much does it cost?", turns)["answer"]


def test_public_api() -> None:
    import ragmeter.demo as demo

    assert len(set(demo.__all__)) == len(demo.__all__)
    assert all(hasattr(demo, name) for name in demo.__all__)
    assert demo.demo_cases_path().name == "evalset.jsonl"
    assert demo.demo_corpus_dir().name == "corpus"


def test_draft_explains_abstention(default: DemoPipeline) -> None:
    _, draft = default.draft("Who won the 1998 football world cup?")
    assert draft.abstained
    assert "never mentions" in draft.reason and "football" in draft.reason
    _, draft = default.draft("How much does the Pro plan cost?")
    assert not draft.abstained and draft.reason == ""
