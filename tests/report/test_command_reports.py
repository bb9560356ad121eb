"""Renderers of the commands' own reports (lint, dry run), read from the computed result."""

from __future__ import annotations

import io

from rich.console import Console

from ragmeter.cases.lint import Finding, LintReport
from ragmeter.clients.cost import Estimate, MetricEstimate
from ragmeter.report.dry_run import render_dry_run
from ragmeter.report.lint import render_lint


def _console() -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    return Console(file=buffer, width=100, force_terminal=False, color_system=None), buffer


def test_lint_prints_the_headline_and_each_finding_with_at_most_six_ids() -> None:
    report = LintReport(
        source="cases.jsonl",
        total=8,
        by_category={"normal": 8},
        by_lang={"en": 8},
        findings=[
            Finding(
                severity="error",
                code="duplicate_question",
                message="same question",
                case_ids=[f"c{i}" for i in range(8)],
            ),
            Finding(severity="warning", code="small_set", message="only 8 cases"),
        ],
    )
    console, buffer = _console()
    render_lint(report, console)
    lines = buffer.getvalue().splitlines()
    assert lines[0] == report.headline()
    assert lines[1] == "error duplicate_question: same question (c0, c1, c2, c3, c4, c5…)"
    assert lines[2] == "warning small_set: only 8 cases"


def test_dry_run_prints_the_estimate_or_that_the_judge_costs_nothing() -> None:
    console, buffer = _console()
    render_dry_run(None, console, judge="local", cases=3)
    assert buffer.getvalue() == "judge 'local' makes no paid calls: 3 cases cost nothing\n"

    estimate = Estimate(
        model="m",
        cases=3,
        calls=1234,
        prompt_tokens=5000,
        completion_tokens=600,
        cost=0.01234,
        batch=True,
        by_metric={"faithfulness": MetricEstimate(calls=1234, prompt_tokens=5000)},
    )
    console, buffer = _console()
    render_dry_run(estimate, console, judge="openai", cases=3)
    text = buffer.getvalue()
    assert "Dry run: 3 cases, judge m" in text
    assert "faithfulness" in text and "total" in text and "1,234" in text
    assert "estimated cost: $0.0123 at batch prices · tokens counted by approximate" in text


def test_a_model_without_a_price_is_told_where_to_add_one() -> None:
    estimate = Estimate(
        model="m", cases=1, calls=1, prompt_tokens=10, completion_tokens=2, cost=None
    )
    console, buffer = _console()
    render_dry_run(estimate, console, judge="openai", cases=1)
    assert "estimated cost: unknown (no price for this model; add one under [judge.prices])" in (
        buffer.getvalue()
    )
