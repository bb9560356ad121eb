"""The terminal report fits the console's width, down to 80 columns, without losing a figure:
no line is wider than the console, metric names and numbers are never cut or wrapped, and a
table too wide leaves out its least useful columns or puts its headers on two lines; wrapped
lines of a failed case stay under their own text. `ragmeter report` takes the width from
`COLUMNS` even when its output is piped (issue 15)."""

import re

import pytest
from rich.cells import cell_len
from typer.testing import CliRunner

from factories import case, run
from ragmeter.cli import app
from ragmeter.judges.base import METRICS
from ragmeter.report.failures import worst_failures
from ragmeter.report.inputs import ReportInputs
from ragmeter.report.terminal import render_text
from ragmeter.results import RunResult, save_run

LONG_REASON = "Refunds take 30 days and are paid back to the original card as a store credit note."


def _run() -> RunResult:
    cases = []
    for i in range(24):
        scores = {
            "context_recall": [0.0, 0.5, 1.0][i % 3],
            "context_precision": 0.25 * (i % 5),
            "faithfulness": "refusal: answer has no claims" if i % 7 == 0 else 0.3 + 0.03 * i,
            "answer_relevancy": 0.9,
        }
        cases.append(
            case(
                f"case-{i:03d}",
                scores,
                category=["normal", "typo", "多轮对话（很长的类别名称）", "out_of_scope"][i % 4],
                question=(
                    "删掉的笔记能从回收站恢复吗？如果回收站已经清空了，客服还能从备份里恢复吗？"
                    if i % 2
                    else "How long do refunds take when an annual plan is cancelled mid-term?"
                ),
                claims=[(LONG_REASON, "contradicted")],
            )
        )
    result = run(
        cases,
        pipeline="demo default (chunk_size=400, chunk_overlap=80, top_k=3, "
        "retrieval=bm25, abstain_threshold=0.5, hallucinate=False)",
    )
    for c in result.cases[1::2]:
        c.lang = "zh"
    return result


def _section(text: str, start: str, end: str) -> list[str]:
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith(start))
    last = next(i for i in range(first + 1, len(lines)) if lines[i].startswith(end))
    return lines[first:last]


def _key_figures(result: RunResult, text: str) -> None:
    """Every metric's full name, mean, interval and counts on one row of the score table, each
    category's means, and every failed case shown with its score and id."""
    scores = _section(text, "Scores", "Unscored")
    for metric in METRICS:
        s = result.summary.metrics[metric]
        row = next(line for line in scores if f" {metric} " in line)
        figures = [f"{s.mean:.2f}", f"[{s.ci[0]:.2f}, {s.ci[1]:.2f}]"]
        figures += [str(s.n_scored), str(s.n_unscored), str(s.n_failed)]
        for figure in figures:
            assert figure in row, (metric, figure, row)
    assert not any("…" in line for line in scores)  # nothing cut short
    by_category = _section(text, "By category", "╭─ Diagnosis")
    for category, per_metric in result.summary.by_category.items():
        means = [f"{s.mean:.2f} ({s.n_scored})" for s in per_metric.values() if s.mean is not None]
        rows = [line for line in by_category if all(m in line for m in means)]
        assert rows, (category, means)
    assert not any("…" in line for line in by_category)
    failures, total = worst_failures(result, 10)
    assert f"Failed cases: {total} " in text
    shown = re.findall(r"^(\d\.\d\d)  (\w+) < pass mark \d\.\d\d  (case-\d+) ", text, re.M)
    assert shown == [(f"{f.score:.2f}", f.metric, f.case.id) for f in failures]


@pytest.mark.parametrize("width", [80, 100, 120, 160])
def test_no_line_is_wider_than_the_console_and_every_key_figure_is_there(width):
    result = _run()
    text = render_text(ReportInputs(result), width=width)
    too_wide = [line for line in text.splitlines() if cell_len(line) > width]
    assert too_wide == []
    _key_figures(result, text)


def test_at_80_columns_the_score_table_leaves_out_stage_and_distribution_and_says_so():
    report = ReportInputs(_run())
    narrow, wide = render_text(report, width=80), render_text(report, width=120)
    assert "stage and distribution left out at this width" in narrow
    assert "retrieval" not in "\n".join(_section(narrow, "Scores", "stage and"))
    wide_scores = "\n".join(_section(wide, "Scores", "Unscored"))
    assert "retrieval" in wide_scores and "generation" in wide_scores and "0 → 1" in wide_scores
    assert "left out" not in wide
    # The category table's metric headers go on two lines rather than being cut.
    by_category = _section(narrow, "By category", "╭─ Diagnosis")
    assert any(re.search(r"┃\s+context ┃\s+context ┃", line) for line in by_category)
    assert any(re.search(r"┃\s+recall ┃\s+precision ┃", line) for line in by_category)


def test_wrapped_lines_of_a_failed_case_stay_under_their_own_text():
    result = _run()
    for c in result.cases:  # only faithfulness fails: its long reasons are listed
        c.metrics["context_recall"].score = c.metrics["context_precision"].score = 1.0
    text = render_text(ReportInputs(result), width=80)
    lines = text.splitlines()
    bullets = [i for i, line in enumerate(lines) if line.startswith("    • contradicted")]
    assert bullets
    for i in bullets:  # the reason wraps at 80 columns, under the bullet's text
        assert lines[i + 1].startswith("      ") and lines[i + 1].strip()
    header = lines[0]
    assert header.startswith("ragmeter · 24 cases · judge: local") and cell_len(header) <= 80
    assert lines[1].startswith("  pipeline: demo default (chunk_size=400")
    assert lines[2].startswith("  ") and "hallucinate=False)" in lines[2]


def test_diagnosis_keeps_each_finding_under_its_stage_label():
    text = render_text(ReportInputs(_run()), width=80)
    panel = _section(text, "╭─ Diagnosis", "Failed cases")
    stage = [line for line in panel if "[retrieval] context_recall" in line]
    assert stage, panel
    after = panel[panel.index(stage[0]) + 1]
    assert after.startswith("│               ") or after.startswith("│       → ")


@pytest.mark.parametrize("columns", ["80", "100"])
def test_report_command_honours_columns_when_piped(tmp_path, columns):
    save_run(_run(), tmp_path / "run")
    result = CliRunner().invoke(app, ["report", str(tmp_path / "run")], env={"COLUMNS": columns})
    assert result.exit_code == 0, result.output
    widths = [cell_len(line) for line in result.output.splitlines()]
    assert max(widths) <= int(columns)
    assert max(widths) > int(columns) - 5  # the space is used, not rich's default 80
    assert "context_precision" in result.output and "Failed cases" in result.output


def test_report_command_without_columns_writes_120_when_piped(tmp_path):
    save_run(_run(), tmp_path / "run")
    result = CliRunner().invoke(app, ["report", str(tmp_path / "run")], env={"COLUMNS": None})
    assert result.exit_code == 0, result.output
    assert 100 < max(cell_len(line) for line in result.output.splitlines()) <= 120
