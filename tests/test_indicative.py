"""A metric whose judge agrees with people near chance is indicative only: reports say so, the
diagnosis names no stage on it alone, and the gate's floor on it warns unless enforced."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from factories import uniform_run
from ragmeter.cli import app
from ragmeter.compare.gate import gate_run
from ragmeter.config import GateSettings
from ragmeter.judges.local import LocalJudge
from ragmeter.judges.local import reference as local_reference
from ragmeter.report.html import render_html
from ragmeter.report.inputs import ReportInputs
from ragmeter.report.json_report import render_json
from ragmeter.report.judge_agreement import calibration_dict, calibration_lines
from ragmeter.report.markdown import render_markdown
from ragmeter.report.terminal import render_text
from ragmeter.results import CalibrationNote, save_run
from ragmeter.results.diagnosis import diagnose
from ragmeter.results.indicative import indicative_metrics, near_chance
from ragmeter.run.calibrate import calibration_notes

RELEVANCY = CalibrationNote(
    metric="answer_relevancy", measure="Spearman", value=-0.03, ci=(-0.15, 0.07), n=309
)
FAITHFULNESS = CalibrationNote(
    metric="faithfulness", measure="Spearman", value=0.56, ci=(0.46, 0.63), n=298
)
GOOD = {"context_recall": 0.9, "context_precision": 0.9, "faithfulness": 0.95}


@pytest.mark.parametrize(
    ("measure", "value", "ci", "expected"),
    [
        ("Spearman", -0.03, (-0.15, 0.07), True),  # the local judge's relevancy on MTRAG
        ("Spearman", 0.56, (0.46, 0.63), False),  # its faithfulness
        ("Spearman", 0.5, (0.08, 0.8), True),  # too few labels to tell it from chance
        ("Spearman", 0.5, (0.11, 0.8), False),
        ("AUROC", 0.64, (0.57, 0.70), False),  # 2 * (0.57 - 0.5) = 0.14
        ("AUROC", 0.58, (0.52, 0.64), True),  # 2 * (0.52 - 0.5) = 0.04
        ("Spearman", 0.15, None, True),  # no interval: the value must clear 0.2
        ("Spearman", 0.3, None, False),
    ],
)
def test_the_near_chance_rule(measure, value, ci, expected):
    note = CalibrationNote(metric="faithfulness", measure=measure, value=value, ci=ci, n=50)
    assert near_chance(note) is expected


def _lower_bound(row: dict) -> float:
    return row["ci"][0] if row.get("ci") else row["value"] - 0.1


def test_the_rule_reads_the_local_judges_shipped_reference_not_a_fixed_metric(monkeypatch):
    fingerprint = LocalJudge().fingerprint()
    shipped = local_reference.load_reference()
    assert shipped is not None and shipped["judge_key"] == fingerprint.key()
    # Spearman figures: near chance when the lower bound is at most 0.1 above 0.
    expected = {row["metric"] for row in shipped["headline"] if _lower_bound(row) <= 0.1}
    notes = calibration_notes(fingerprint, root="/nonexistent-calibrations")
    assert {n.metric for n in notes} == {row["metric"] for row in shipped["headline"]}
    assert set(indicative_metrics(notes)) == expected
    # The same judge with other figures in the file: the metric flagged follows the file.
    for weak, strong in (
        ("faithfulness", "answer_relevancy"),
        ("answer_relevancy", "faithfulness"),
    ):
        edited = json.loads(json.dumps(shipped))
        for row in edited["headline"]:
            near = row["metric"] == weak
            row["value"], row["ci"] = (0.05, [-0.05, 0.15]) if near else (0.5, [0.4, 0.6])
        monkeypatch.setattr(local_reference, "load_reference", lambda edited=edited: edited)
        notes = calibration_notes(fingerprint, root="/nonexistent-calibrations")
        assert set(indicative_metrics(notes)) == {weak}, strong


def test_the_diagnosis_names_no_stage_on_an_indicative_metric_alone():
    summary = uniform_run(30, {**GOOD, "answer_relevancy": 0.3}).summary
    assert diagnose(summary).fix_first == "generation"  # as before, without the agreement
    diagnosis = diagnose(summary, indicative=indicative_metrics([RELEVANCY, FAITHFULNESS]))
    assert diagnosis.fix_first is None
    assert diagnosis.headline.startswith("No stage to fix named: answer_relevancy is under")
    finding = next(f for f in diagnosis.findings if f.metric == "answer_relevancy")
    assert finding.severity == "indicative"
    assert "< target 0.80; indicative only: its judge agrees with people near chance" in (
        finding.message
    )
    # A weak metric the judge measures well is still named first.
    weak = uniform_run(30, {**GOOD, "faithfulness": 0.5, "answer_relevancy": 0.3}).summary
    diagnosis = diagnose(weak, indicative=indicative_metrics([RELEVANCY, FAITHFULNESS]))
    assert diagnosis.fix_first == "generation"
    assert diagnosis.headline.startswith("Fix generation first: answers state things")
    assert "answer_relevancy is under target, but indicative only" in diagnosis.headline


def _relevancy_run(value: float):
    run = uniform_run(40, {**GOOD, "answer_relevancy": value})
    run.run.calibration = [FAITHFULNESS, RELEVANCY]
    return run


def test_the_gate_floor_of_an_indicative_metric_warns_unless_enforced():
    run = _relevancy_run(0.3)
    result = gate_run(run)
    assert result.passed
    check = next(c for c in result.checks if c.kind == "floor" and c.metric == "answer_relevancy")
    assert check.status == "warn" and check.indicative.startswith("its judge agrees")
    verdict = next(v for v in result.verdicts if v.metric == "answer_relevancy")
    (line,) = verdict.lines
    assert verdict.status == "warn" and line.startswith("WARN floor answer_relevancy: mean 0.300")
    assert line.endswith(
        "— significantly below the floor, but the metric is indicative only (its judge agrees "
        "with people near chance), so it warns; --enforce-indicative fails it"
    )
    assert any("indicative only" in w and "--enforce-indicative" in w for w in result.warnings)
    enforced = gate_run(run, GateSettings(enforce_indicative=True))
    assert not enforced.passed and enforced.failed_kinds == ["floor"]
    # A faithfulness floor (its judge agrees with people) still fails.
    bad = uniform_run(40, {**GOOD, "faithfulness": 0.3, "answer_relevancy": 0.9})
    bad.run.calibration = [FAITHFULNESS, RELEVANCY]
    assert not gate_run(bad).passed


def test_a_literal_floor_of_an_indicative_metric_warns_unless_enforced():
    run = uniform_run(40, {**GOOD, "answer_relevancy": [0.6, 0.96] * 20})  # 0.78, within noise
    run.run.calibration = [FAITHFULNESS, RELEVANCY]
    assert [c.status for c in gate_run(run).checks if c.kind == "floor"] == ["pass", "pass"]
    literal = gate_run(run, GateSettings(literal=True))
    assert literal.passed
    check = next(c for c in literal.checks if c.metric == "answer_relevancy")
    assert check.status == "warn" and check.line.startswith("WARN floor answer_relevancy:")
    assert "(literal) — below the floor" in check.line and "so it warns" in check.line
    enforced = gate_run(run, GateSettings(literal=True, enforce_indicative=True))
    assert not enforced.passed and enforced.failed_kinds == ["floor"]
    (line,) = next(v.lines for v in enforced.verdicts if v.metric == "answer_relevancy")
    assert line.endswith("(enforced, though the metric is indicative only)")


def test_a_regression_of_an_indicative_metric_against_the_baseline_still_fails():
    result = gate_run(_relevancy_run(0.5), GateSettings(floors={}), baseline=_relevancy_run(0.95))
    verdict = next(v for v in result.verdicts if v.metric == "answer_relevancy")
    line = verdict.lines[-1]
    assert line.startswith("FAIL regression answer_relevancy vs baseline")
    assert not result.passed and verdict.status == "fail" and "a real regression" in line


def test_reports_mark_the_metric_indicative_only():
    run = _relevancy_run(0.9)
    lines = {line.split(" judge:")[0]: line for line in calibration_lines(run)}
    relevancy = lines["answer_relevancy"]
    assert relevancy.startswith("answer_relevancy judge: Spearman -0.03 [-0.15, 0.07]")
    assert relevancy.endswith(
        "near chance: indicative only (the diagnosis names no stage on it "
        "alone; the gate's floor on it warns)"
    )
    assert "indicative" not in lines["faithfulness"]
    metrics = calibration_dict(run)["metrics"]
    assert metrics["answer_relevancy"]["indicative_only"] is True
    assert metrics["faithfulness"]["indicative_only"] is False


def test_ragmeter_gate_enforce_indicative_flag_and_config_key(tmp_path):
    save_run(_relevancy_run(0.3), tmp_path / "run")
    cli = CliRunner()
    out = cli.invoke(app, ["gate", str(tmp_path / "run")])
    assert out.exit_code == 0, out.output
    assert "WARN floor answer_relevancy:" in out.output and "PASSED with warnings" in out.output
    out = cli.invoke(app, ["gate", str(tmp_path / "run"), "--enforce-indicative"])
    assert out.exit_code == 1 and "FAIL floor answer_relevancy:" in out.output
    config = tmp_path / "ragmeter.toml"
    config.write_text("[gate]\nenforce_indicative = true\n", encoding="utf-8")
    out = cli.invoke(app, ["gate", str(tmp_path / "run"), "--config", str(config)])
    assert out.exit_code == 1
    out = cli.invoke(
        app, ["gate", str(tmp_path / "run"), "--config", str(config), "--no-enforce-indicative"]
    )
    assert out.exit_code == 0


def test_a_failed_case_of_an_indicative_metric_says_so_in_every_report():
    run = _relevancy_run(0.3)
    terminal = render_text(ReportInputs(run), width=200)
    assert "0.30  answer_relevancy < pass mark 0.50 (indicative only)  c000" in terminal
    markdown = render_markdown(ReportInputs(run)).replace("\\", "")
    assert "**0.30** answer_relevancy < pass mark 0.50 (indicative only) · `c000`" in markdown
    shown = json.loads(render_json(ReportInputs(run)))["failures"]["shown"]
    assert shown[0]["metric"] == "answer_relevancy" and shown[0]["indicative_only"] is True
    page = render_html(ReportInputs(run))
    data = json.loads(page.split('id="ragmeter-data">', 1)[1].split("</script>", 1)[0])
    assert data["indicative"] == ["answer_relevancy"]


def test_ragmeter_calibrate_says_which_metric_will_be_indicative_only():
    import io

    from rich.console import Console

    from ragmeter.report.calibrate import render_calibration
    from ragmeter.run.calibrate import Calibration, MetricCalibration
    from ragmeter.stats.agreement import Measure

    def part(metric, value, ci):
        measure = Measure(name="Spearman", value=value, ci=ci, n=60)
        return MetricCalibration(metric=metric, kind="graded", n=60, measures=[measure])

    fingerprint = LocalJudge().fingerprint()
    calibration = Calibration(
        judge=fingerprint,
        judge_key=fingerprint.key(),
        n_cases=60,
        metrics={
            "faithfulness": part("faithfulness", 0.6, (0.4, 0.75)),
            "answer_relevancy": part("answer_relevancy", 0.1, (-0.15, 0.32)),
        },
    )
    out = io.StringIO()
    render_calibration(calibration, Console(file=out, width=300, color_system=None))
    lines = [line for line in out.getvalue().splitlines() if "indicative only" in line]
    assert lines == [
        "answer_relevancy: agrees with people near chance (Spearman 0.10 [-0.15, 0.32], n=60): "
        "indicative only in runs with this judge (the diagnosis names no stage on it alone; the "
        "gate's floor on it warns unless enforced)"
    ]
