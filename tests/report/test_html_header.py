"""The HTML report's header: when the run started, what the judge spent, how far to trust it."""

from factories import case, run
from ragmeter.report.html import render_html
from ragmeter.report.inputs import ReportInputs
from ragmeter.report.markdown import render_markdown
from ragmeter.results import CalibrationNote

SCORES = {"faithfulness": 0.9, "answer_relevancy": 0.9}


def _header(result) -> str:
    page = render_html(ReportInputs(result))
    return page[page.index("<h1>") : page.index("<h2>Summary")]


def _public_set_run():
    result = run([case("a", SCORES)])
    result.run.calibration = [
        CalibrationNote(metric="faithfulness", measure="Spearman", value=0.56, n=298, reference="M")
    ]
    return result


def test_the_calibration_note_names_the_command_as_code_not_in_backticks():
    for result in (run([case("a", SCORES)]), _public_set_run()):  # uncalibrated, public set
        header = _header(result)
        assert "<code>ragmeter calibrate LABELS</code>" in header
        assert "`" not in header
    assert "`ragmeter calibrate LABELS`" in render_markdown(ReportInputs(_public_set_run()))


def test_the_calibration_note_stays_escaped():
    result = _public_set_run()
    result.run.calibration[0].reference = "<b>`x`</b>"
    header = _header(result)
    assert "&lt;b&gt;<code>x</code>&lt;/b&gt;" in header and "<b>`" not in header


def test_the_start_time_is_readable_and_exact_on_hover():
    result = run([case("a", SCORES)])
    result.run.started_at = "2026-12-03T18:15:12.836077+00:00"
    header = _header(result)
    assert (
        'started <time datetime="2026-12-03T18:15:12.836077+00:00" '
        'title="2026-12-03T18:15:12.836077+00:00">2026-12-03 18:15 UTC</time>' in header
    )
