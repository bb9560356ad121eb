"""In headless Chromium, driven over the DevTools protocol (html_browser_cdp): the HTML report's
first screen (1280x800) holds the diagnosis and the failed cases, worst first (issue 34); the
case table sorts by a mouse click on a column's header and by the keyboard (Tab to it, Enter,
Space); a 0 score is drawn unlike a metric with no score; a long chunk is folded until asked."""

import struct

import pytest

from factories import case, run
from html_browser_cdp import CHROMIUM, Browser
from ragmeter.report.html import render_html
from ragmeter.report.inputs import ReportInputs
from ragmeter.vocabulary import Span

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="chromium missing: apt-get install chromium"),
]

WIDTH, HEIGHT = 1280, 800
CITED = "Refunds are issued within 14 days of the request."
LONG = "def handler(event):\n    return event\n" * 60 + CITED + "\n# tail\n" * 80


def _cases():
    """40 cases: most pass; a dozen fail one metric or another; one is a refusal (its
    faithfulness not applicable), one scored 0, one holds a long chunk the judge cited."""
    out = []
    for i in range(40):
        scores = {
            "faithfulness": 0.9,
            "context_recall": 0.9,
            "context_precision": 0.9,
            "answer_relevancy": 0.9,
        }
        if i % 4 == 1:
            scores["faithfulness"] = round(0.1 + i / 100, 2)
        if i % 7 == 3:
            scores["context_recall"] = 0.2
        out.append(case(f"case-{i}", scores, category=("billing", "typo", "account")[i % 3]))
    out[5].metrics["context_precision"].score = 0.0
    out[1].metrics["faithfulness"].evidence.notes = ["a long note of the judge, " * 12]
    out[6] = case(
        "case-6",
        {"faithfulness": "refusal: answer has no claims", "answer_relevancy": 0.9},
        category="out_of_scope",
    )
    out[6].metrics["faithfulness"].reason_code = "refusal"
    out[8] = case(
        "case-8",
        {"faithfulness": 0.3, "context_recall": 0.9},
        contexts=[LONG],
        claims=[("Refunds take 30 days.", "contradicted")],
    )
    claim = out[8].metrics["faithfulness"].evidence.claims[0]
    claim.span = Span(start=LONG.index(CITED), end=LONG.index(CITED) + len(CITED))
    return out


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("html") / "report.html"
    path.write_text(render_html(ReportInputs(run(_cases()))), encoding="utf-8")
    return path.as_uri()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    with Browser(tmp_path_factory.mktemp("chromium"), WIDTH, HEIGHT) as b:
        yield b


def _rect(browser: Browser, selector: str) -> dict:
    return browser.js(
        f"(function(){{var r=document.querySelector('{selector}').getBoundingClientRect();"
        "return {top: r.top, bottom: r.bottom};})()"
    )


def _rows(browser: Browser) -> list[str]:
    return browser.js(
        "[].map.call(document.querySelectorAll('#case-rows tr.case-row'), r => r.dataset.id)"
    )


def test_the_first_screen_shows_the_diagnosis_and_the_failed_cases(browser, page, tmp_path):
    browser.open(page)
    shot = browser.screenshot(tmp_path / "first-screen.png")
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", png[16:24]) == (WIDTH, HEIGHT)
    assert browser.js("window.innerHeight") == HEIGHT and browser.js("window.scrollY") == 0

    assert _rect(browser, ".diag")["bottom"] <= HEIGHT  # the headline and every finding
    items = browser.js(
        "[].map.call(document.querySelectorAll('#failed li'), li => "
        "[li.getBoundingClientRect().bottom, li.innerText])"
    )
    assert len(items) == 10  # the report's limit: every one of them on the first screen
    assert all(bottom <= HEIGHT for bottom, _ in items), items
    # Two lines each, a long evidence line cut with an ellipsis (whole in its title).
    heights = browser.js(
        "[].map.call(document.querySelectorAll('#failed li'), li => li.offsetHeight)"
    )
    assert max(heights) < 45, heights
    assert "a long note of the judge" in items[1][1]
    scores = [float(text.split()[0]) for _, text in items]
    assert scores == sorted(scores) and scores[0] == 0.0
    first = items[0][1]  # score, metric, pass mark, id, question, then the evidence line
    assert first.startswith("0.00 context_precision < pass mark 0.50 · case-5 question case-5?")
    assert first.endswith("\nchunk 2 not useful «second chunk»: off topic")
    assert _rect(browser, "#cases")["top"] > HEIGHT  # the summary and the table come after
    assert browser.console() == []


def test_the_case_table_sorts_by_mouse_and_by_keyboard(browser, page):
    browser.open(page)
    ids = [f"case-{i}" for i in range(40)]
    assert _rows(browser) == ids
    browser.click('#cases th[data-sort="faithfulness"] button')
    rows = _rows(browser)
    assert rows[:3] == ["case-1", "case-5", "case-9"] and rows[-1] == "case-6"  # n/a last
    faith = "document.querySelector('th[data-sort=\"faithfulness\"]')"
    assert browser.js(faith + ".ariaSort") == "ascending"
    browser.click('#cases th[data-sort="faithfulness"] button')
    rows = _rows(browser)
    assert rows[-1] == "case-6" and rows[-2] == "case-1"  # reversed, n/a still last

    browser.js("document.getElementById('filter-failing').focus()")
    browser.press("Tab")  # the next control is the id column's header
    assert browser.js("document.activeElement.closest('th').dataset.sort") == "id"
    browser.press("Enter")
    assert _rows(browser) == sorted(ids, key=lambda i: int(i.split("-")[1]))
    browser.press(" ")
    assert _rows(browser) == sorted(ids, key=lambda i: -int(i.split("-")[1]))
    assert browser.js("location.hash") == "#sort=-id"
    assert browser.console() == []


def test_a_zero_score_and_a_metric_with_no_score_look_different(browser, page):
    browser.open(page)
    look = browser.js(
        """(function () {
          function cell(id, n) {
            var td = document.querySelector('#case-rows tr[data-id="' + id + '"]').cells[n];
            var fill = td.querySelector('.fill'), bar = td.querySelector('.bar');
            return {text: td.innerText.trim(), title: td.title,
                    background: getComputedStyle(td).backgroundImage,
                    bar: bar ? bar.getBoundingClientRect().width : null,
                    fill: fill ? fill.getBoundingClientRect().width : null};
          }
          return {zero: cell('case-5', 3), na: cell('case-6', 4)};
        })()"""
    )
    zero, na = look["zero"], look["na"]  # columns: id, category, recall, precision, faith
    assert zero["text"] == "0.00" and zero["fill"] == 0 and zero["bar"] > 30
    assert zero["background"] == "none"
    assert na["text"] == "n/a" and na["bar"] is None
    assert "repeating-linear-gradient" in na["background"]
    assert na["title"] == "not applicable: refusal: answer has no claims"


def test_a_long_chunk_is_folded_until_show_all(browser, page):
    browser.open(page + "#case=case-8")
    shown = "document.querySelector('#detail .chunk .fold')"
    folded = browser.js(f"{shown}.innerText")
    assert CITED in folded and len(folded) < 600 and len(LONG) > 2500
    assert browser.js(f"{shown}.querySelector('mark').innerText") == CITED
    assert browser.js(f"{shown}.querySelector('mark').getBoundingClientRect().height") > 0
    assert folded.count("\n") <= 14  # the code's short lines fold as well: 12 lines at most
    assert browser.js(f"{shown}.getBoundingClientRect().height") < 330
    browser.click("#detail .fold-toggle")
    assert browser.js(f"{shown}.querySelector('.text:not([hidden])').innerText") == LONG
    assert browser.js("document.querySelector('#detail .fold-toggle').innerText") == "show less"
    assert browser.console() == []


def test_a_failed_case_link_opens_the_case_in_the_table_and_goes_there(browser, page):
    browser.open(page)
    browser.click('#failed a[href="#case=case-5"]')
    assert browser.js("location.hash") == "#case=case-5"
    # the link's hashchange is handled after the click returns
    heading = browser.wait_for("document.querySelector('#detail h3').innerText")
    assert heading.startswith("case-5 ·")
    row_top = (
        "document.querySelector('#case-rows tr[data-id=\"case-5\"]').getBoundingClientRect().top"
    )
    in_view = f"(function(t){{return 0 <= t && t < 50;}})({row_top})"
    assert browser.wait_for(in_view)  # scrolled to the top of the window
    # Back up and follow the same link again: the hash is unchanged, the page still goes there.
    browser.js("window.scrollTo(0, 0)")
    browser.click('#failed a[href="#case=case-5"]')
    assert browser.wait_for(in_view)
    assert browser.console() == []
