"""The JSON report carries what the other reports print about the judge."""

import json

from factories import case, run
from ragmeter.report.inputs import ReportInputs
from ragmeter.report.json_report import render_json
from ragmeter.report.judge_agreement import calibration_lines
from ragmeter.results import CalibrationNote

SCORES = {"faithfulness": 0.9, "answer_relevancy": 0.9}


def _json(result) -> dict:
    return json.loads(render_json(ReportInputs(result)))


def test_json_report_has_the_calibration_the_other_reports_print():
    result = run([case("a", SCORES), case("b", SCORES)])
    result.run.calibration = [
        CalibrationNote(
            metric="faithfulness",
            measure="Spearman",
            value=0.56,
            ci=(0.46, 0.63),
            n=298,
            reference="MTRAG",
        )
    ]
    calibration = _json(result)["calibration"]
    assert calibration["metrics"] == {
        "faithfulness": {
            "calibrated": True,
            "measure": "Spearman",
            "value": 0.56,
            "ci": [0.46, 0.63],
            "n": 298,
            "public_set": True,
            "reference": "MTRAG",
            "labels_file": "",
            "indicative_only": False,
        },
        "answer_relevancy": {"calibrated": False},
    }
    assert calibration["lines"] == calibration_lines(result)
    assert calibration["lines"][:2] == [
        "faithfulness judge: Spearman 0.56 [0.46, 0.63] vs people on 298 MTRAG cases (public set)",
        "answer_relevancy judge: uncalibrated",
    ]


def test_json_report_of_an_uncalibrated_judge_says_so_per_metric():
    calibration = _json(run([case("a", SCORES)]))["calibration"]
    assert calibration["metrics"] == {
        "faithfulness": {"calibrated": False},
        "answer_relevancy": {"calibrated": False},
    }
    assert calibration["lines"][0].startswith("uncalibrated judge:")


def test_json_report_names_the_labels_of_an_own_calibration():
    result = run([case("a", SCORES)])
    result.run.calibration = [
        CalibrationNote(
            metric="answer_relevancy", measure="AUROC", value=0.8, n=50, labels_file="mine.jsonl"
        )
    ]
    shown = _json(result)["calibration"]["metrics"]["answer_relevancy"]
    assert shown["public_set"] is False and shown["labels_file"] == "mine.jsonl"
    assert shown["ci"] is None and shown["n"] == 50
