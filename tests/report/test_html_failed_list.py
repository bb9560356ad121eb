"""The HTML report leads with what failed (issue 34): the diagnosis, then the failed (case,
metric) pairs worst first, above the summary and the case table, each with its score, metric,
pass mark, case (a link that opens it), question and the first line of its evidence, the same
line the Markdown report leads with. User text in it stays text."""

import re

from factories import case, run
from ragmeter.report.html import render_html
from ragmeter.report.inputs import ReportInputs
from ragmeter.report.markdown import render_markdown

EVIL = '<img src=x onerror="alert(1)"></script><script>alert(2)</script>'


def _cases():
    return [
        case("ok-1", {"faithfulness": 0.95, "context_recall": 0.9}),
        case(
            "faith-1",
            {"faithfulness": 0.4, "context_recall": 0.9},
            claims=[("Refunds take 30 days.", "contradicted")],
        ),
        case("recall-1", {"faithfulness": 0.9, "context_recall": 0.1}, category="typo"),
        case(
            "zh-1",
            {"faithfulness": 0.2, "context_recall": 0.9},
            question="删掉的笔记能恢复吗？",
            claims=[("笔记无法恢复。", "contradicted")],
        ),
    ]


def _items(page: str) -> list[str]:
    section = re.search(r'<section id="failed".*?</section>', page, re.S)
    assert section is not None
    return re.findall(r"<li[^>]*>(.*?)</li>", section.group(0), re.S)


def test_failed_cases_come_worst_first_right_after_the_diagnosis():
    cases = _cases()
    cases[3].lang = "zh"
    page = render_html(ReportInputs(run(cases)))
    marks = ("<h2>Diagnosis", 'id="failed"', "<h2>Summary", 'id="cases"')
    order = [page.index(mark) for mark in marks]
    assert order == sorted(order)
    items = _items(page)
    assert [re.search(r'href="#case=([^"]+)"', i).group(1) for i in items] == [
        "recall-1",
        "zh-1",
        "faith-1",
    ]
    recall, zh, faith = items
    assert '<span class="fscore">0.10</span> <b>context_recall</b>' in recall
    assert "&lt; pass mark 0.50" in recall and "question recall-1?" in recall
    assert '<span lang="zh">删掉的笔记能恢复吗？</span>' in zh
    # The evidence line is the one the Markdown report leads with for the same failure.
    why = re.search(r'<div class="why"[^>]*>(.*?)</div>', faith).group(1)
    assert why == "contradicted: «Refunds take 30 days.» (closest: chunk 1 «ctx»): r"
    markdown = render_markdown(ReportInputs(run(_cases())))
    assert "  - contradicted: «Refunds take 30 days.» \\(closest: chunk 1 «ctx»\\): r" in markdown
    assert "(3 case × metric under its pass mark)" in page


def test_the_list_is_cut_at_the_report_limit_and_says_how_many_more():
    page = render_html(ReportInputs(run(_cases()), max_failures=2))
    assert len(_items(page)) == 2
    assert "… 1 more: filter the case table" in page


def test_a_run_with_no_failure_says_so():
    page = render_html(ReportInputs(run([case("ok-1", {"faithfulness": 0.95})])))
    assert _items(page) == []
    assert "None: every scored case is at or above its pass mark." in page


def test_ids_and_questions_in_the_list_stay_text():
    hostile = case(EVIL, {"faithfulness": 0.1}, question=EVIL, claims=[(EVIL, "contradicted")])
    page = render_html(ReportInputs(run([hostile])))
    (item,) = _items(page)
    assert "<img" not in item and "<script" not in item and "</script" not in item
    assert "&lt;img src=x" in item
    # The link names the id percent-encoded, as the viewer's own links do.
    assert 'href="#case=%3Cimg%20src%3Dx%20onerror%3D%22alert%281%29%22%3E' in item
