"""Counted nouns read right, and what the judge spent appears in every report."""

import json

from factories import case, judge, run
from ragmeter.report.html import render_html
from ragmeter.report.inputs import ReportInputs
from ragmeter.report.json_report import render_json
from ragmeter.report.markdown import render_markdown
from ragmeter.report.terminal import render_text
from ragmeter.report.words import counted, readable_time, spend_line

SCORES = {"faithfulness": 0.9, "answer_relevancy": 0.9}


def _run_with_spend(n_cases: int = 2):
    result = run([case(f"c{i}", SCORES) for i in range(n_cases)])
    result.run.judge_stats = {
        "calls": 12,
        "cached_calls": 3,
        "prompt_tokens": 10_000,
        "completion_tokens": 2_345,
        "cost": 0.01234,
        "max_cost": 0.5,
    }
    return result


def test_counted_nouns():
    assert counted(1, "case") == "1 case"
    assert counted(0, "case") == "0 cases"
    assert counted(1204, "case") == "1,204 cases"
    assert counted(2, "query", "queries") == "2 queries"


def test_one_case_is_not_one_cases_in_any_report():
    single = ReportInputs(run([case("only", SCORES)]))
    for text in (render_text(single), render_markdown(single), render_html(single)):
        assert "1 case " in text or "1 case<" in text
        assert "1 cases" not in text


def test_the_judge_spend_is_in_every_report():
    result = _run_with_spend()
    line = spend_line(result)
    assert line == "judge spent: 12 calls (3 cached), 12,345 tokens, $0.0123 of a $0.5 budget"
    report = ReportInputs(result)
    assert line in render_text(report)
    assert f"- {line}" in render_markdown(report)
    assert f"<li>{line}</li>" in render_html(report)
    spend = json.loads(render_json(report))["judge_spend"]
    assert spend["cost"] == 0.01234 and spend["line"] == line


def test_the_spend_says_how_many_results_an_unchanged_rerun_reused():
    result = _run_with_spend()
    stats = {**result.run.judge_stats, "calls": 0, "cached_calls": 12, "reused_results": 8}
    result.run.judge_stats = stats
    assert spend_line(result) == (
        "judge spent: 0 calls (12 cached), 12,345 tokens, 8 results reused, $0.0123 of a $0.5 "
        "budget"
    )


def test_every_report_says_the_local_judge_spent_nothing():
    result = run([case("a", SCORES)])  # the local judge keeps no counters
    line = spend_line(result)
    assert line == "judge spent: nothing (the local judge makes no calls)"
    report = ReportInputs(result)
    assert line in render_text(report)
    assert f"- {line}" in render_markdown(report)
    assert f"<li>{line}</li>" in render_html(report)
    spend = json.loads(render_json(report))["judge_spend"]
    assert spend == {
        "calls": 0,
        "cached_calls": 0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "cost": 0.0,
        "line": line,
    }


def test_a_judge_that_kept_no_counters_is_not_said_to_have_spent_nothing():
    result = run([case("a", SCORES)], judge_fp=judge("my-plugin", "m"))
    assert spend_line(result) == "judge spent: not reported (the judge kept no counters)"
    assert json.loads(render_json(ReportInputs(result)))["judge_spend"] == {
        "line": spend_line(result)
    }


def test_an_llm_judge_stopped_before_its_first_call_says_so():
    result = run([case("a", SCORES)], judge_fp=judge("openai", "gpt-4o-mini"))
    result.run.judge_stats = {"calls": 0, "cost": 0.0, "max_cost": 0.01, "budget_refused_calls": 4}
    assert spend_line(result) == (
        "judge spent: 0 calls (0 cached), 0 tokens, $0.0000 of a $0.01 budget "
        "(stopped: 4 calls not sent)"
    )


def test_reports_of_a_partial_run_show_only_the_judged_metrics():
    partial = run([case("a", {"faithfulness": 0.9}), case("b", {"faithfulness": 0.2})])
    text = render_text(ReportInputs(partial))
    by_category = text[text.index("By category") :]
    assert "faithfulness" in by_category
    assert "context_recall" not in by_category and "answer_relevancy" not in by_category
    page = render_html(ReportInputs(partial))
    assert '"metrics": ["faithfulness"]' in page or '"metrics":["faithfulness"]' in page
    assert "failing context_recall" not in page


def test_long_pipeline_names_are_cut_between_words_in_markdown():
    from ragmeter.report.markdown import md_code

    name = "demo baseline (retrieval=bm25, top_k=4, chunk_size=400, rerank=none, model=extractive)"
    shown = md_code(name)
    assert shown.startswith("`demo baseline") and shown.endswith("…`")
    assert len(shown) <= 82
    kept = shown.strip("`").removesuffix("…")
    assert name.startswith(kept) and name[len(kept)] in " ,"  # cut between words
    assert md_code("short `name`") == "`short 'name'`"


def test_readable_times():
    assert readable_time("2026-12-03T18:15:12.836077+00:00") == "2026-12-03 18:15 UTC"
    assert readable_time("2026-12-03T20:15:59+02:00") == "2026-12-03 18:15 UTC"
    assert readable_time("2026-12-03T18:15:12") == "2026-12-03 18:15"
    assert readable_time("yesterday") == "yesterday"
    assert readable_time("") == "—"
