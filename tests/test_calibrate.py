"""Calibration: labelled-case loading, agreement of real judges, storage by fingerprint, PPI."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from factories import case, run
from ragmeter._exceptions import CaseFileError
from ragmeter.calibrate import (
    calibrate,
    calibrate_run,
    calibration_notes,
    find_calibration,
    load_calibration,
    store_calibration,
)
from ragmeter.cli import app
from ragmeter.judges.base import JudgeFingerprint
from ragmeter.judges.local import LocalJudge
from ragmeter.labels import label_kind, load_case_labels, load_labelled_cases
from ragmeter.testing import FakeOpenAI

CONTEXT = (
    "The Eiffel Tower is 330 metres tall. It opened in 1889 in Paris. "
    "Gustave Eiffel's company designed and built it."
)
FAITHFUL = [
    "The Eiffel Tower is 330 metres tall.",
    "It opened in 1889.",
    "The tower stands in Paris.",
    "Gustave Eiffel's company built the tower.",
    "The Eiffel Tower opened in 1889 in Paris.",
]
UNFAITHFUL = [
    "The Eiffel Tower is 512 metres tall.",
    "It opened in 1925.",
    "The tower was moved to Lyon by Napoleon in 1950.",
    "Bananas are the main export of Iceland according to Reykjavik officials.",
    "The tower is painted with 60 tonnes of gold by Marconi.",
]


def write_labels(path, graded: bool = False) -> None:
    rows = []
    for i, answer in enumerate(FAITHFUL + UNFAITHFUL):
        good = i < len(FAITHFUL)
        value = (0.67 + 0.33 * (i % 2)) if graded and good else float(good)
        if graded and not good:
            value = 0.33 * (i % 2)
        rows.append(
            {
                "id": f"c{i}",
                "question": "Tell me about the Eiffel Tower.",
                "contexts": [CONTEXT],
                "answer": answer,
                "labels": {"faithfulness": value},
                "label_meta": {"raters": 2},
            }
        )
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")


# --- the labelled-case format ---------------------------------------------------------------


def test_load_labelled_cases(tmp_path):
    path = tmp_path / "labels.jsonl"
    write_labels(path)
    cases = load_labelled_cases(path)
    assert len(cases) == 10
    assert cases[0].labels == {"faithfulness": 1.0}
    assert cases[0].to_case().answer == FAITHFUL[0]
    assert label_kind(c.labels["faithfulness"] for c in cases) == "binary"
    assert label_kind([0.0, 0.67, 1.0]) == "graded"


@pytest.mark.parametrize(
    ("record", "field", "says"),
    [
        ({"question": "q", "answer": "a"}, "labels", "missing labels"),
        (
            {"question": "q", "answer": "a", "labels": {"faithfullness": 1}},
            "labels.faithfullness",
            "did you mean 'faithfulness'",
        ),
        (
            {"question": "q", "answer": "a", "labels": {"faithfulness": 3}},
            "labels.faithfulness",
            "outside [0, 1]",
        ),
        (
            {"question": "q", "answer": "a", "labels": {"faithfulness": "yes"}},
            "labels.faithfulness",
            "must be a number",
        ),
        ({"question": "q", "labels": {"faithfulness": 1}}, "answer", "missing"),
        (
            {"question": "q", "answer": "a", "labels": {"faithfulness": 1}, "contexts": "x"},
            "contexts",
            "list",
        ),
    ],
)
def test_errors_name_file_line_and_field(tmp_path, record, field, says):
    path = tmp_path / "labels.jsonl"
    good = {"id": "ok", "question": "q", "answer": "a", "labels": {"faithfulness": 1}}
    path.write_text(json.dumps(good) + "\n\n" + json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(CaseFileError) as info:
        load_labelled_cases(path)
    assert info.value.line == 3
    assert info.value.field == field
    assert says in str(info.value)
    assert str(info.value).startswith(f"{path}:3: field '{field}'")


def test_duplicate_ids_and_run_labels_need_ids(tmp_path):
    path = tmp_path / "labels.jsonl"
    row = {"id": "x", "question": "q", "answer": "a", "labels": {"faithfulness": 1}}
    path.write_text(json.dumps(row) + "\n" + json.dumps(row) + "\n", encoding="utf-8")
    with pytest.raises(CaseFileError, match="duplicate id 'x'"):
        load_labelled_cases(path)
    path.write_text(json.dumps({"labels": {"faithfulness": 1}}) + "\n", encoding="utf-8")
    with pytest.raises(CaseFileError, match="missing id"):
        load_case_labels(path)


# --- calibrating real judges ----------------------------------------------------------------


def test_local_judge_agrees_on_clear_cases(tmp_path):
    path = tmp_path / "labels.jsonl"
    write_labels(path)
    result = calibrate(load_labelled_cases(path), LocalJudge(embedder=None), resamples=200)
    part = result.metrics["faithfulness"]
    assert part.kind == "binary" and part.n + part.n_unscored == 10
    values = {m.name: m.value for m in part.measures}
    assert values["AUROC"] >= 0.9
    assert values["balanced accuracy"] >= 0.8
    assert part.headline is not None and part.headline.name == "AUROC"
    assert part.line().startswith("faithfulness judge: AUROC ")
    assert result.judge_key == result.judge.key()

    write_labels(path, graded=True)
    graded = calibrate(load_labelled_cases(path), LocalJudge(embedder=None), resamples=200)
    names = [m.name for m in graded.metrics["faithfulness"].measures]
    assert names == ["Spearman", "Kendall"]
    assert graded.metrics["faithfulness"].measures[0].value > 0.5


def test_cli_with_local_judge_stores_and_later_runs_report_it(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGMETER_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "labels.jsonl"
    write_labels(path)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["calibrate", str(path), "--out", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "AUROC" in result.output and "balanced accuracy" in result.output
    saved = load_calibration(out)
    assert saved.metrics["faithfulness"].n + saved.metrics["faithfulness"].n_unscored == 10
    # a later run with the same judge fingerprint finds it; a different judge does not
    notes = calibration_notes(saved.judge)
    assert [n.metric for n in notes] == ["faithfulness"] and notes[0].measure == "AUROC"
    other = saved.judge.model_copy(update={"prompt_version": "other"})
    assert calibration_notes(other) == []


def test_run_report_shows_calibration_or_uncalibrated(tmp_path, monkeypatch):
    from ragmeter.cases import Case
    from ragmeter.config import Settings
    from ragmeter.evaluation import run_and_save
    from ragmeter.pipeline import PrecomputedPipeline
    from ragmeter.report.terminal import render_text

    monkeypatch.setenv("RAGMETER_CACHE_DIR", str(tmp_path / "cache"))
    cases = [Case(id="a", question="How tall?", contexts=[CONTEXT], answer=FAITHFUL[0])]
    before = run_and_save(
        cases,
        PrecomputedPipeline(),
        Settings(),
        out_dir=tmp_path / "r1",
        judge=LocalJudge(embedder=None),
        metrics=("faithfulness",),
    )
    assert before.run.calibration == []
    assert "uncalibrated judge" in render_text(before)
    path = tmp_path / "labels.jsonl"
    write_labels(path)
    store_calibration(
        calibrate(load_labelled_cases(path), LocalJudge(embedder=None), resamples=100)
    )
    after = run_and_save(
        cases,
        PrecomputedPipeline(),
        Settings(),
        out_dir=tmp_path / "r2",
        judge=LocalJudge(embedder=None),
        metrics=("faithfulness",),
    )
    assert [n.metric for n in after.run.calibration] == ["faithfulness"]
    assert "faithfulness judge: AUROC" in render_text(after)
    assert "vs people on" in render_text(after)


def test_cli_with_openai_judge_against_fake_server(tmp_path, monkeypatch):
    from ragmeter.llm import forget_output_modes

    forget_output_modes()
    monkeypatch.setenv("RAGMETER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    path = tmp_path / "labels.jsonl"
    write_labels(path)
    out = tmp_path / "out"
    with FakeOpenAI() as server:
        result = CliRunner().invoke(
            app,
            [
                "calibrate",
                str(path),
                "--judge",
                "openai",
                "--model",
                "judge-m",
                "--base-url",
                server.base_url,
                "--no-cache",
                "--out",
                str(out),
                "--no-progress",
            ],
        )
        calls = server.counts()
    assert result.exit_code == 0, result.output
    assert sum(calls.values()) >= 10
    saved = load_calibration(out)
    assert saved.judge.kind == "openai" and saved.judge.model == "judge-m"
    part = saved.metrics["faithfulness"]
    assert part.n == 10
    assert {m.name for m in part.measures} == {"AUROC", "balanced accuracy", "Cohen's kappa"}
    assert find_calibration(saved.judge) is not None


def test_cli_reports_bad_label_file(tmp_path):
    path = tmp_path / "labels.jsonl"
    path.write_text('{"question": "q", "answer": "a", "labels": {"faithfulness": 2}}\n')
    result = CliRunner().invoke(
        app, ["calibrate", str(path), "--no-progress", "--no-store", "--out", str(tmp_path / "o")]
    )
    assert result.exit_code == 2
    assert "labels.faithfulness" in result.output and "outside [0, 1]" in result.output


# --- calibrating on a run's cases, with a prediction-powered estimate ----------------------


def lenient_run(n: int = 300, seed: int = 4):
    rng = np.random.default_rng(seed)
    truth = rng.random(n) < 0.6
    scores = np.clip(0.4 + 0.55 * truth + rng.normal(0, 0.1, n), 0, 1)
    cases = [case(f"c{i}", {"faithfulness": float(s)}) for i, s in enumerate(scores)]
    fp = JudgeFingerprint(kind="local", model="m", prompt_version="1")
    return run(cases, judge_fp=fp), truth


def test_calibrate_run_gives_agreement_and_ppi(tmp_path):
    result, truth = lenient_run()
    labels = {f"c{i}": {"faithfulness": float(truth[i])} for i in range(0, 300, 5)}
    cal = calibrate_run(result, labels, resamples=100)
    part = cal.metrics["faithfulness"]
    assert part.n == 60 and part.kind == "binary"
    assert {m.name: m.value for m in part.measures}["AUROC"] > 0.95
    est = cal.estimates["faithfulness"]
    assert est.n_labelled == 60 and est.n_unlabelled == 240
    assert est.judge_mean > truth.mean() + 0.1  # raw judge is lenient
    assert est.ci[0] <= truth.mean() <= est.ci[1]


def test_cli_run_mode_writes_estimate_into_the_run_dir(tmp_path, monkeypatch):
    from ragmeter.results import save_run

    monkeypatch.setenv("RAGMETER_CACHE_DIR", str(tmp_path / "cache"))
    result, truth = lenient_run()
    save_run(result, tmp_path / "run")
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        "".join(
            json.dumps({"id": f"c{i}", "labels": {"faithfulness": int(truth[i])}}) + "\n"
            for i in range(0, 300, 6)
        )
    )
    out = CliRunner().invoke(app, ["calibrate", str(labels), "--run", str(tmp_path / "run")])
    assert out.exit_code == 0, out.output
    assert "Prediction-powered estimate" in out.output
    saved = load_calibration(tmp_path / "run")
    assert saved.estimates["faithfulness"].n_labelled == 50
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "nope", "labels": {"faithfulness": 1}}) + "\n")
    out = CliRunner().invoke(app, ["calibrate", str(bad), "--run", str(tmp_path / "run")])
    assert out.exit_code == 2 and "not cases of the run" in out.output
