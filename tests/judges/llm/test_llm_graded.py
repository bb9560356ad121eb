"""Graded verdicts: P(verdict) from the same call's token log-probabilities (issue 18)."""

from __future__ import annotations

import math

import pytest

from ragmeter.clients import forget_output_modes
from ragmeter.clients.logprobs import TokenLogprob, field_probabilities
from ragmeter.judges.base import Sample
from ragmeter.judges.llm import EmbeddingEndpoint, LLMJudgeConfig, build_llm_judge
from ragmeter.judges.llm.graded import soft_average_precision
from ragmeter.judges.rules import average_precision
from ragmeter.run._runner import evaluate
from ragmeter.testing import FakeOpenAI, Smart

SAMPLE = Sample(
    case_id="c1",
    question="Where is the warehouse and how many docks does it have?",
    ground_truth="The warehouse is in Leeds. It has 4 loading docks.",
    contexts=["The warehouse is in Leeds.", "It has 4 loading docks.", "Rivers flow east."],
    answer="The warehouse is in Leeds. It has 4 loading docks. It opened in 1990.",
)
LABELS = {"supported": "supported", "contradicted": "contradicted", "no": "not_verifiable"}


@pytest.fixture(autouse=True)
def _fresh_modes():
    forget_output_modes()


def tok(token: str, p: float = 1.0, *alts: tuple[str, float]) -> TokenLogprob:
    top = ((token, math.log(p)), *((t, math.log(q)) for t, q in alts))
    return TokenLogprob(token, math.log(p), top)


def test_value_in_its_own_token_or_after_the_quote():
    tokens = [
        tok('{"verdict": "'),
        tok("supported", 0.7, ("contr", 0.2), ("not", 0.1)),
        tok('"}, {"verdict":'),
        tok(' "contr', 0.6, (' "supported', 0.3), (' "xyz', 0.1)),
        tok('adicted"}'),
    ]
    text = "".join(t.token for t in tokens)
    found = field_probabilities(text, tokens, "verdict", LABELS)
    assert found[0] == pytest.approx({"supported": 0.7, "contradicted": 0.2, "no": 0.1})
    # an alternative naming no label is left out, the rest renormalised
    assert found[1] == pytest.approx({"supported": 0.3 / 0.9, "contradicted": 0.6 / 0.9, "no": 0})


def test_tokens_that_do_not_spell_the_reply_give_nothing():
    tokens = [tok('{"verdict": "supported"}')]
    assert field_probabilities('{"verdict": "contradicted"}', tokens, "verdict", LABELS) == []
    assert field_probabilities("{}", None, "verdict", LABELS) == []


def test_soft_average_precision_is_average_precision_on_hard_verdicts():
    for useful in ([1, 0, 1], [0, 0, 1], [1, 1, 1], [0, 0, 0]):
        assert soft_average_precision([float(u) for u in useful]) == pytest.approx(
            average_precision([bool(u) for u in useful])
        )
    assert soft_average_precision([0.9, 0.1]) > soft_average_precision([0.1, 0.9])


def config(server, path, **kw):
    return LLMJudgeConfig(
        model="judge-m",
        base_url=server.base_url,
        cache_path=path,
        embedding=EmbeddingEndpoint(model="emb", base_url=server.base_url, api_key_env=None),
        **kw,
    )


async def judge_once(server, path, **kw):
    judge = build_llm_judge(config(server, path, **kw))
    result = await judge.judge(SAMPLE)
    await judge.aclose()
    return result, judge


async def test_verdicts_carry_probabilities_and_graded_scores_use_them(tmp_path):
    sure = [0.9, 0.6, 0.8]  # P(chosen) at each verdict word of a reply, in reply order
    with FakeOpenAI(Smart(), confidence=lambda _r, n: sure[n % 3]) as server:
        hard, _ = await judge_once(server, tmp_path / "a.db", graded=())
        calls_hard = [
            (r.schema_name, r.prompt_tokens, r.completion_tokens) for r in server.chat_log()
        ]
        server.reset_log()
        graded, judge = await judge_once(
            server,
            tmp_path / "b.db",
            graded=("faithfulness", "context_recall", "context_precision"),
        )
        calls_graded = [
            (r.schema_name, r.prompt_tokens, r.completion_tokens) for r in server.chat_log()
        ]
    assert sorted(calls_graded) == sorted(calls_hard)  # no extra calls or tokens
    claims = hard["faithfulness"].evidence.claims
    assert [c.verdict for c in claims] == ["supported", "supported", "not_verifiable"]
    # P(supported): the chosen word's probability, or what its siblings share otherwise
    assert [c.confidence for c in claims] == pytest.approx([0.9, 0.6, 0.1])
    assert hard["faithfulness"].score == pytest.approx(2 / 3)
    assert graded["faithfulness"].score == pytest.approx((0.9 + 0.6 + 0.1) / 3)
    points = graded["context_recall"].evidence.points
    assert [p.confidence for p in points] == pytest.approx([0.9, 0.6])
    assert graded["context_recall"].score == pytest.approx(0.75)
    chunks = graded["context_precision"].evidence.chunks
    assert [c.score for c in chunks] == pytest.approx([0.9, 0.6, 0.2])
    assert graded["context_precision"].score == pytest.approx(
        soft_average_precision([0.9, 0.6, 0.2])
    )
    assert judge.fingerprint().params["graded"] == [
        "context_precision",
        "context_recall",
        "faithfulness",
    ]


@pytest.mark.parametrize(("mode", "said"), [("ignore", "returned no"), ("reject", "refused")])
def test_without_logprobs_verdicts_stay_0_1_and_the_run_says_so_once(tmp_path, mode, said):
    from ragmeter.cases import Case
    from ragmeter.pipeline import PrecomputedPipeline

    cases = [
        Case(
            id=f"c{i}",
            question=SAMPLE.question,
            ground_truth=SAMPLE.ground_truth,
            contexts=SAMPLE.contexts,
            answer=SAMPLE.answer,
        )
        for i in range(3)
    ]
    with FakeOpenAI(Smart(), logprobs=mode) as server:
        judge = build_llm_judge(config(server, tmp_path / "c.db", graded=("faithfulness",)))
        run = evaluate(cases, PrecomputedPipeline(), judge)
        log = server.chat_log()
    rejected = [r for r in log if r.fault == "rejected_logprobs"]
    if mode == "reject":  # only calls already in flight when the first refusal came back
        assert 1 <= len(rejected) <= 8  # the judge's concurrency
        assert all(not r.body.get("logprobs") for r in log[len(rejected) :] if r.status == 200)
    else:
        assert rejected == []
    for case in run.cases:
        faith = case.metrics["faithfulness"]
        assert faith.score == pytest.approx(2 / 3)
        assert all(c.confidence is None for c in faith.evidence.claims)
    notes = [w for w in run.run.warnings if "log-probabilities" in w]
    assert len(notes) == 1 and said in notes[0] and "verdicts are 0/1, not graded" in notes[0]


def test_tokens_that_wrap_the_reply_in_a_code_fence_are_read_where_it_lies():
    # llama.cpp returns the JSON alone while the tokens keep the model's Markdown fence
    tokens = [tok("```json\n"), tok('{"verdict": "'), tok("supported", 0.8, ("not", 0.2))]
    tokens += [tok('"}'), tok("\n```")]
    text = '{"verdict": "supported"}'
    assert field_probabilities(text, tokens, "verdict", LABELS) == [
        pytest.approx({"supported": 0.8, "contradicted": 0.0, "no": 0.2})
    ]
    twice = [*tokens, tok(text)]  # the reply spelled twice: its place is ambiguous
    assert field_probabilities(text, twice, "verdict", LABELS) == []


async def test_faithfulness_alone_is_graded_by_default(tmp_path):
    assert LLMJudgeConfig(model="m").graded == ("faithfulness",)
    sure = [0.9, 0.6, 0.8]
    with FakeOpenAI(Smart(), confidence=lambda _r, n: sure[n % 3]) as server:
        result, judge = await judge_once(server, tmp_path / "a.db")
    assert result["faithfulness"].score == pytest.approx((0.9 + 0.6 + 0.1) / 3)
    assert result["context_recall"].score == pytest.approx(1.0)  # 0/1 (graded measured lower)
    assert result["context_precision"].score == pytest.approx(1.0)  # 0/1 (not measured)
    assert judge.fingerprint().params["graded"] == ["faithfulness"]


def test_graded_metrics_come_from_the_config_file(tmp_path):
    from ragmeter.api import build_judge, resolve_settings

    config = tmp_path / "ragmeter.toml"
    with FakeOpenAI(Smart()) as server:
        for graded, expected in (
            ("[]", None),
            ('["faithfulness", "context_recall"]', ["context_recall", "faithfulness"]),
        ):
            config.write_text(
                f'[judge]\nkind = "openai"\nmodel = "m"\nbase_url = "{server.base_url}"\n'
                f'api_key_env = ""\ncache_dir = "{tmp_path}"\ngraded = {graded}\n'
            )
            judge = build_judge(resolve_settings(config))
            assert judge.fingerprint().params.get("graded") == expected
