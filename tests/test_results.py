import json
import re

import pytest

from ragmeter._exceptions import ResultsError
from ragmeter.judges.base import JudgeFingerprint, MetricResult
from ragmeter.results import (
    SCHEMA_VERSION,
    CaseResult,
    RunResult,
    load_run,
    save_run,
    write_atomic,
)
from ragmeter.results.diagnosis import diagnose
from ragmeter.results.summary import summarize_run


def _run(n_cases: int = 5) -> RunResult:
    cases = [
        CaseResult(
            id=str(i),
            question="q",
            metrics={"faithfulness": MetricResult(metric="faithfulness", score=i / 4)},
        )
        for i in range(n_cases)
    ]
    if cases:
        cases[0].answer = '两年。\nLine two, "quoted" \u2028'
        cases[0].contexts = ["[]", "}"]
    summary = summarize_run(cases, ("faithfulness",))
    return RunResult(
        judge=JudgeFingerprint(kind="local", model="m", prompt_version="1"),
        summary=summary,
        diagnosis=diagnose(summary),
        cases=cases,
    )


def test_metric_result_has_score_or_reason_never_both():
    with pytest.raises(ValueError):
        MetricResult(metric="faithfulness")
    with pytest.raises(ValueError):
        MetricResult(metric="faithfulness", score=0.5, unscored_reason="x")
    with pytest.raises(ValueError):
        MetricResult(metric="faithfulness", score=1.5)
    assert MetricResult.unscored("faithfulness", "refusal").scored is False


def test_round_trip_and_compact_summary(tmp_path):
    run = _run()
    path = save_run(run, tmp_path / "out")
    loaded = load_run(tmp_path / "out")
    assert loaded == run
    data = json.loads(path.read_text())
    assert data["schema_version"] == SCHEMA_VERSION
    compact = loaded.summary_dict()["faithfulness"]
    assert compact["mean"] == pytest.approx(0.5)
    assert compact["n_scored"] == 5 and compact["n_unscored"] == 0
    low, high = compact["ci"]
    assert low < 0.5 < high


@pytest.mark.parametrize("n_cases", [0, 1, 5])
def test_results_json_is_written_case_by_case_exactly_as_one_dump(tmp_path, n_cases):
    run = _run(n_cases)
    path = save_run(run, tmp_path / "out")
    assert path.read_text(encoding="utf-8") == run.model_dump_json(indent=2)
    assert load_run(path) == run


def test_a_failed_streamed_write_leaves_the_old_file(tmp_path):
    target = tmp_path / "results.json"
    target.write_text("old")

    def pieces():
        yield "new, part one"
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full; the previous file is unchanged"):
        write_atomic(target, pieces())
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


def test_newer_schema_is_refused_with_advice(tmp_path):
    data = json.loads(_run().model_dump_json())
    data["schema_version"] = SCHEMA_VERSION + 1
    (tmp_path / "results.json").write_text(json.dumps(data))
    with pytest.raises(ResultsError, match="upgrade ragmeter"):
        load_run(tmp_path)


def test_missing_results_file_says_what_to_do(tmp_path):
    with pytest.raises(ResultsError, match="ragmeter run"):
        load_run(tmp_path)


def test_corrupt_results_and_calibration_files_are_named(tmp_path):
    from ragmeter.results.calibration import load_calibration

    for name, load in (("results.json", load_run), ("calibration.json", load_calibration)):
        (tmp_path / name).write_text('{"schema_version": 1, "cases": [')
        with pytest.raises(ResultsError, match=f"{name}: not valid JSON"):
            load(tmp_path)
    with pytest.raises(ResultsError, match="ragmeter calibrate"):
        load_calibration(tmp_path / "elsewhere")


def test_atomic_write_keeps_old_file_when_interrupted(tmp_path, monkeypatch):
    target = tmp_path / "results.json"
    target.write_text("old")

    def boom(*_args):
        raise OSError("disk full")

    monkeypatch.setattr("os.replace", boom)
    with pytest.raises(OSError):
        write_atomic(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


def test_a_file_from_before_reason_codes_loads_with_its_summary_rebuilt_bounded(tmp_path):
    """Files written before codes: no `reason_code`, reasons naming their case, one unscored
    reason per case in the summary, groups without a code. They load, and their breakdowns are
    rebuilt from the cases: bounded, by code."""
    from ragmeter.results.summary import MAX_REASONS

    cases = []
    for i in range(60):
        cid = f"c{i}"
        reason = f"pipeline error: no answer for case '{cid}' in a.jsonl"
        if i % 3 == 0:
            reason = f"pipeline error: pipeline rag raised KeyError: 'doc-{i}'"
        cases.append(
            CaseResult(
                id=cid,
                question="q",
                pipeline_error=reason.removeprefix("pipeline error: "),
                metrics={"faithfulness": MetricResult.unscored("faithfulness", reason)},
            )
        )
    cases.append(
        CaseResult(
            id="fine",
            question="q",
            metrics={"faithfulness": MetricResult(metric="faithfulness", score=0.9)},
        )
    )
    summary = summarize_run(cases, ("faithfulness",))
    run = RunResult(
        judge=JudgeFingerprint(kind="local", model="m", prompt_version="1"),
        summary=summary,
        diagnosis=diagnose(summary),
        cases=cases,
    )
    data = json.loads(run.model_dump_json())
    for case in data["cases"]:
        for result in case["metrics"].values():
            del result["reason_code"]
    stats = data["summary"]["metrics"]["faithfulness"]
    stats["unscored_reasons"] = {  # as written then: one reason per case
        c["metrics"]["faithfulness"]["unscored_reason"]: 1
        for c in data["cases"]
        if c["pipeline_error"]
    }
    data["summary"]["unscored_groups"] = [
        {
            "cause": "pipeline error: pipeline rag raised KeyError: 'doc-0'",
            "metrics": ["faithfulness"],
            "n_cases": 1,
            "n_results": 1,
            "example_ids": ["c0"],
        }
    ]
    assert len(stats["unscored_reasons"]) == 60
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data))

    loaded = load_run(path)
    reasons = loaded.summary.metrics["faithfulness"].unscored_reasons
    assert len(reasons) <= MAX_REASONS + 1 and sum(reasons.values()) == 60
    assert reasons["pipeline error: no answer for case '…' in a.jsonl"] == 40
    first = loaded.summary.unscored_groups[0]
    assert (first.code, first.n_cases, first.example_ids) == (
        "pipeline_error",
        40,
        ["c1", "c2", "c4"],
    )
    assert all(g.code == "pipeline_error" for g in loaded.summary.unscored_groups)
    assert loaded.cases[0].metrics["faithfulness"].reason_code is None  # as the file has it


@pytest.mark.parametrize(
    ("number", "words"),
    [
        ("1e999", "field 'cases.2.pipeline_seconds': Infinity is not a number ragmeter writes"),
        ("-Infinity", "field 'cases.2.pipeline_seconds': -Infinity is not a number"),
        ("1" * 5000, "not valid JSON (Exceeds the limit (4300 digits)"),
    ],
)
def test_numbers_ragmeter_never_writes_are_refused_in_one_line(tmp_path, number, words):
    path = save_run(_run(), tmp_path)
    text = path.read_text().replace('"pipeline_seconds": null', '"pipeline_seconds": "X"')
    text = text.replace('"X"', "null", 2).replace('"X"', number, 1)  # in the third case
    path.write_text(text.replace('"X"', "null"))
    with pytest.raises(ResultsError, match=re.escape(words)):
        load_run(path)


def test_a_cases_outcome_is_its_aggregate_score_failed_or_unscored():
    from factories import case

    c = case(
        "c",
        {"faithfulness": 0.9, "answer_relevancy": "judge error: boom", "context_recall": "x"},
        repeats={"faithfulness": [0.9, 0.3, 0.3], "answer_relevancy": [None, 0.9, 0.8]},
    )
    faith = c.outcome("faithfulness", 0.7)
    assert faith.score == pytest.approx(0.5) and faith.failed and faith.unscored_reason is None
    assert faith.result is c.metrics["faithfulness"]  # the evidence: the first judgement's
    assert not c.outcome("faithfulness").failed  # no threshold, no failure
    relevancy = c.outcome("answer_relevancy", 0.5)  # first unscored, two scored repeats
    assert relevancy.score == pytest.approx(0.85) and not relevancy.failed
    assert relevancy.unscored_reason is None
    recall = c.outcome("context_recall", 0.5)
    assert (recall.score, recall.failed, recall.unscored_reason) == (None, False, "x")
    precision = c.outcome("context_precision", 0.5)
    assert (precision.score, precision.result, precision.unscored_reason) == (
        None,
        None,
        "not judged",
    )
