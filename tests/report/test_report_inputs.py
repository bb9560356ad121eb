"""Renderers read the noise and the comparison the caller computed, and compute neither
themselves; `ragmeter compare` and the Markdown and HTML reports show one comparison's
figures alike; a report with a baseline always shows the comparison, flagged as forced when
the runs may not be comparable (issue 14)."""

import json
import re

import pytest
from typer.testing import CliRunner

from factories import case, judge, run, uniform_run
from ragmeter.cli import app
from ragmeter.compare import Comparison, MetricDiff
from ragmeter.compare.noise import MetricNoise, NoiseSummary, measure_noise
from ragmeter.report.html import render_html
from ragmeter.report.inputs import ReportInputs, report_inputs
from ragmeter.report.json_report import render_json
from ragmeter.report.markdown import render_markdown
from ragmeter.report.registry import render
from ragmeter.results import save_run

SCORES = {"faithfulness": 0.9, "answer_relevancy": 0.8}


def _hand_made_noise() -> NoiseSummary:
    """Noise no run of these tests has: a renderer can only show it by reading it."""
    floor = MetricNoise(
        metric="faithfulness",
        repeats=7,
        n_cases=2,
        mean_sd=0.1,
        max_spread=0.2,
        noise_floor=0.123,
        flip_rate=0.45,
    )
    return NoiseSummary(repeats=7, metrics={"faithfulness": floor})


def _hand_made_comparison() -> Comparison:
    diff = MetricDiff(
        metric="faithfulness",
        n_paired=3,
        base_mean=0.812,
        new_mean=0.456,
        diff=-0.356,
        ci=(-0.4, -0.3),
        p_value=0.01,
        significant=True,
    )
    return Comparison(
        comparable=True,
        problems=["a hand-made problem"],
        base_judge="a",
        new_judge="b",
        confidence=0.9,
        metrics={"faithfulness": diff},
    )


def test_renderers_show_the_noise_they_are_given():
    once = run([case("a", SCORES), case("b", SCORES)])
    assert measure_noise(once) is None  # judged once: nothing to measure
    report = ReportInputs(once, noise=_hand_made_noise())
    md = render_markdown(report)
    assert "| faithfulness | generation | 0.900 |" in md
    assert md.count("| ±0.123 | 45% |") == 1
    assert "| — | — |" in md  # answer_relevancy: no noise given
    assert "Judge noise from 7 judgements per case" in md
    page = render_html(report)
    assert "<td>±0.123</td><td>45%</td>" in page
    data = json.loads(render_json(report))["noise"]
    assert data["repeats"] == 7
    assert data["metrics"]["faithfulness"]["noise_floor"] == 0.123


def test_renderers_do_not_measure_noise_they_are_not_given():
    rejudged = run(
        [
            case("a", SCORES, repeats={"faithfulness": [0.9, 0.5]}),
            case("b", SCORES, repeats={"faithfulness": [0.9, 0.6]}),
        ]
    )
    assert measure_noise(rejudged) is not None
    bare = ReportInputs(rejudged)
    assert "noise floor" not in render_markdown(bare) + render_html(bare)
    assert "noise" not in json.loads(render_json(bare))
    assert "noise floor" in render_markdown(report_inputs(rejudged))


def test_renderers_show_the_comparison_they_are_given_and_no_other():
    report = ReportInputs(run([case("a", SCORES)]), comparison=_hand_made_comparison())
    md = render_markdown(report)
    assert "| metric | paired | base | new | diff | 90% CI | significant |" in md
    assert "| faithfulness | 3 | 0.812 | 0.456 | -0.356 🔻 | [-0.400, -0.300] | **yes** |" in md
    assert "> ⚠️ a hand-made problem" in md
    page = render_html(report)
    assert (
        "<tr><td>faithfulness</td><td class=num>3</td><td class=num>0.812</td>"
        '<td class=num>0.456</td><td class="num score fail">-0.356</td>'
        "<td>[-0.400, -0.300]</td><td>yes</td></tr>"
    ) in page
    assert "<th>90% CI</th>" in page
    data = json.loads(render_json(report))["comparison"]
    assert data["metrics"]["faithfulness"]["diff"] == -0.356
    assert data["problems"] == ["a hand-made problem"]
    alone = ReportInputs(report.run)
    assert "Compared with the baseline" not in render_markdown(alone) + render_html(alone)
    assert "comparison" not in json.loads(render_json(alone))


def test_the_registry_hands_the_inputs_to_the_renderer():
    report = ReportInputs(
        run([case("a", SCORES)]), noise=_hand_made_noise(), comparison=_hand_made_comparison()
    )
    assert render(report, "md") == render_markdown(report)
    assert render(report, "json") == render_json(report)


def test_a_report_compares_runs_of_different_judges_and_says_so():
    """Every format shows one comparison: forced past a soft problem (another judge), listed
    above the figures; the JSON says `forced` (before, it alone refused to compare)."""
    base = uniform_run(6, {"faithfulness": 0.9}, judge_fp=judge("local", "one"))
    new = uniform_run(6, {"faithfulness": 0.5}, judge_fp=judge("local", "two"))
    report = report_inputs(new, base)
    assert report.comparison is not None and report.comparison.forced
    md = render_markdown(report)
    assert "> ⚠️ judge differs" in md
    assert "| faithfulness | 6 | 0.900 | 0.500 | -0.400 🔻 |" in md
    data = json.loads(render_json(report))["comparison"]
    assert data["comparable"] is True and data["forced"] is True
    assert data["problems"][0].startswith("judge differs")
    assert data["metrics"]["faithfulness"]["diff"] == pytest.approx(-0.4)


def test_runs_with_no_case_in_common_are_not_compared_even_in_a_report():
    base = run([case("x", SCORES)])
    new = run([case("y", SCORES)])
    comparison = report_inputs(new, base).comparison
    assert comparison is not None and not comparison.comparable and comparison.metrics == {}
    md = render_markdown(report_inputs(new, base))
    assert "> ⚠️ no case id in common" in md


def _figures(line: str) -> list[str]:
    """base, new, diff and the interval's ends in one metric's line of a comparison table."""
    return re.findall(r"[-+]?\d\.\d{3}", line)[:5]


def test_compare_and_the_md_and_html_reports_show_the_same_figures(tmp_path):
    base = uniform_run(20, {"faithfulness": 0.9, "context_recall": 0.8})
    new = uniform_run(
        20,
        {
            "faithfulness": [0.9 - 0.3 * (i % 2) for i in range(20)],
            "context_recall": [0.8 + 0.01 * (i % 3) for i in range(20)],
        },
    )
    save_run(base, tmp_path / "base")
    save_run(new, tmp_path / "new")
    cli = CliRunner()
    env = {"COLUMNS": "200"}
    compared = cli.invoke(app, ["compare", str(tmp_path / "base"), str(tmp_path / "new")], env=env)
    assert compared.exit_code == 0, compared.output
    args = ["report", str(tmp_path / "new"), "--baseline", str(tmp_path / "base"), "--format"]
    md = cli.invoke(app, [*args, "md"], env=env).output
    page = cli.invoke(app, [*args, "html"], env=env).output
    html_rows = page.split("<h2>Compared with the baseline</h2>", 1)[1].split("</table>", 1)[0]
    for metric in ("faithfulness", "context_recall"):
        in_cli = next(line for line in compared.output.splitlines() if f" {metric} " in line)
        in_md = next(line for line in md.splitlines() if line.startswith(f"| {metric} | 20 |"))
        in_html = html_rows.split(f"<td>{metric}</td>", 1)[1].split("</tr>", 1)[0]
        assert len(_figures(in_cli)) == 5
        assert _figures(in_cli) == _figures(in_md) == _figures(in_html), metric


def test_report_lists_as_many_failed_cases_as_limit_in_every_format(tmp_path):
    failing = run([case(f"c{i}", {"faithfulness": 0.1 * i}) for i in range(5)])
    save_run(failing, tmp_path / "run")
    out = CliRunner().invoke(app, ["report", str(tmp_path / "run"), "-f", "md", "--limit", "2"])
    assert out.exit_code == 0, out.output
    assert len(re.findall(r"^- \*\*0\.\d\d\*\* faithfulness", out.output, re.M)) == 2
    assert "- … 3 more in the full report" in out.output
