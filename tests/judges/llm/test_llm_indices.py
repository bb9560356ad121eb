"""Indices in judge replies: examples that cannot be copied into a wrong answer, and replies
counted from 1 read against the prompt's own 0-based labels when that is unambiguous."""

from __future__ import annotations

import re

import pytest

from ragmeter.clients import forget_output_modes
from ragmeter.judges.base import Sample
from ragmeter.judges.llm import LLMJudgeConfig, build_llm_judge
from ragmeter.judges.llm.context import counted_from_one, messages_for
from ragmeter.judges.llm.prompts import PROMPT_NAMES
from ragmeter.testing import FakeOpenAI, Scripted

ONE_CHUNK = Sample(
    case_id="one",
    question="Where is warehouse 1?",
    ground_truth="Warehouse 1 is in Leeds.",
    contexts=["Warehouse 1 is located in Leeds and has 4 loading docks."],
    answer="Warehouse 1 is in Leeds. It has 4 loading docks.",
)
THREE_CHUNKS = ONE_CHUNK.model_copy(
    update={"contexts": [*ONE_CHUNK.contexts, "Bakeries open early.", "Rivers flow east."]}
)
CLAIMS = {"claims": ["Warehouse 1 is in Leeds.", "Warehouse 1 has 4 loading docks."]}


@pytest.fixture(autouse=True)
def _fresh_modes():
    forget_output_modes()


def make_judge(server: FakeOpenAI, tmp_path):
    config = LLMJudgeConfig(
        model="judge-m", base_url=server.base_url, cache_path=tmp_path / "c.sqlite", graded=()
    )
    return build_llm_judge(config)


def verdict(claim: int, chunk: int | None) -> dict[str, object]:
    return {"claim_index": claim, "verdict": "supported", "chunk_index": chunk, "reason": "r"}


async def test_a_reply_counted_from_one_is_read_without_a_repair(tmp_path):
    # The first real-model run: "judge cited chunk indices [1] but there are only 1 chunks".
    script = Scripted(
        {
            "FaithfulnessClaims": CLAIMS,
            "FaithfulnessVerdicts": {"verdicts": [verdict(1, 1), verdict(2, 1)]},
        }
    )
    with FakeOpenAI(script) as server:
        judge = make_judge(server, tmp_path)
        result = (await judge.judge(ONE_CHUNK, ("faithfulness",)))["faithfulness"]
        await judge.aclose()
        log = server.chat_log()
    assert result.score == 1.0
    assert [c.chunk_index for c in result.evidence.claims] == [0, 0]
    assert [r.repair for r in log] == [False, False]


async def test_chunk_ratings_counted_from_one_are_shifted(tmp_path):
    ratings = [
        {"index": i, "useful": i == 1, "reason": "r"} for i in (1, 2, 3)
    ]  # the first chunk is the useful one
    with FakeOpenAI(Scripted({"ContextPrecisionVerdicts": {"chunks": ratings}})) as server:
        judge = make_judge(server, tmp_path)
        result = (await judge.judge(THREE_CHUNKS, ("context_precision",)))["context_precision"]
        await judge.aclose()
    assert result.score == 1.0 and result.calls == 1
    assert [c.useful for c in result.evidence.chunks] == [True, False, False]


async def test_ambiguous_indices_still_go_to_a_repair(tmp_path):
    # 0 and 3 with three chunks: counted from 0 or from 1? Neither reading fits: ask again.
    script = Scripted(
        {
            "FaithfulnessClaims": CLAIMS,
            "FaithfulnessVerdicts": [
                {"verdicts": [verdict(0, 0), verdict(1, 3)]},
                {"verdicts": [verdict(0, 0), verdict(1, 0)]},
            ],
        }
    )
    with FakeOpenAI(script) as server:
        judge = make_judge(server, tmp_path)
        result = (await judge.judge(THREE_CHUNKS, ("faithfulness",)))["faithfulness"]
        await judge.aclose()
        log = server.chat_log()
    assert result.score == 1.0
    assert [r.repair for r in log] == [False, False, True]


def test_counted_from_one_only_when_unambiguous():
    assert counted_from_one([1], 1)
    assert counted_from_one([2, None, 1], 2)
    assert not counted_from_one([1], 2)  # a valid 0-based reference
    assert counted_from_one([1], 2, likely=True)
    assert not counted_from_one([0, 2], 2)
    assert not counted_from_one([None], 1)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("prompt", [p for p in PROMPT_NAMES if p not in ("system", "repair")])
def test_examples_hold_no_index_a_model_could_copy(prompt, lang):
    sample = ONE_CHUNK.model_copy(update={"lang": lang})
    text = messages_for(sample, prompt, claims="0. x", n_claims=1, n_chunks=1, n_questions=3)
    body = text[1]["content"]
    assert not re.search(r'"(claim_index|chunk_index|index)": \d', body)
    assert 'chunk_indices": [0' not in body
    assert '"..."' not in body and '"……"' not in body
    if prompt in ("faithfulness_verify", "context_precision", "context_recall"):
        assert "0 到 0" in body if lang == "zh" else "0 to 0" in body
