"""Verifier mode: claims x evidence windows, one Yes/No token each, scored by P(Yes) (issue 18)."""

from __future__ import annotations

import math
from itertools import pairwise

import pytest

from ragmeter.judges.base import Sample
from ragmeter.judges.llm import EmbeddingEndpoint, LLMJudgeConfig, build_llm_judge
from ragmeter.judges.llm.verifier import evidence_windows, yes_probability
from ragmeter.llm import forget_output_modes
from ragmeter.llm.cost import count_tokens
from ragmeter.llm.logprobs import TokenLogprob
from ragmeter.runner import evaluate
from ragmeter.testing import FakeOpenAI, Smart

SAMPLE = Sample(
    case_id="c1",
    question="Where is the warehouse and how many docks does it have?",
    ground_truth="The warehouse is in Leeds. It has 4 loading docks.",
    contexts=["The warehouse is in Leeds.", "It has 4 loading docks.", "Rivers flow east."],
    answer="The warehouse is in Leeds. It has 4 loading docks. It opened in 1990.",
)
# P(the reply's own token) per claim; the fake server gives the other token the rest
SURE = {"The warehouse is in Leeds.": 0.9, "It has 4 loading docks.": 0.7}


@pytest.fixture(autouse=True)
def _fresh_modes():
    forget_output_modes()


def config(server, path, **kw):
    return LLMJudgeConfig(
        model="judge-m",
        base_url=server.base_url,
        cache_path=path,
        embedding=EmbeddingEndpoint(model="emb", base_url=server.base_url, api_key_env=None),
        concurrency=2,
        faithfulness_mode="verifier",
        **kw,
    )


def confidence(request, _n):
    return SURE.get(request.blocks().get("CLAIM", ""), 0.8)


def verifier_calls(server):
    return [r for r in server.chat_log() if "<<<CLAIM>>>" in str(r.body["messages"][-1])]


def test_yes_probability_from_the_alternatives_or_the_token():
    def tok(token, *alts):
        return TokenLogprob(token, math.log(alts[0][1]), tuple((t, math.log(p)) for t, p in alts))

    reply = [tok("No", ("No", 0.6), ("Yes", 0.3), (" Yes", 0.05), ("The", 0.05))]
    assert yes_probability("No", reply) == (pytest.approx(0.35 / 0.95, abs=1e-4), True)
    assert yes_probability("是", [tok("是", ("是", 0.8), ("否", 0.2))]) == (0.8, True)
    assert yes_probability("Yes", None) == (1.0, False)  # no logprobs: the token decides
    assert yes_probability(" no.", None) == (0.0, False)
    assert yes_probability("The", [tok("The", ("The", 0.9), ("A", 0.1))]) is None


def test_long_evidence_is_cut_between_sentences():
    text = " ".join(f"Sentence number {i} says something about item {i}." for i in range(60))
    windows = evidence_windows(text, "en", max_tokens=60)
    assert len(windows) > 1
    assert windows[0][0] == 0 and windows[-1][1] == len(text)
    for (_, end), (start, _) in pairwise(windows):
        assert text[end:start].strip() == ""  # nothing skipped but spaces
    assert all(count_tokens(text[s:e]) <= 60 for s, e in windows)
    assert all(text[s:e].endswith(".") for s, e in windows)
    assert evidence_windows("Short.", "en") == [(0, 6)]
    # one sentence longer than a window is cut by characters
    assert len(evidence_windows("word " * 400, "en", max_tokens=100)) >= 4


async def test_claims_times_windows_evidence_first_scored_by_p_yes(tmp_path):
    with FakeOpenAI(Smart(), confidence=confidence) as server:
        judge = build_llm_judge(config(server, tmp_path / "a.db", graded=("faithfulness",)))
        result = (await judge.judge(SAMPLE, ("faithfulness",)))["faithfulness"]
        fingerprint = judge.fingerprint()
        await judge.aclose()
        calls = verifier_calls(server)
    assert len(calls) == 3 * 3  # three claims x three one-window chunks
    for call in calls:
        assert call.body["max_tokens"] == 1 and call.body["logprobs"] is True
        user = call.body["messages"][-1]["content"]
        assert user.index("<<<EVIDENCE>>>") < user.index("<<<CLAIM>>>")  # evidence first
    # the calls of one window share its prefix and follow one another
    firsts = [c.body["messages"][-1]["content"].split("<<<CLAIM>>>")[0] for c in calls]
    assert len(set(firsts)) == 3
    claims = result.evidence.claims
    assert [c.verdict for c in claims] == ["supported", "supported", "not_verifiable"]
    assert [c.chunk_index for c in claims] == [0, 1, 0]
    assert claims[0].span is not None and claims[0].span.end == len(SAMPLE.contexts[0])
    # best window: the Yes at 0.9 / 0.7; the unsupported claim is No everywhere at 0.8
    assert [c.confidence for c in claims] == pytest.approx([0.9, 0.7, 0.2])
    assert result.score == pytest.approx((0.9 + 0.7 + 0.2) / 3)
    assert result.calls == 1 + 9  # the claims call and the verifier calls, counted
    assert result.tokens > 0
    assert fingerprint.params["faithfulness_mode"] == "verifier"
    assert "verifier_prompts" in fingerprint.params


@pytest.mark.parametrize("seed", range(4))
async def test_a_tie_names_the_first_window_whichever_reply_comes_back_first(tmp_path, seed):
    # replies come back in a random order: a claim No at 0.8 in every window is tied
    # everywhere, and its evidence must still be the first window, not the first reply
    def jitter(rng):
        return rng.uniform(0.0, 0.03)

    with FakeOpenAI(Smart(), confidence=confidence, latency=jitter, seed=seed) as server:
        judge = build_llm_judge(config(server, tmp_path / "a.db"))
        result = (await judge.judge(SAMPLE, ("faithfulness",)))["faithfulness"]
        await judge.aclose()
    assert [c.chunk_index for c in result.evidence.claims] == [0, 1, 0]


async def test_zero_one_score_unless_graded_and_a_rerun_makes_no_calls(tmp_path):
    with FakeOpenAI(Smart(), confidence=confidence) as server:
        for _ in range(2):
            judge = build_llm_judge(config(server, tmp_path / "a.db", graded=()))
            result = (await judge.judge(SAMPLE, ("faithfulness",)))["faithfulness"]
            stats = judge.stats()
            await judge.aclose()
        second_run_calls = len(server.chat_log()) - 10
    assert result.score == pytest.approx(2 / 3)  # share of claims with P >= 0.5
    assert second_run_calls == 0  # one-token replies are cached like any other
    assert stats["cached_calls"] == 10 and result.calls == 10


async def test_context_recall_in_verifier_mode(tmp_path):
    with FakeOpenAI(Smart(), confidence=confidence) as server:
        judge = build_llm_judge(
            config(server, tmp_path / "a.db", context_recall_mode="verifier", graded=())
        )
        result = (await judge.judge(SAMPLE, ("context_recall",)))["context_recall"]
        await judge.aclose()
    points = result.evidence.points
    assert [p.point for p in points] == ["The warehouse is in Leeds.", "It has 4 loading docks."]
    assert [p.chunk_index for p in points] == [0, 1]
    assert result.score == 1.0


async def test_a_reply_that_is_neither_yes_nor_no_leaves_the_metric_unscored(tmp_path):
    class Chatty(Smart):
        def verify_one(self, blocks):
            return "Maybe"

    with FakeOpenAI(Chatty()) as server:
        judge = build_llm_judge(config(server, tmp_path / "a.db"))
        result = (await judge.judge(SAMPLE, ("faithfulness",)))["faithfulness"]
        await judge.aclose()
    assert result.score is None
    assert "neither Yes nor No for 3 of 3" in result.unscored_reason


@pytest.mark.parametrize(("mode", "said"), [("ignore", "returned no"), ("reject", "refused")])
def test_without_logprobs_the_token_decides_and_the_run_says_so_once(tmp_path, mode, said):
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
        run = evaluate(cases, PrecomputedPipeline(), judge, metrics=("faithfulness",))
    for case in run.cases:
        faith = case.metrics["faithfulness"]
        assert faith.score == pytest.approx(2 / 3)  # graded asked for, 0/1 given
        assert all(c.confidence is None for c in faith.evidence.claims)
        assert [c.verdict for c in faith.evidence.claims] == [
            "supported",
            "supported",
            "not_verifiable",
        ]
    notes = [w for w in run.run.warnings if "log-probabilities" in w]
    assert len(notes) == 1 and said in notes[0] and "verdicts are 0/1, not graded" in notes[0]
    print(notes[0])


async def test_dry_run_estimate_counts_the_verifier_calls(tmp_path):
    with FakeOpenAI(Smart(), confidence=confidence) as server:
        judge = build_llm_judge(config(server, tmp_path / "a.db", context_recall_mode="verifier"))
        estimate = judge.estimate([SAMPLE], ("faithfulness", "context_recall"))
        result = await judge.judge(SAMPLE, ("faithfulness", "context_recall"))
        await judge.aclose()
    for metric in ("faithfulness", "context_recall"):
        assert estimate.by_metric[metric].calls == result[metric].calls
    assert estimate.calls == 10 + 7  # claims call + 3 x 3 windows; split call + 2 points x 3


async def test_one_call_at_a_time_keeps_each_windows_claims_together(tmp_path):
    with FakeOpenAI(Smart(), confidence=confidence) as server:
        cfg = config(server, tmp_path / "a.db").model_copy(update={"concurrency": 1})
        judge = build_llm_judge(cfg)
        await judge.judge(SAMPLE, ("faithfulness",))
        await judge.aclose()
        calls = sorted(verifier_calls(server), key=lambda r: r.started)
    prefixes = [c.body["messages"][-1]["content"].split("<<<CLAIM>>>")[0] for c in calls]
    runs = [p for i, p in enumerate(prefixes) if i == 0 or p != prefixes[i - 1]]
    assert len(runs) == 3  # window after window, never interleaved (one slot's prompt cache)


class _Server:
    """What start_llama_judge needs of a LlamaServer, over the fake endpoint."""

    def __init__(self, base_url):
        from types import SimpleNamespace

        self.url = base_url
        self.model = SimpleNamespace(model_id="qwen-test@abc", sha256="abc" * 20)
        self.options = SimpleNamespace(parallel=1)
        self.closed = False

    def start(self):
        return self.url

    def close(self):
        self.closed = True


@pytest.mark.parametrize(
    ("given", "mode", "graded"),
    [
        ({}, "verifier", ("faithfulness",)),
        ({"faithfulness_mode": "json"}, "json", ("faithfulness",)),
    ],
)
async def test_the_llama_judge_defaults_to_graded_verifier_mode(tmp_path, given, mode, graded):
    from ragmeter.judges.llm.llama import start_llama_judge

    with FakeOpenAI(Smart(), confidence=confidence) as fake:
        server = _Server(fake.base_url)
        judge = start_llama_judge(server, cache_path=tmp_path / "a.db", **given)  # type: ignore[arg-type]
        result = (await judge.judge(SAMPLE, ("faithfulness",)))["faithfulness"]
        await judge.aclose()
    assert server.closed
    assert judge.config.faithfulness_mode == mode and judge.config.graded == graded
    if mode == "verifier":
        assert judge.fingerprint().params["faithfulness_mode"] == "verifier"
        assert result.score == pytest.approx((0.9 + 0.7 + 0.2) / 3)
