"""Verifier mode: every metric from one-token graded verdicts, P(Yes) (issues 18 and 32)."""

from __future__ import annotations

import math
from itertools import pairwise
from pathlib import Path

import pytest

from ragmeter.clients import forget_output_modes
from ragmeter.clients.cost import count_tokens
from ragmeter.clients.logprobs import TokenLogprob
from ragmeter.judges.base import Sample, Turn
from ragmeter.judges.llm import EmbeddingEndpoint, LLMJudgeConfig, build_llm_judge
from ragmeter.judges.llm.combine import combine, soft_min
from ragmeter.judges.llm.verified_claims import statements
from ragmeter.judges.llm.verifier import (
    evidence_windows,
    pick_windows,
    sample_windows,
    yes_probability,
)
from ragmeter.run._runner import evaluate
from ragmeter.testing import FakeOpenAI, Smart
from ragmeter.testing.responders import one_token_sections

SAMPLE = Sample(
    case_id="c1",
    question="Where is the warehouse and how many docks does it have?",
    ground_truth="The warehouse is in Leeds. It has 4 loading docks.",
    contexts=["The warehouse is in Leeds.", "It has 4 loading docks.", "Rivers flow east."],
    answer="The warehouse is in Leeds. It has 4 loading docks. It opened in 1990.",
)
ZH = Sample(
    case_id="z1",
    question="仓库在哪里，有几个装卸码头？",
    ground_truth="仓库位于利兹。仓库有 4 个装卸码头。",
    contexts=["仓库位于利兹市中心。", "仓库有 4 个装卸码头。", "河流向东流。"],
    answer="仓库位于利兹。仓库有 4 个装卸码头。仓库建于 1990 年。",
    lang="zh",
)
# P(the reply's own token) per statement; the fake server gives the other token the rest
SURE = {
    "The warehouse is in Leeds.": 0.9,
    "It has 4 loading docks.": 0.7,
    "仓库位于利兹。": 0.9,
    "仓库有 4 个装卸码头。": 0.7,
}
ALL_VERIFIER = {
    "faithfulness_mode": "verifier",
    "context_recall_mode": "verifier",
    "context_precision_mode": "verifier",
    "answer_relevancy_mode": "verifier",
}


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
        **{**ALL_VERIFIER, **kw},
    )


def sections(request):
    """The labelled paragraphs of a one-token call (a request or a logged one)."""
    return one_token_sections(request.body["messages"][-1]["content"])


def confidence(request, _n):
    return SURE.get(sections(request).get("STATEMENT", ""), 0.8)


def one_token_calls(server):
    return [r for r in server.chat_log() if r.body.get("max_tokens") == 1]


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


@pytest.mark.parametrize("sample", [SAMPLE, ZH], ids=["en", "zh"])
def test_claims_are_split_by_rules_and_short_answers_read_with_their_question(sample):
    assert len(statements(sample.answer, sample.question, sample.lang)) == 3
    short = statements("4." if sample.lang == "en" else "4 个。", sample.question, sample.lang)
    assert len(short) == 1 and sample.question in short[0]
    windows = sample_windows(sample)
    # a statement a chunk holds word for word is checked there only; another in its two best
    # windows, in window order
    for i, chunk in enumerate(sample.contexts[:2]):
        assert pick_windows(chunk, windows, sample.lang) == [i]
    invented = statements(sample.answer, sample.question, sample.lang)[2]
    picked = pick_windows(invented, windows, sample.lang)
    assert len(picked) == 2 and picked == sorted(picked)


@pytest.mark.parametrize("sample", [SAMPLE, ZH], ids=["en", "zh"])
async def test_faithfulness_needs_no_generation_and_checks_each_claim_in_its_best_windows(
    tmp_path, sample
):
    with FakeOpenAI(Smart(), confidence=confidence) as server:
        judge = build_llm_judge(config(server, tmp_path / "a.db", graded=("faithfulness",)))
        result = (await judge.judge(sample, ("faithfulness",)))["faithfulness"]
        fingerprint = judge.fingerprint()
        await judge.aclose()
        calls = one_token_calls(server)
    # no claims call; two claims copied from a chunk checked there, the invented one in two
    assert len(server.chat_log()) == len(calls) == 1 + 1 + 2
    for call in calls:
        assert call.body["logprobs"] is True
        assert len(call.body["messages"]) == 1 and call.body["messages"][0]["role"] == "user"
        user = call.body["messages"][0]["content"]
        assert "<<<" not in user  # the plain layout: no markers, no system message
        found = sections(call)
        assert found["EVIDENCE"] in sample.contexts and user.startswith(("Evidence", "证据"))
        assert user.endswith(found["STATEMENT"])  # evidence first, the statement last
    claims = result.evidence.claims
    assert [c.verdict for c in claims] == ["supported", "supported", "not_verifiable"]
    assert [c.chunk_index for c in claims][:2] == [0, 1]
    assert [c.confidence for c in claims] == pytest.approx([0.9, 0.7, 0.2])
    # one unsupported claim pulls the case down: a soft minimum, not the mean
    assert result.score == pytest.approx(soft_min([0.9, 0.7, 0.2]))
    assert result.score < (0.9 + 0.7 + 0.2) / 3
    assert result.calls == 4 and result.tokens > 0
    assert fingerprint.params["faithfulness_mode"] == "verifier"
    assert "verifier_prompts" in fingerprint.params
    # how statements pick their windows changes the scores: a run judged otherwise differs
    assert fingerprint.params["verifier_windows"] == [2, 0.95]


def test_the_soft_minimum_lies_between_the_minimum_and_the_mean():
    assert soft_min([0.8, 0.8, 0.8]) == pytest.approx(0.8)
    copied_and_one_false = [0.95, 0.95, 0.95, 0.1]
    assert min(copied_and_one_false) < combine(copied_and_one_false) < 0.5
    assert combine(copied_and_one_false, "mean") > 0.7  # the mean lets the false claim pass
    assert combine([0.9, 0.85]) == pytest.approx(0.87, abs=0.01)


@pytest.mark.parametrize("seed", range(3))
async def test_a_tie_names_the_first_window_whichever_reply_comes_back_first(tmp_path, seed):
    def jitter(rng):
        return rng.uniform(0.0, 0.03)

    with FakeOpenAI(Smart(), confidence=confidence, latency=jitter, seed=seed) as server:
        judge = build_llm_judge(config(server, tmp_path / "a.db"))
        result = (await judge.judge(SAMPLE, ("faithfulness",)))["faithfulness"]
        await judge.aclose()
    # the invented claim is No at 0.8 in both its windows (chunks 0 and 1): the first is named
    assert [c.chunk_index for c in result.evidence.claims] == [0, 1, 0]


async def test_zero_one_score_unless_graded_and_a_rerun_makes_no_calls(tmp_path):
    with FakeOpenAI(Smart(), confidence=confidence) as server:
        for _ in range(2):
            judge = build_llm_judge(config(server, tmp_path / "a.db", graded=()))
            result = (await judge.judge(SAMPLE, ("faithfulness",)))["faithfulness"]
            stats = judge.stats()
            await judge.aclose()
        second_run_calls = len(server.chat_log()) - 4
    assert result.score == pytest.approx(2 / 3)  # share of claims with P >= 0.5
    assert second_run_calls == 0  # one-token replies are cached like any other
    assert stats["cached_calls"] == 4 and result.calls == 4


@pytest.mark.parametrize("sample", [SAMPLE, ZH], ids=["en", "zh"])
async def test_context_recall_splits_the_reference_by_rules(tmp_path, sample):
    with FakeOpenAI(Smart(), confidence=confidence) as server:
        judge = build_llm_judge(config(server, tmp_path / "a.db", graded=()))
        result = (await judge.judge(sample, ("context_recall",)))["context_recall"]
        await judge.aclose()
        n_calls = len(server.chat_log())
    points = result.evidence.points
    assert [p.point for p in points] == statements(
        sample.ground_truth, sample.question, sample.lang
    )
    assert len(points) == 2 and [p.chunk_index for p in points] == [0, 1]
    assert result.score == 1.0 and n_calls == 2  # each point is a chunk's sentence


@pytest.mark.parametrize("sample", [SAMPLE, ZH], ids=["en", "zh"])
async def test_context_precision_asks_each_chunk_whether_it_helps(tmp_path, sample):
    useful = {sample.contexts[0]: 0.9, sample.contexts[1]: 0.8, sample.contexts[2]: 0.7}

    def chunk_confidence(request, _n):
        return useful.get(sections(request).get("EVIDENCE", ""), 0.5)

    with FakeOpenAI(Smart(), confidence=chunk_confidence) as server:
        judge = build_llm_judge(config(server, tmp_path / "a.db", graded=("context_precision",)))
        result = (await judge.judge(sample, ("context_precision",)))["context_precision"]
        await judge.aclose()
        calls = one_token_calls(server)
    assert len(calls) == 3  # one per chunk
    for call in calls:
        found = sections(call)
        assert found["REFERENCE"] == sample.ground_truth and found["EVIDENCE"] in sample.contexts
    chunks = result.evidence.chunks
    assert [c.useful for c in chunks] == [True, True, False]
    assert [c.score for c in chunks] == pytest.approx([0.9, 0.8, 0.3])
    from ragmeter.judges.llm.graded import soft_average_precision

    assert result.score == pytest.approx(soft_average_precision([0.9, 0.8, 0.3]))


@pytest.mark.parametrize(
    ("answer", "lang", "question"),
    [
        (
            "The warehouse has 4 loading docks.",
            "en",
            "How many loading docks does the warehouse have?",
        ),
        ("仓库有 4 个装卸码头。", "zh", "仓库有几个装卸码头？"),
    ],
)
async def test_answer_relevancy_is_two_verdicts_that_see_an_off_topic_answer(
    tmp_path, answer, lang, question
):
    off_topic = "Rivers flow east." if lang == "en" else "河流向东流。"
    base = Sample(case_id="r", question=question, answer=answer, contexts=["x"], lang=lang)
    with FakeOpenAI(Smart(), confidence=lambda r, n: 0.9) as server:
        judge = build_llm_judge(config(server, tmp_path / "a.db"))
        on = (await judge.judge(base, ("answer_relevancy",)))["answer_relevancy"]
        off_sample = base.model_copy(update={"answer": off_topic, "case_id": "o"})
        off = (await judge.judge(off_sample, ("answer_relevancy",)))["answer_relevancy"]
        await judge.aclose()
        calls = one_token_calls(server)
    assert on.score == pytest.approx(0.9) and off.score == pytest.approx(0.1)
    assert len(calls) == 4 and on.calls == 2  # one call per wording
    for call in calls:  # worked examples first (the same for every call), the case last
        messages = call.body["messages"]
        assert [m["role"] for m in messages][-3:] == ["user", "assistant", "user"]
        assert messages[-1]["content"].endswith(messages[0]["content"].rsplit("\n\n")[-1])
    asked = [c.body["messages"][-1]["content"] for c in calls if answer in str(c.body)]
    assert len(asked) == 2 and asked[0] != asked[1]  # the same case in two wordings
    assert all(answer not in c.body["messages"][0]["content"] for c in calls)
    assert on.evidence.generated_questions == []  # no reverse questions, no embeddings


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_answer_relevancy_is_the_mean_of_its_two_wordings(tmp_path, lang):
    """The 1.5B model's P(Yes) moves with the wording alone; the score is the mean of the
    two wordings' P(Yes), each quoted in the evidence, so neither wording alone decides it."""
    question, answer = (
        ("Which second factors can I use?", "The Pro plan costs $8 a month.")
        if lang == "en"
        else ("可以用哪些第二因素？", "专业版每月 8 美元。")
    )
    sample = Sample(case_id="w", question=question, answer=answer, contexts=["x"], lang=lang)

    class Agrees(Smart):
        def verdict(self, sections):
            return "Yes"

    def sure(request, _n):  # the second wording, about "the same subject", is less sure
        text = request.body["messages"][-1]["content"]
        return 0.3 if "same subject" in text or "同一主题" in text else 0.5

    with FakeOpenAI(Agrees(), confidence=sure) as server:
        judge = build_llm_judge(config(server, tmp_path / "a.db"))
        result = (await judge.judge(sample, ("answer_relevancy",)))["answer_relevancy"]
        await judge.aclose()
    assert result.score == pytest.approx(0.4)  # (0.5 + 0.3) / 2, where either alone is not
    assert result.calls == 2
    assert "0.50, 0.30" in result.evidence.notes[0]


async def test_an_evasive_answer_scores_zero_and_a_declined_out_of_scope_one_without_a_call(
    tmp_path,
):
    evasive = SAMPLE.model_copy(update={"answer": "I'm sorry, I don't know."})
    declined = evasive.model_copy(update={"category": "out_of_scope", "case_id": "oos"})
    with FakeOpenAI(Smart()) as server:
        judge = build_llm_judge(config(server, tmp_path / "a.db"))
        a = (await judge.judge(evasive, ("answer_relevancy",)))["answer_relevancy"]
        b = (await judge.judge(declined, ("answer_relevancy",)))["answer_relevancy"]
        await judge.aclose()
        n_calls = len(server.chat_log())
    assert (a.score, a.reason_code, a.evidence.abstained) == (0.0, "refusal", True)
    assert (b.score, b.reason_code) == (1.0, "out_of_scope")
    assert n_calls == 0


async def test_a_reply_that_is_neither_yes_nor_no_leaves_the_metric_unscored(tmp_path):
    class Chatty(Smart):
        def verdict(self, sections):
            return "Maybe"

    with FakeOpenAI(Chatty()) as server:
        judge = build_llm_judge(config(server, tmp_path / "a.db"))
        result = await judge.judge(SAMPLE)
        await judge.aclose()
    assert all(r.score is None for r in result.values())
    assert "neither Yes nor No for 3 of 3" in result["faithfulness"].unscored_reason


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


@pytest.mark.parametrize("sample", [SAMPLE, ZH], ids=["en", "zh"])
async def test_dry_run_estimate_counts_every_one_token_call(tmp_path, sample):
    with FakeOpenAI(Smart(), confidence=confidence) as server:
        judge = build_llm_judge(config(server, tmp_path / "a.db"))
        estimate = judge.estimate([sample])
        result = await judge.judge(sample)
        await judge.aclose()
        calls = one_token_calls(server)
    for metric, r in result.items():
        assert estimate.by_metric[metric].calls == r.calls, metric
    assert estimate.calls == len(calls) == 4 + 2 + 3 + 2  # relevancy: two wordings
    assert estimate.completion_tokens == len(calls)


async def test_one_call_at_a_time_keeps_each_windows_claims_together(tmp_path):
    with FakeOpenAI(Smart(), confidence=confidence) as server:
        cfg = config(server, tmp_path / "a.db").model_copy(update={"concurrency": 1})
        judge = build_llm_judge(cfg)
        await judge.judge(SAMPLE, ("faithfulness",))
        await judge.aclose()
        calls = sorted(one_token_calls(server), key=lambda r: r.started)
    evidence = [sections(c)["EVIDENCE"] for c in calls]
    runs = [e for i, e in enumerate(evidence) if i == 0 or e != evidence[i - 1]]
    assert len(runs) == len(set(evidence))  # window after window, never interleaved


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


async def test_the_llama_judge_scores_every_metric_by_graded_one_token_verdicts(tmp_path):
    from ragmeter.judges.llama.judge import start_llama_judge

    with FakeOpenAI(Smart(), confidence=confidence) as fake:
        server = _Server(fake.base_url)
        judge = start_llama_judge(server, cache_path=tmp_path / "a.db")  # type: ignore[arg-type]
        result = await judge.judge(SAMPLE)
        await judge.aclose()
        calls = sorted(fake.chat_log(), key=lambda r: r.started)
    assert server.closed
    assert all(r.body.get("max_tokens") == 1 for r in calls)  # no generation at all
    assert all(r.score is not None for r in result.values())
    params = judge.fingerprint().params
    assert {params[f"{m}_mode"] for m in result} == {"verifier"}
    assert set(judge.config.graded) == {"faithfulness", "context_precision"}
    assert result["context_recall"].calls == 2


@pytest.mark.parametrize("sample", [SAMPLE, ZH], ids=["en", "zh"])
async def test_the_llama_judge_prefills_each_window_once_for_every_metric(tmp_path, sample):
    """A case's calls of all four metrics go out together, sorted by prompt: each chunk's
    evidence is sent in one run (its chunk check, claims and reference points back to back,
    so llama.cpp prefills it once), and a reference point that is also a claim is asked once
    although no call cache is on."""
    from ragmeter.judges.llama.judge import start_llama_judge

    with FakeOpenAI(Smart(), confidence=confidence) as fake:
        judge = start_llama_judge(_Server(fake.base_url), use_cache=False)  # type: ignore[arg-type]
        result = await judge.judge(sample)
        stats = judge.stats()
        await judge.aclose()
        calls = sorted(fake.chat_log(), key=lambda r: r.started)
    assert all(r.score is not None for r in result.values())
    evidence = [sections(r).get("EVIDENCE") for r in calls]
    runs = [e for i, e in enumerate(evidence) if i == 0 or e != evidence[i - 1]]
    assert len(runs) == len(set(evidence))  # every evidence once, whichever metric asked
    assert len({e for e in evidence if e}) == 3 and evidence[-1] is None  # relevancy apart
    prompts = [r.body["messages"][-1]["content"] for r in calls]
    assert len(prompts) == len(set(prompts)) == 3 + 4 + 2  # chunks, claims' windows, AR x2
    # the reference's two points are claims of the answer: counted for recall, asked once
    assert result["context_recall"].calls == 2 and result["faithfulness"].calls == 4
    assert stats["calls"] == 9 and stats["cached_calls"] == 2


async def test_the_llama_judge_judges_one_case_per_slot_at_a_time(tmp_path):
    from ragmeter.judges.llama.judge import start_llama_judge

    other = SAMPLE.model_copy(update={"case_id": "c2", "question": "Which docks exist?"})
    with FakeOpenAI(Smart(), confidence=confidence, latency=lambda rng: 0.005) as fake:
        judge = start_llama_judge(_Server(fake.base_url), cache_path=tmp_path / "a.db")  # type: ignore[arg-type]
        import asyncio

        await asyncio.gather(judge.judge(SAMPLE), judge.judge(other))
        await judge.aclose()
        calls = sorted(fake.chat_log(), key=lambda r: r.started)
    questions = [sections(r).get("QUESTION", "").split("\n")[0] for r in calls]
    runs = [q for i, q in enumerate(questions) if i == 0 or q != questions[i - 1]]
    assert len(runs) == 2  # every call of one case, then every call of the other


async def test_platt_scaling_maps_each_statements_p_and_names_itself(tmp_path):
    with FakeOpenAI(Smart(), confidence=confidence) as server:
        judge = build_llm_judge(config(server, tmp_path / "a.db", calibration=(2.0, 0.0)))
        result = (await judge.judge(SAMPLE, ("faithfulness",)))["faithfulness"]
        fingerprint = judge.fingerprint()
        await judge.aclose()
    # sigmoid(2·logit(p)) = p² / (p² + (1 - p)²): 0.9 -> 0.988, 0.7 -> 0.845, 0.2 -> 0.059
    assert [c.confidence for c in result.evidence.claims] == pytest.approx(
        [0.9878, 0.8448, 0.0588], abs=1e-4
    )
    assert fingerprint.params["calibration"] == [2.0, 0.0]


def test_the_shipped_calibration_is_used_only_with_the_prompts_it_was_fitted_with(
    tmp_path, monkeypatch
):
    import json

    from ragmeter.judges.llm import calibration
    from ragmeter.judges.llm.verifier import statement_prompt_version

    shipped = json.loads(
        (Path(calibration.__file__).parent / calibration.CALIBRATION_FILE).read_text("utf-8")
    )
    for sha, entry in shipped.items():
        assert 0 < entry["a"] < 10 and abs(entry["b"]) < 5
        expected = (entry["a"], entry["b"])
        got = calibration.shipped_calibration(sha)
        assert got == (expected if entry["prompts"] == statement_prompt_version() else None)
    assert calibration.shipped_calibration("0" * 64) is None


async def test_a_failed_call_in_the_llama_judges_queue_leaves_only_its_metric_unscored(tmp_path):
    from ragmeter.testing.fake_openai import Fault

    def chunk_check(request):
        return "REFERENCE" in one_token_sections(request.messages[-1]["content"])

    from ragmeter.judges.llama.judge import start_llama_judge

    fault = Fault("server_error", match=chunk_check)
    with FakeOpenAI(Smart(), confidence=confidence, faults=[fault]) as fake:
        judge = start_llama_judge(  # type: ignore[arg-type]
            _Server(fake.base_url), use_cache=False, max_retries=0
        )
        result = await judge.judge(SAMPLE)
        await judge.aclose()
    assert result["context_precision"].score is None
    assert "HTTP 500" in (result["context_precision"].unscored_reason or "")
    assert all(result[m].score is not None for m in result if m != "context_precision")
    assert result["faithfulness"].calls == 4


async def test_a_cancelled_case_leaves_its_queued_calls_unsent(tmp_path):
    import asyncio

    from ragmeter.judges.llama.judge import start_llama_judge

    with FakeOpenAI(Smart(), confidence=confidence, latency=lambda rng: 0.2) as fake:
        judge = start_llama_judge(_Server(fake.base_url), use_cache=False)  # type: ignore[arg-type]
        case = asyncio.ensure_future(judge.judge(SAMPLE))
        while not fake.chat_log():  # the first of its 8 calls is out
            await asyncio.sleep(0.01)
        case.cancel()
        with pytest.raises(asyncio.CancelledError):
            await case
        others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        if others:  # the queue's sender: it ends once it has sent (or skipped) every call
            await asyncio.wait(others, timeout=60)
        sent = len(fake.chat_log())
        later = await judge.judge(SAMPLE, ("answer_relevancy",))  # the slot is free again
        await judge.aclose()
    assert sent <= 2 and later["answer_relevancy"].score is not None


async def test_a_statement_is_asked_about_without_the_conversation_that_came_before(tmp_path):
    """Earlier turns are not evidence (they may hold the fact a statement repeats), and they
    would be read again with every window: statements see the question alone, while a chunk's
    usefulness and the answer's relevancy are still asked with the conversation."""
    earlier = "Earlier you said the warehouse opened in 1990."
    multi_turn = SAMPLE.model_copy(
        update={
            "question": "And how many docks?",
            "history": [
                Turn(role="user", content="Where is the warehouse?"),
                Turn(role="assistant", content=earlier),
            ],
        }
    )
    with FakeOpenAI(Smart(), confidence=confidence) as server:
        judge = build_llm_judge(config(server, tmp_path / "a.db"))
        estimate = judge.estimate([multi_turn])
        result = await judge.judge(multi_turn)
        await judge.aclose()
        calls = one_token_calls(server)
    seen = {metric: [] for metric in ("statement", "chunk", "answer")}
    for call in calls:
        user = call.body["messages"][-1]["content"]
        kind = "statement" if "STATEMENT" in sections(call) else "chunk"
        kind = "answer" if "Answer:" in user and "Evidence" not in user else kind
        seen[kind].append(user)
    assert seen["statement"] and seen["chunk"] and seen["answer"]
    for user in seen["statement"]:
        assert earlier not in user and "And how many docks?" in user
    assert all(earlier in user for user in seen["chunk"] + seen["answer"])
    assert estimate.calls == len(calls)  # the dry run counts the prompts as they are sent
    assert {m: r.score is not None for m, r in result.items()} == dict.fromkeys(result, True)
