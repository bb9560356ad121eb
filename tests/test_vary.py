"""`ragmeter vary`: metamorphic variants (typo, distractor, shuffle, out of scope) and the check
of their expectations against a run."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from factories import case as result_case
from factories import metric_result
from factories import run as make_run
from ragmeter._exceptions import CaseFileError, ConfigError, ResultsError
from ragmeter.cases import Case, load_cases
from ragmeter.cases.lint import lint_cases
from ragmeter.judges.base import ChunkVerdict, Evidence, MetricResult, Turn
from ragmeter.results import CaseResult, save_run
from ragmeter.vary import (
    ABSTENTIONS,
    EXPECTATIONS,
    OUT_OF_SCOPE_QUESTIONS,
    attach_outputs,
    load_outputs,
    parse_kinds,
    vary_cases,
    write_cases,
)
from ragmeter.vary.check import check_run, load_check
from ragmeter.vary.typos import HOMOPHONES, make_typo

DEMO_SET = Path(__file__).resolve().parents[1] / "src/ragmeter/demo/data/evalset.jsonl"


def pipeline_set() -> list[Case]:
    """Cases without contexts or answers: a pipeline answers them."""
    return [
        Case(
            id="en-1",
            question="How long do deleted notes stay in the trash?",
            ground_truth="Deleted notes stay in the trash for 30 days.",
        ),
        Case(
            id="en-2",
            question="Which plan includes single sign-on?",
            ground_truth="Single sign-on is part of the Enterprise plan.",
            category="multi_turn",
            history=[Turn(role="user", content="Tell me about the plans.")],
        ),
        Case(id="zh-1", question="回收站里的笔记会保留多久？", ground_truth="回收站保留 30 天。"),
        Case(
            id="oos",
            question="What will the weather be like tomorrow?",
            ground_truth="The handbook does not cover this.",
            category="out_of_scope",
        ),
    ]


def answered_set() -> list[Case]:
    """Cases that carry their contexts and answers (RAGAS-style): run without a pipeline."""
    return [
        Case(
            id="a",
            question="How long do deleted notes stay in the trash?",
            ground_truth="Deleted notes stay in the trash for 30 days.",
            contexts=["Deleted notes stay in the trash for 30 days.", "Trash is per workspace."],
            answer="They stay in the trash for 30 days.",
        ),
        Case(
            id="b",
            question="How much does the Pro plan cost?",
            ground_truth="Pro costs $8 per member per month.",
            contexts=["Pro costs $8 per member per month.", "Team costs $12.", "Free is free."],
            answer="Pro costs $8 per member per month.",
        ),
        Case(
            id="c",
            question="免费版最多几名成员？",
            ground_truth="免费版最多 3 名成员。",
            contexts=["免费版一个工作区最多 3 名成员。", "专业版没有成员上限。"],
            answer="免费版最多 3 名成员。",
        ),
        Case(
            id="d",
            question="专业版每月多少钱？",
            ground_truth="专业版每人每月 48 元。",
            contexts=["专业版年付为每人每月 48 元。"],
            answer="专业版每人每月 48 元。",
        ),
    ]


def variant(cases: list[Case], case_id: str) -> Case:
    return next(c for c in cases if c.id == case_id)


# --- generating ---------------------------------------------------------------------------


def test_same_seed_same_variants_other_seed_others() -> None:
    cases = load_cases(DEMO_SET)
    first = vary_cases(cases, seed=3)
    again = vary_cases(load_cases(DEMO_SET), seed=3)
    other = vary_cases(cases, seed=4)
    dump = [c.model_dump() for c in first.cases]
    assert dump == [c.model_dump() for c in again.cases]
    assert dump != [c.model_dump() for c in other.cases]


def test_a_variant_does_not_depend_on_the_rest_of_the_set() -> None:
    cases = pipeline_set()
    whole = vary_cases(cases, ["typo"], seed=1).cases
    alone = vary_cases(cases[2:3], ["typo"], seed=1).cases
    assert variant(whole, "zh-1~typo") == variant(alone, "zh-1~typo")


def test_every_origin_is_kept_and_followed_by_its_variants() -> None:
    cases = pipeline_set()
    out = vary_cases(cases, seed=0).cases
    assert [c.id for c in out if "~" not in c.id] == [c.id for c in cases]
    assert [c.model_dump() for c in out if "~" not in c.id] == [c.model_dump() for c in cases]
    assert [c.id for c in out][:3] == ["en-1", "en-1~typo", "en-1~out_of_scope"]


def test_typo_variant_english() -> None:
    out = vary_cases(pipeline_set(), ["typo"], seed=0).cases
    typo = variant(out, "en-1~typo")
    origin = pipeline_set()[0]
    assert typo.question != origin.question
    assert abs(len(typo.question) - len(origin.question)) <= 1
    assert typo.category == "typo"  # a normal case becomes a typo case
    assert typo.ground_truth == origin.ground_truth
    spec = typo.metadata["vary"]
    assert spec["origin"] == "en-1" and spec["kind"] == "typo" and spec["seed"] == 0
    assert spec["expect"] == {m: "same" for m in EXPECTATIONS["typo"]}
    before, after = spec["change"]["edit"].split(" → ")
    assert before in origin.question and after in typo.question
    assert variant(out, "en-2~typo").category == "multi_turn"
    assert variant(out, "en-2~typo").history == pipeline_set()[1].history


def test_english_typo_spares_names_numbers_and_first_letters() -> None:
    text = "Does SAML work with Okta on the Enterprise plan in 2024?"
    for seed in range(50):
        typo = make_typo(text, "en", random.Random(seed))
        assert typo is not None
        before, after = typo.edit.split(" → ")
        assert before in ("work", "plan")  # content words of 4+ lowercase letters
        assert after[0] == before[0] and after != before
        assert "SAML" in typo.text and "Okta" in typo.text and "2024" in typo.text


def test_chinese_typo_swaps_a_homophone() -> None:
    out = vary_cases(pipeline_set(), ["typo"], seed=0).cases
    typo = variant(out, "zh-1~typo")
    origin = "回收站里的笔记会保留多久？"
    assert len(typo.question) == len(origin)
    diffs = [(a, b) for a, b in zip(origin, typo.question, strict=True) if a != b]
    assert len(diffs) == 1 and HOMOPHONES[diffs[0][0]] == diffs[0][1]
    assert typo.metadata["vary"]["change"]["edit"].endswith("(homophone)")


def test_chinese_typo_drops_a_character_when_no_homophone_is_listed() -> None:
    text = "蓝鲸鳍骨？"
    assert not set(text) & set(HOMOPHONES)
    for seed in range(20):
        typo = make_typo(text, "zh", random.Random(seed))
        assert typo is not None and typo.edit.startswith("dropped ")
        assert len(typo.text) == len(text) - 1 and typo.text[0] == "蓝"
    assert make_typo("海豚", "zh", random.Random(0)) is None  # too short to lose a character


def test_typo_expectations_leave_out_retrieval_for_an_out_of_scope_origin() -> None:
    out = vary_cases(pipeline_set(), ["typo"], seed=0).cases
    typo = variant(out, "oos~typo")
    assert typo.category == "out_of_scope"
    assert typo.metadata["vary"]["expect"] == {"faithfulness": "same", "answer_relevancy": "same"}


def test_distractor_comes_from_another_case_and_keeps_the_rest() -> None:
    cases = answered_set()
    out = vary_cases(cases, ["distractor"], seed=0).cases
    for origin in cases:
        var = variant(out, f"{origin.id}~distractor")
        change = var.metadata["vary"]["change"]
        at = change["inserted_at"]
        assert origin.contexts is not None and var.contexts is not None
        assert var.contexts[:at] + var.contexts[at + 1 :] == origin.contexts
        inserted = var.contexts[at]
        assert inserted not in origin.contexts
        assert change["from_case"] != origin.id
        donor = variant(cases, change["from_case"])
        assert donor.contexts is not None and inserted in donor.contexts
        # same language when the set has one: English borrows from English, Chinese from Chinese
        assert (origin.id in "ab") == (donor.id in "ab")
        assert var.answer == origin.answer and var.question == origin.question
        assert var.metadata["vary"]["expect"] == EXPECTATIONS["distractor"]


def test_distractor_needs_another_case_with_a_chunk() -> None:
    lonely = answered_set()[:1]
    variation = vary_cases(lonely, ["distractor"], seed=0)
    assert variation.made == {"distractor": 0}
    assert [(s.kind, s.reason, s.case_ids) for s in variation.skipped] == [
        ("distractor", "no other case has a chunk to borrow", ["a"])
    ]


def test_shuffle_reorders_the_chunks() -> None:
    cases = answered_set()
    variation = vary_cases(cases, ["shuffle"], seed=0)
    for origin in cases[:3]:
        var = variant(variation.cases, f"{origin.id}~shuffle")
        order = var.metadata["vary"]["change"]["order"]
        assert origin.contexts is not None
        assert var.contexts == [origin.contexts[j] for j in order]
        assert var.contexts != origin.contexts
        assert var.metadata["vary"]["expect"]["context_precision"] == "reranked"
    assert [(s.reason, s.case_ids) for s in variation.skipped] == [("fewer than 2 contexts", ["d"])]
    same = Case(id="x", question="q?", ground_truth="t", contexts=["c", "c"], answer="a")
    assert (
        vary_cases([same], ["shuffle"]).skipped[0].reason == "its contexts are all the same chunk"
    )


def test_out_of_scope_variant() -> None:
    cases = pipeline_set()
    variation = vary_cases(cases, ["out_of_scope"], seed=0)
    en = variant(variation.cases, "en-2~out_of_scope")
    assert en.category == "out_of_scope" and en.history == []
    assert en.question in OUT_OF_SCOPE_QUESTIONS["en"]
    assert en.ground_truth == ABSTENTIONS["en"]
    assert en.metadata == {
        "vary": {
            "origin": "en-2",
            "kind": "out_of_scope",
            "seed": 0,
            "expect": {"answer_relevancy": "abstain"},
            "change": {},
        }
    }
    zh = variant(variation.cases, "zh-1~out_of_scope")
    assert zh.question in OUT_OF_SCOPE_QUESTIONS["zh"] and zh.ground_truth == ABSTENTIONS["zh"]
    assert [(s.reason, s.case_ids) for s in variation.skipped] == [
        ("out of scope already", ["oos"])
    ]


def test_out_of_scope_questions_are_never_repeated_and_the_bank_runs_out() -> None:
    cases = [
        Case(id=f"q{i}", question=f"How do I configure feature number {i}?", ground_truth="x")
        for i in range(len(OUT_OF_SCOPE_QUESTIONS["en"]) + 2)
    ]
    variation = vary_cases(cases, ["out_of_scope"], seed=0)
    questions = [c.question for c in variation.cases if c.id.endswith("~out_of_scope")]
    assert len(questions) == len(set(questions)) == len(OUT_OF_SCOPE_QUESTIONS["en"])
    (skipped,) = variation.skipped
    assert "is used up" in skipped.reason and len(skipped.case_ids) == 2


def test_cases_with_fixed_answers_get_no_out_of_scope_variant() -> None:
    variation = vary_cases(answered_set(), ["out_of_scope"])
    assert variation.made == {"out_of_scope": 0}
    assert "answer is fixed" in variation.skipped[0].reason


def test_cases_without_contexts_get_no_distractor_or_shuffle() -> None:
    variation = vary_cases(pipeline_set(), ["distractor", "shuffle"])
    assert variation.made == {"distractor": 0, "shuffle": 0}
    reasons = {(s.kind, s.reason): s.case_ids for s in variation.skipped}
    assert reasons[("distractor", "out of scope: nothing to retrieve")] == ["oos"]
    assert any("no contexts and answer" in reason for _, reason in reasons)


def test_limit_caps_each_kind() -> None:
    variation = vary_cases(load_cases(DEMO_SET), ["typo", "out_of_scope"], seed=0, limit=5)
    assert variation.made == {"typo": 5, "out_of_scope": 5}
    assert any(s.reason == "beyond --limit 5" for s in variation.skipped)


def test_varying_a_varied_set_or_a_taken_id_is_refused() -> None:
    varied = vary_cases(pipeline_set(), ["typo"]).cases
    with pytest.raises(CaseFileError, match="variants already"):
        vary_cases(varied, ["typo"])
    clash = [*pipeline_set(), Case(id="en-1~typo", question="Other question?", ground_truth="x")]
    with pytest.raises(CaseFileError, match="en-1~typo"):
        vary_cases(clash, ["typo"])


def test_parse_kinds() -> None:
    assert parse_kinds(None) == ("typo", "distractor", "shuffle", "out_of_scope")
    assert parse_kinds(["shuffle,typo", "out-of-scope"]) == ("typo", "shuffle", "out_of_scope")
    with pytest.raises(ConfigError, match="unknown kind 'typos'"):
        parse_kinds("typos")
    with pytest.raises(ConfigError, match="no kind named"):
        parse_kinds(" , ")


def test_written_set_loads_back_and_lints_clean(tmp_path: Path) -> None:
    cases = load_cases(DEMO_SET)
    variation = vary_cases(cases, seed=0)
    path = write_cases(variation.cases, tmp_path / "varied.jsonl")
    loaded = load_cases(path)
    assert [c.model_dump() for c in loaded] == [c.model_dump() for c in variation.cases]
    report = lint_cases(loaded)
    assert report.exit_code == 0
    assert [f.code for f in report.findings] == ["variants"]  # the demo set alone has none
    assert lint_cases(cases).findings == []


def test_lint_still_flags_a_variant_that_repeats_another_case() -> None:
    varied = vary_cases(pipeline_set(), ["typo"], seed=0).cases
    typo = variant(varied, "en-1~typo")
    copy = Case(id="other", question=typo.question, ground_truth="x")
    report = lint_cases([*varied, copy])
    (duplicate,) = [f for f in report.findings if f.code == "duplicate-question"]
    assert set(duplicate.case_ids) == {"en-1~typo", "other"}


def test_write_cases_wants_jsonl(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="JSONL"):
        write_cases(pipeline_set(), tmp_path / "varied.json")


def test_outputs_from_a_run_or_an_answers_file(tmp_path: Path) -> None:
    answers = tmp_path / "answers.jsonl"
    rows = [
        {"id": c.id, "contexts": [f"chunk of {c.id}", "another"], "answer": f"answer {c.id}"}
        for c in pipeline_set()
    ]
    answers.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    outputs = load_outputs(answers)
    attached = attach_outputs(pipeline_set(), outputs, source=str(answers))
    assert [c.answer for c in attached] == [f"answer {c.id}" for c in pipeline_set()]
    variation = vary_cases(attached, seed=0)
    assert variation.made["shuffle"] == 3 and variation.made["distractor"] == 3
    with pytest.raises(CaseFileError, match="1 eval case without one: 'oos'"):
        attach_outputs(pipeline_set(), {k: v for k, v in outputs.items() if k != "oos"}, source="x")

    run = make_run([result_case(c.id, {"faithfulness": 1.0}) for c in pipeline_set()])
    save_run(run, tmp_path / "run")
    from_run = load_outputs(tmp_path / "run")
    assert from_run["en-1"] == (run.cases[0].contexts, run.cases[0].answer)
    failed = [
        c.model_copy(update={"pipeline_error": "boom"}) if c.id == "en-2" else c for c in run.cases
    ]
    save_run(make_run(failed), tmp_path / "failed")
    with pytest.raises(ResultsError, match="pipeline failed on 1 case"):
        load_outputs(tmp_path / "failed")


# --- checking -------------------------------------------------------------------------------


def with_vary(case: CaseResult, origin: str, kind: str, expect: dict, change: dict) -> CaseResult:
    meta = {"vary": {"origin": origin, "kind": kind, "seed": 0, "expect": expect, "change": change}}
    return case.model_copy(update={"metadata": meta})


def precision(useful: list[bool]) -> MetricResult:
    from ragmeter.judges.rules import average_precision

    chunks = [ChunkVerdict(index=i, useful=u) for i, u in enumerate(useful)]
    return MetricResult(
        metric="context_precision",
        score=average_precision(useful),
        evidence=Evidence(chunks=chunks),
    )


def hand_made_run():
    """An origin and one variant of each kind: some expectations held, some broke."""
    ctx = ["useful chunk", "other chunk", "third chunk"]
    origin = result_case(
        "o",
        {"context_recall": 1.0, "faithfulness": 0.9, "answer_relevancy": 0.8},
        contexts=ctx,
    )
    origin.metrics["context_precision"] = precision([True, False, False])  # AP 1.0
    typo = with_vary(
        result_case(
            "o~typo",
            {"context_recall": 0.95, "context_precision": 1.0, "faithfulness": 0.5},
            contexts=ctx,
        ),
        "o",
        "typo",
        {m: "same" for m in ("context_recall", "context_precision", "faithfulness")}
        | {"answer_relevancy": "same"},
        {"edit": "x → y"},
    )
    typo.metrics["answer_relevancy"] = MetricResult.unscored("answer_relevancy", "judge error: x")
    distractor = with_vary(
        result_case(
            "o~distractor",
            {
                "context_recall": 1.0,
                "context_precision": 0.5,
                "faithfulness": 0.4,
                "answer_relevancy": 0.8,
            },
            contexts=[ctx[0], "borrowed chunk", *ctx[1:]],
        ),
        "o",
        "distractor",
        EXPECTATIONS["distractor"],
        {"inserted_at": 1, "from_case": "p"},
    )
    shuffled = [ctx[j] for j in (1, 0, 2)]
    shuffle = with_vary(
        result_case(
            "o~shuffle",
            {"context_recall": 1.0, "faithfulness": 0.9, "answer_relevancy": 0.8},
            contexts=shuffled,
        ),
        "o",
        "shuffle",
        EXPECTATIONS["shuffle"],
        {"order": [1, 0, 2]},
    )
    shuffle.metrics["context_precision"] = precision([False, True, False])  # AP 0.5
    oos = with_vary(
        result_case("o~out_of_scope", {"answer_relevancy": 0.0}, category="out_of_scope"),
        "o",
        "out_of_scope",
        EXPECTATIONS["out_of_scope"],
        {},
    )
    return make_run([origin, typo, distractor, shuffle, oos])


def statuses(check) -> dict[tuple[str, str], str]:
    return {(o.variant, o.metric): o.status for o in check.outcomes}


def test_check_pairs_each_variant_with_its_origin() -> None:
    check = check_run(hand_made_run(), tolerance=0.1)
    assert check.variants == 4
    assert statuses(check) == {
        ("o~typo", "context_recall"): "held",  # 1.0 -> 0.95, within 0.1
        ("o~typo", "context_precision"): "held",
        ("o~typo", "faithfulness"): "broke",  # 0.9 -> 0.5
        ("o~typo", "answer_relevancy"): "unscored",  # never held
        ("o~distractor", "context_recall"): "held",
        ("o~distractor", "context_precision"): "held",  # down: as expected
        ("o~distractor", "faithfulness"): "broke",  # the distractor overruled the evidence
        ("o~distractor", "answer_relevancy"): "held",
        ("o~shuffle", "context_recall"): "held",
        ("o~shuffle", "context_precision"): "held",  # 0.5, as the re-ranked verdicts predict
        ("o~shuffle", "faithfulness"): "held",
        ("o~shuffle", "answer_relevancy"): "held",
        ("o~out_of_scope", "answer_relevancy"): "broke",  # it answered
    }
    shuffle = next(o for o in check.outcomes if o.variant == "o~shuffle" and o.predicted)
    assert shuffle.predicted == 0.5
    unscored = next(o for o in check.outcomes if o.status == "unscored")
    assert unscored.reason == "variant unscored: judge error: x"
    rows = {(r.kind, r.metric): r for r in check.rows}
    assert rows[("typo", "faithfulness")].broke == 1
    assert rows[("typo", "answer_relevancy")].unscored == 1
    assert rows[("typo", "answer_relevancy")].held == 0
    assert [r.kind for r in check.rows][:4] == ["typo"] * 4
    assert check.exit_code(fail_on_broken=True) == 1
    assert check.exit_code(fail_on_broken=False) == 0


def test_tolerance_decides_same() -> None:
    assert statuses(check_run(hand_made_run(), tolerance=0.0))[("o~typo", "context_recall")] == (
        "broke"
    )
    assert statuses(check_run(hand_made_run(), tolerance=0.5))[("o~typo", "faithfulness")] == (
        "held"
    )


def test_a_shuffled_precision_that_ignores_the_chunks_breaks() -> None:
    run = hand_made_run()
    shuffle = next(c for c in run.cases if c.id == "o~shuffle")
    shuffle.metrics["context_precision"] = precision([True, False, False])  # still 1.0
    run = make_run(run.cases)
    assert statuses(check_run(run))[("o~shuffle", "context_precision")] == "broke"


def test_a_variation_the_run_did_not_apply_is_not_checked() -> None:
    run = hand_made_run()
    for case in run.cases:
        if case.id in ("o~distractor", "o~shuffle"):
            case.contexts = list(run.cases[0].contexts)  # a pipeline retrieved its own
    check = check_run(make_run(run.cases))
    for kind in ("distractor", "shuffle"):
        outcomes = [o for o in check.outcomes if o.kind == kind]
        assert {o.status for o in outcomes} == {"not_checked"}
        assert "not the origin's" in outcomes[0].reason


def test_a_missing_origin_or_an_unscored_origin_is_never_held() -> None:
    run = hand_made_run()
    origin = run.cases[0]
    origin.metrics["faithfulness"] = metric_result("faithfulness", "refusal: answer has no claims")
    check = check_run(make_run(run.cases))
    typo = {o.metric: o for o in check.outcomes if o.variant == "o~typo"}
    assert typo["faithfulness"].status == "unscored"
    assert typo["faithfulness"].reason.startswith("origin unscored: refusal")
    variant_case = run.cases[1]
    variant_case.metrics["faithfulness"] = origin.metrics["faithfulness"]
    both = {o.metric: o for o in check_run(make_run(run.cases)).outcomes if o.variant == "o~typo"}
    assert both["faithfulness"].reason == (
        "origin and variant unscored: refusal: answer has no claims"
    )
    without_origin = check_run(make_run(run.cases[1:]))
    assert {o.status for o in without_origin.outcomes if o.kind != "out_of_scope"} == {
        "not_checked"
    }


def test_check_refuses_a_run_without_variants_or_with_bad_metadata(tmp_path: Path) -> None:
    plain = make_run([result_case("a", {"faithfulness": 1.0})])
    with pytest.raises(ResultsError, match="no variants"):
        check_run(plain)
    bad = with_vary(result_case("a~typo", {"faithfulness": 1.0}), "a", "typo", {}, {})
    bad.metadata["vary"]["expect"] = {"faithfulness": "higher"}
    with pytest.raises(ResultsError, match=r"'expect\.faithfulness' 'higher'"):
        check_run(make_run([result_case("a", {"faithfulness": 1.0}), bad]))


def test_check_reads_a_saved_run(tmp_path: Path) -> None:
    save_run(hand_made_run(), tmp_path / "run")
    check = load_check(tmp_path / "run")
    assert check.source.endswith("results.json")
    assert len(check.broken) == 3


# --- end to end -------------------------------------------------------------------------------


def test_end_to_end_with_the_demo_pipeline_and_the_local_judge(tmp_path: Path) -> None:
    """Vary a few demo cases, run them through the bundled pipeline and the local judge, check."""
    import ragmeter

    cases = [c for c in load_cases(DEMO_SET) if c.id in ("en-003", "zh-003", "en-037")]
    variation = vary_cases(cases, ["typo", "out_of_scope"], seed=0)
    path = write_cases(variation.cases, tmp_path / "varied.jsonl")
    result = ragmeter.evaluate(path, pipeline="ragmeter.demo.pipeline:answer", judge="local")
    ragmeter.save_run(result, tmp_path / "run")
    check = load_check(tmp_path / "run")
    assert check.variants == variation.n_variants == 5
    kinds = {(r.kind, r.metric) for r in check.rows}
    assert ("out_of_scope", "answer_relevancy") in kinds and ("typo", "faithfulness") in kinds
    for row in check.rows:
        assert row.pairs == row.held + row.broke + row.unscored + row.not_checked
        assert row.not_checked == 0
    oos = [o for o in check.outcomes if o.kind == "out_of_scope"]
    assert len(oos) == 2 and all(o.status in ("held", "broke") for o in oos)
