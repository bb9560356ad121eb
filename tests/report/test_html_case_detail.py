"""A case of the HTML report opens next to its row (issue 15): the detail moves into a row of
its own right under the clicked case, the page scrolls the row to the top when the detail
would start in the lower half of the window, and Escape or "close" folds it and gives the
focus back to the case's button. Deep links (#case=ID) open the case under its row too, on
load and when the hash changes.

Driven under Node with a stand-in DOM (html_viewer); test_html_browser.py checks the same
placement in Chromium."""

import pytest

from factories import case, run
from html_viewer import NODE, open_report
from ragmeter.report.html import render_html
from ragmeter.report.inputs import ReportInputs

pytestmark = pytest.mark.skipif(NODE is None, reason="node missing")

SCORES = {"faithfulness": 0.9, "context_recall": 0.9, "answer_relevancy": 0.2}
IDS = ["a-1", "b-2", "c-3", "d-4"]


@pytest.fixture(scope="module")
def html() -> str:
    cases = [case(i, SCORES) for i in IDS]
    cases[2].lang = "zh"
    cases[2].question = "删掉的笔记能恢复吗？"
    return render_html(ReportInputs(run(cases)))


def test_a_clicked_case_opens_under_its_row_and_scrolls_there_when_low(html):
    loaded, low, high = open_report(
        html,
        "",
        "click(row('b-2')); snap();"  # rows sit low in the window (ROW_TOP 5000): scrolled up
        "ROW_TOP = 120; click(row('d-4')); snap();",  # near the top: left where it is
    )
    assert loaded["detail_after"] is None and loaded["detail"] is None
    assert loaded["expanded"] == [] and loaded["scrolls"] == []

    assert low["detail_after"] == "b-2" and low["detail"] == "b-2 · normal · en"
    assert low["rows"] == IDS  # the list itself is unchanged
    assert low["selected"] == low["expanded"] == ["b-2"]
    assert low["detail_span"] == 2 + 3 + 1  # id, category, the 3 judged metrics, question
    assert low["scrolls"] == [{"row": "b-2", "block": "start"}]
    assert low["url"] == "#case=b-2"

    # One detail: opening another case moves it under that case's row.
    assert high["detail_after"] == "d-4" and high["expanded"] == ["d-4"]
    assert high["scrolls"] == []
    assert high["url"] == "#case=d-4"


def test_the_case_folds_by_click_escape_or_close_and_focus_returns_to_its_row(html):
    _, opened, again, zh, escaped, reopened, closed = open_report(
        html,
        "",
        "click(button('a-1')); snap();"  # Enter or Space on the button is a click
        "click(button('a-1')); snap();"  # the same button again folds it
        "click(button('c-3')); snap(); key(ids['detail'], 'Escape'); snap();"  # in the detail
        "click(button('c-3')); snap();"
        "const closers = closeButtons(); click(closers[closers.length - 1]); snap();",
    )
    assert opened["detail_after"] == "a-1" and opened["expanded"] == ["a-1"]
    assert zh["detail_after"] == "c-3" and zh["detail_lang"] == "zh"
    for folded, cid in [(again, "a-1"), (escaped, "c-3"), (closed, "c-3")]:
        assert folded["detail_after"] is None and folded["expanded"] == [], cid
        assert folded["url"] == "/report.html"  # the case is gone from the hash
        assert folded["focus"] == cid  # the focus is back on the case's button
        # ... and its row in view, from wherever the detail was read
        assert folded["scrolls"] == [{"row": cid, "block": "nearest"}]
    assert reopened["detail_after"] == "c-3"


def test_deep_links_open_the_case_under_its_row_and_scroll_to_it(html):
    loaded, followed, missing = open_report(
        html,
        "#case=c-3",
        "ROW_TOP = 120; goTo('#failing=answer_relevancy&case=a-1'); snap();"
        "goTo('#case=constructor'); snap();",
    )
    assert loaded["detail_after"] == "c-3" and loaded["detail"] == "c-3 · normal · zh"
    assert loaded["scrolls"] == [{"row": "c-3", "block": "start"}]
    # A link is followed wherever the row sits: the hash may point anywhere in the list.
    assert followed["detail_after"] == "a-1"
    assert followed["scrolls"] == [{"row": "a-1", "block": "start"}]
    assert followed["url"] == "#failing=answer_relevancy&case=a-1"
    assert missing["detail_after"] is None and missing["detail"] is None
    assert missing["scrolls"] == []


def test_a_filter_that_hides_the_open_case_folds_it_until_the_case_is_listed_again(html):
    _, hidden, back = open_report(
        html,
        "#case=b-2",
        "type('filter-text', 'c-3'); snap(); type('filter-text', ''); snap();",
    )
    assert hidden["rows"] == ["c-3"] and hidden["detail_after"] is None
    assert hidden["count"] == "1 of 4 cases · the open case b-2 is hidden by the filter"
    assert hidden["url"] == "#q=c-3&case=b-2"
    assert back["rows"] == IDS and back["detail_after"] == "b-2"
    assert back["count"] == "4 of 4 cases" and back["url"] == "#case=b-2"
