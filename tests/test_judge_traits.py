"""What a judge's numbers mean comes from the judge (its fingerprint's traits, recorded in the
run), not from its kind: a plugin judge that declares P(entailed) is read as P(entailed), one
that makes no calls spent nothing, and runs recorded before traits read as they always did."""

from __future__ import annotations

import json

import ragmeter
from ragmeter.judges.base import JudgeBase, JudgeTraits
from ragmeter.judges.local import LocalJudge
from ragmeter.report.words import spend_line
from ragmeter.results import RunResult
from ragmeter.results.explain import shortfall, strength_labels
from ragmeter.vocabulary import ClaimVerdict, Evidence, JudgeFingerprint, MetricResult

ACME = JudgeTraits(
    claim_strength="P(entailed)",
    point_strength="P(entailed)",
    chunk_strength="P(relevant)",
    makes_calls=False,
)


class AcmeJudge(JudgeBase):
    """A plugin judge that says what its numbers are."""

    name = "acme"

    def fingerprint(self) -> JudgeFingerprint:
        return JudgeFingerprint(kind="acme", model="nli-1", prompt_version="1", traits=ACME)

    async def judge(self, sample, metrics=ragmeter.METRICS):
        claim = ClaimVerdict(claim=sample.answer, verdict="contradicted", confidence=0.12)
        evidence = Evidence(claims=[claim])
        return {m: MetricResult(metric=m, score=0.0, evidence=evidence) for m in metrics}


def test_a_plugin_judges_declared_traits_reach_the_run_and_its_readers():
    rows = [{"question": "How tall?", "contexts": ["It is 330 m."], "answer": "It is 20 m."}]
    run = ragmeter.evaluate(rows, judge=AcmeJudge(), metrics="faithfulness")
    again = RunResult.model_validate_json(json.dumps(run.model_dump(mode="json")))
    assert again.judge.traits == ACME  # recorded in results.json, read back
    assert strength_labels(again.judge).claim == "P(entailed)"
    line = shortfall(again.cases[0].metrics["faithfulness"], 0.5, again.judge)
    assert "(P(entailed) 0.12)" in line
    assert spend_line(again) == "judge spent: nothing (the acme judge makes no calls)"


def test_runs_recorded_before_traits_read_as_the_built_in_judges_declared_them():
    old_llm = {"kind": "openai", "model": "m", "prompt_version": "9", "params": {"graded": []}}
    assert JudgeFingerprint.model_validate(old_llm).traits.claim_strength == "P(supported)"
    assert JudgeFingerprint.model_validate(old_llm).traits.graded == []
    old_local = {"kind": "local", "model": "lexical", "prompt_version": "3"}
    assert JudgeFingerprint.model_validate(old_local).traits.makes_calls is False
    plugin = {"kind": "acme", "model": "m", "prompt_version": "1"}
    assert JudgeFingerprint.model_validate(plugin).traits == JudgeTraits()
    # the local judge declares what an older record of it reads as
    local = LocalJudge(embedder=None).fingerprint()
    recorded = local.model_dump(exclude={"traits"})
    assert JudgeFingerprint.model_validate(recorded).traits == local.traits


def test_traits_describe_a_judge_without_changing_its_key():
    fingerprint = JudgeFingerprint(kind="acme", model="m", prompt_version="1")
    declared = fingerprint.model_copy(update={"traits": ACME})
    assert declared.key() == fingerprint.key()
