import json

import pytest

from ragmeter._exceptions import ResultsError
from ragmeter.diagnosis import diagnose
from ragmeter.judges.base import JudgeFingerprint, MetricResult
from ragmeter.results import (
    SCHEMA_VERSION,
    CaseResult,
    RunResult,
    load_run,
    save_run,
    write_atomic,
)
from ragmeter.summary import summarize_run


def _run() -> RunResult:
    cases = [
        CaseResult(
            id=str(i),
            question="q",
            metrics={"faithfulness": MetricResult(metric="faithfulness", score=i / 4)},
        )
        for i in range(5)
    ]
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
    from ragmeter.calibrate import load_calibration

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
