"""Both judge families give each edge case the same meaning (`rules.precheck`; "Edge cases" in
docs/pipelines.md): the same edge cases go through the local judge and the LLM judge (JSON
and verifier modes, against the shipped fake server and its Smart responder), and every metric
must end with the same status, reason, reason code, and the score wherever a rule fixes it.

What each family did before precheck (issue 14) and what both do now, called directly (the
runner already gave a blank answer 0 on faithfulness and relevancy under any judge). F =
faithfulness, AR = answer relevancy, R = both retrieval metrics; U = unscored; "judged" = graded
like any case; `code` = the new reason_code; "+ `code`" = unchanged, now with its code.

  edge case                  metric  local before          LLM before          both after
  empty answer               F       U "empty answer"      U refusal           0 `empty_answer`
  empty answer               AR      U "empty answer"      0                   0 `empty_answer`
  empty answer               R       judged                judged              judged
  refusal, answerable        F       U refusal             U refusal           + `refusal`
  refusal, answerable        AR      refusal_cap x cover   0                   + `refusal`
  no claims, no refusal      F       U "answer has no      U refusal (prompt   U refusal (by
    (deflection, courtesy)             claims" (not by       skips hedges)       design) `refusal`
                                       design: health)
  out of scope, declines     AR      1                     1                   1 `out_of_scope`
  out of scope, answers      AR      0                     0                   0 `out_of_scope`
  out of scope               R       U out of scope        U out of scope      + `out_of_scope`
  no ground truth            R       U no ground truth     U no ground truth   + `no_ground_truth`
  no contexts                R       0, recall lists all   0, no points        0 `no_contexts`,
                                       points unsupported                        no points
  no contexts, claims        F       0, not verifiable     0, not verifiable   0 `no_contexts`
  precision chunk preview    -       160 characters        120 characters      160 (PREVIEW_CHARS)

The no-claims case is not run here: the fake's Smart responder splits a deflection into a
claim, where the claims prompt (and the local judge) find none; it is tested on each side.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest

from ragmeter.clients import forget_output_modes
from ragmeter.judges.base import (
    METRICS,
    RETRIEVAL_METRICS,
    MetricName,
    MetricResult,
    ReasonCode,
    Sample,
)
from ragmeter.judges.llm import EmbeddingEndpoint, LLMJudgeConfig, build_llm_judge
from ragmeter.judges.local import LocalJudge
from ragmeter.judges.rules import NO_GROUND_TRUTH, OUT_OF_SCOPE, REFUSAL, precheck
from ragmeter.testing import FakeOpenAI

FAMILIES = ("local", "llm", "llm-verifier")

CONTEXTS = [
    "Refunds are processed within 14 days of the request.",
    "Our office is open Monday to Friday, 9am to 5pm.",
]
ANSWER = "Refunds are processed within 14 days."
REFUSAL_EN = "I don't know. The documentation does not mention it."
REFUSAL_ZH = "我不知道。文档里没有提到这一点。"
OFF_TOPIC = "Who won the 1930 World Cup?"


def sample(case_id: str, **fields: Any) -> Sample:
    values: dict[str, Any] = {
        "case_id": case_id,
        "question": "How long do refunds take to process?",
        "ground_truth": "Refunds are processed within 14 days of the request.",
        "contexts": CONTEXTS,
        "answer": ANSWER,
        **fields,
    }
    return Sample(**values)


@dataclass(frozen=True)
class Rule:
    """What the edge case fixes for one metric."""

    code: ReasonCode | None = None
    """None: no edge case applies, the judge grades the case (scored, any score)."""
    score: float | None = None
    """The score the rule fixes (None: unscored, or graded)."""
    unscored: str | None = None
    """The unscored reason the rule fixes."""
    at_most: float | None = None
    """A graded score's ceiling (a refusal's answer relevancy: low, graded by the judge)."""

    def broken_by(self, result: MetricResult) -> str | None:
        """What `result` does against this rule, or None when it follows it."""
        got = f"score {result.score}, reason {result.unscored_reason!r}, code {result.reason_code}"
        if result.reason_code != self.code or result.unscored_reason != self.unscored:
            return got
        if self.unscored is None and result.score is None:
            return got
        if self.score is not None and result.score != self.score:
            return got
        if self.at_most is not None and (result.score or 0.0) > self.at_most:
            return got
        return None


JUDGED = Rule()
ZERO_EMPTY = Rule("empty_answer", score=0.0)
NOT_IN_SCOPE = Rule("out_of_scope", unscored=OUT_OF_SCOPE)
REFUSED = Rule("refusal", unscored=REFUSAL)
LOW_REFUSAL = Rule("refusal", at_most=0.2)
ZERO_NO_CONTEXTS = Rule("no_contexts", score=0.0)
RETRIEVAL_JUDGED: dict[MetricName, Rule] = {"context_recall": JUDGED, "context_precision": JUDGED}
RETRIEVAL_OUT_OF_SCOPE: dict[MetricName, Rule] = {
    "context_recall": NOT_IN_SCOPE,
    "context_precision": NOT_IN_SCOPE,
}
RETRIEVAL_NOTHING: dict[MetricName, Rule] = {
    "context_recall": ZERO_NO_CONTEXTS,
    "context_precision": ZERO_NO_CONTEXTS,
}
NO_TRUTH = Rule("no_ground_truth", unscored=NO_GROUND_TRUTH)

EDGE_CASES: dict[str, tuple[Sample, dict[MetricName, Rule]]] = {
    "empty answer": (
        sample("empty", answer="  "),
        {"faithfulness": ZERO_EMPTY, "answer_relevancy": ZERO_EMPTY, **RETRIEVAL_JUDGED},
    ),
    "empty answer, out of scope": (
        sample("empty-oos", answer="", question=OFF_TOPIC, category="out_of_scope"),
        {"faithfulness": ZERO_EMPTY, "answer_relevancy": ZERO_EMPTY, **RETRIEVAL_OUT_OF_SCOPE},
    ),
    "refusal": (
        sample("refusal", answer=REFUSAL_EN),
        {"faithfulness": REFUSED, "answer_relevancy": LOW_REFUSAL, **RETRIEVAL_JUDGED},
    ),
    "refusal, zh": (
        sample(
            "refusal-zh",
            lang="zh",
            question="退款需要多久处理？",
            ground_truth="退款会在申请后14天内处理完毕。",
            contexts=["退款会在申请后14天内处理完毕。", "办公室周一至周五开放。"],
            answer=REFUSAL_ZH,
        ),
        {"faithfulness": REFUSED, "answer_relevancy": LOW_REFUSAL, **RETRIEVAL_JUDGED},
    ),
    "out of scope, declines": (
        sample("oos-declines", question=OFF_TOPIC, category="out_of_scope", answer=REFUSAL_EN),
        {
            "faithfulness": REFUSED,
            "answer_relevancy": Rule("out_of_scope", score=1.0),
            **RETRIEVAL_OUT_OF_SCOPE,
        },
    ),
    "out of scope, answers": (
        sample(
            "oos-answers",
            question=OFF_TOPIC,
            category="out_of_scope",
            answer="Uruguay won the 1930 World Cup.",
        ),
        {
            "faithfulness": JUDGED,
            "answer_relevancy": Rule("out_of_scope", score=0.0),
            **RETRIEVAL_OUT_OF_SCOPE,
        },
    ),
    "no ground truth": (
        sample("no-truth", ground_truth=" "),
        {
            "faithfulness": JUDGED,
            "answer_relevancy": JUDGED,
            "context_recall": NO_TRUTH,
            "context_precision": NO_TRUTH,
        },
    ),
    "no contexts": (
        sample("no-contexts", contexts=[]),
        {"faithfulness": ZERO_NO_CONTEXTS, "answer_relevancy": JUDGED, **RETRIEVAL_NOTHING},
    ),
    "no contexts, refusal": (
        sample("no-contexts-refusal", contexts=[], answer=REFUSAL_EN),
        {"faithfulness": REFUSED, "answer_relevancy": LOW_REFUSAL, **RETRIEVAL_NOTHING},
    ),
    "no contexts, no ground truth": (
        sample("no-contexts-truth", contexts=[], ground_truth=""),
        {
            "faithfulness": ZERO_NO_CONTEXTS,
            "answer_relevancy": JUDGED,
            "context_recall": NO_TRUTH,
            "context_precision": NO_TRUTH,
        },
    ),
}

Verdicts = dict[tuple[str, str], dict[MetricName, MetricResult]]


async def _judge_everything(cache: Path) -> Verdicts:
    samples = {name: case for name, (case, _) in EDGE_CASES.items()}
    out: Verdicts = {}
    local = LocalJudge(embedder=None)  # the rules do not depend on embeddings
    for name, case in samples.items():
        out[name, "local"] = await local.judge(case)
    with FakeOpenAI() as server:
        modes: tuple[tuple[str, Literal["json", "verifier"]], ...] = (
            ("llm", "json"),
            ("llm-verifier", "verifier"),
        )
        for family, mode in modes:
            forget_output_modes()
            judge = build_llm_judge(
                LLMJudgeConfig(
                    model="judge-m",
                    base_url=server.base_url,
                    api_key_env=None,
                    cache_path=cache / f"{family}.sqlite",
                    embedding=EmbeddingEndpoint(
                        model="emb", base_url=server.base_url, api_key_env=None
                    ),
                    faithfulness_mode=mode,
                    context_recall_mode=mode,
                    backoff_base=0.01,
                )
            )
            try:
                for name, case in samples.items():
                    out[name, family] = await judge.judge(case)
            finally:
                await judge.aclose()
    return out


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory) -> Verdicts:
    """Every edge case judged once by each family."""
    return asyncio.run(_judge_everything(tmp_path_factory.mktemp("contract")))


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("edge", list(EDGE_CASES))
def test_both_families_give_the_edge_case_one_meaning(
    verdicts: Verdicts, edge: str, metric: MetricName
) -> None:
    rule = EDGE_CASES[edge][1][metric]
    results = {family: verdicts[edge, family][metric] for family in FAMILIES}
    broken = {f: why for f, r in results.items() if (why := rule.broken_by(r)) is not None}
    assert not broken, f"{edge} / {metric}: expected {rule}, got {broken}"
    fixed = rule.score is not None or rule.unscored is not None
    statuses = {
        (r.scored, r.unscored_reason, r.reason_code, r.score if fixed else None)
        for r in results.values()
    }
    assert len(statuses) == 1, f"{edge} / {metric}: the families differ: {results}"
    if rule.code == "empty_answer" or (rule.code is not None and metric in RETRIEVAL_METRICS):
        # Settled from the case alone: an LLM judge spends no call on it.
        assert all(r.calls == 0 for r in results.values())


@pytest.mark.parametrize("edge", list(EDGE_CASES))
def test_precheck_is_the_rule_the_judges_follow(edge: str) -> None:
    """precheck alone, before any judge has read the answer (refused unknown), already fixes
    every rule that needs no reading of the answer; the others wait for that reading."""
    case, rules = EDGE_CASES[edge]
    for metric, rule in rules.items():
        early = precheck(case, metric)
        needs_reading = rule.code in ("refusal", "out_of_scope") and metric not in RETRIEVAL_METRICS
        needs_reading = needs_reading or (rule.code == "no_contexts" and metric == "faithfulness")
        if rule.code is None or needs_reading:
            assert early is None, (edge, metric)
        else:
            assert early is not None and rule.broken_by(early) is None, (edge, metric)


def test_precheck_waits_for_the_judges_reading_of_the_answer() -> None:
    refusal = EDGE_CASES["no contexts, refusal"][0]
    answered = EDGE_CASES["no contexts"][0]
    assert precheck(refusal, "faithfulness") is None
    declined = precheck(refusal, "faithfulness", refused=True)
    assert declined is not None and declined.unscored_reason == REFUSAL
    claims = precheck(answered, "faithfulness", refused=False)
    assert claims is not None and (claims.score, claims.reason_code) == (0.0, "no_contexts")
    # An answerable question: the judge grades a refusal's relevancy (low) itself.
    assert precheck(refusal, "answer_relevancy", refused=True) is None


def test_chunk_previews_have_one_length(tmp_path: Path) -> None:
    long_chunk = "Refunds are processed within 14 days of the request. " * 6
    case = sample("preview", contexts=[long_chunk])

    async def both() -> list[MetricResult]:
        results = [(await LocalJudge(embedder=None).judge(case))["context_precision"]]
        with FakeOpenAI() as server:
            forget_output_modes()
            config = LLMJudgeConfig(
                model="judge-m",
                base_url=server.base_url,
                api_key_env=None,
                cache_path=tmp_path / "preview.sqlite",
            )
            judge = build_llm_judge(config)
            results.append((await judge.judge(case, ("context_precision",)))["context_precision"])
            await judge.aclose()
        return results

    previews = [r.evidence.chunks[0].preview for r in asyncio.run(both())]
    assert previews == [long_chunk[:160]] * 2
