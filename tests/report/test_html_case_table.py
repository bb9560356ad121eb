"""The HTML report's case table (issue 34): it sorts by a column (click or keyboard on the
header's button; again to reverse; cases with no score last either way; the order kept in the
link), a score of 0 is drawn unlike a metric with no score (an empty bar and "0.00" against a
hatched "n/a" or "unscored" cell naming its reason), and a long chunk is folded to the part the
judge cited, with a toggle that shows it all.

Driven under Node with a stand-in DOM (html_viewer); test_html_first_screen.py checks the same
in Chromium."""

import pytest

from factories import case, run
from html_viewer import NODE, open_report
from ragmeter.report.html import render_html
from ragmeter.report.inputs import ReportInputs
from ragmeter.vocabulary import Span

pytestmark = pytest.mark.skipif(NODE is None, reason="node missing")

FAITH = "faithfulness"


@pytest.fixture(scope="module")
def html() -> str:
    cases = [
        case("case-10", {FAITH: 0.5, "answer_relevancy": 0.9}, category="b"),
        case("case-2", {FAITH: 0.0, "answer_relevancy": 0.9}, category="a"),
        case("case-1", {FAITH: "refusal: answer has no claims", "answer_relevancy": 0.9}),
        case("case-3", {FAITH: 0.9, "answer_relevancy": "judge error: timed out"}, category="a"),
        case("case-4", {FAITH: 0.5, "answer_relevancy": 0.2}, category="c"),
    ]
    cases[2].metrics[FAITH].reason_code = "refusal"
    cases[3].metrics["answer_relevancy"].reason_code = "judge_error"
    return render_html(ReportInputs(run(cases)))


def test_a_header_click_sorts_the_list_and_again_reverses_it_no_score_last(html):
    loaded, up, down, by_id, by_cat = open_report(
        html,
        "",
        "click(head('faithfulness').children[0]); snap();"
        "click(head('faithfulness').children[0]); snap();"
        "click(head('id').children[0]); snap();"
        "click(head('category').children[0]); snap();",
    )
    assert loaded["rows"] == ["case-10", "case-2", "case-1", "case-3", "case-4"]
    assert loaded["sort"] is None
    # Worst first; the tie (0.5) keeps the eval-set order; the refusal (no score) last.
    assert up["rows"] == ["case-2", "case-10", "case-4", "case-3", "case-1"]
    assert up["sort"] == "faithfulness ascending" and up["url"] == "#sort=faithfulness"
    assert down["rows"] == ["case-3", "case-10", "case-4", "case-2", "case-1"]
    assert down["sort"] == "faithfulness descending" and down["url"] == "#sort=-faithfulness"
    assert by_id["rows"] == ["case-1", "case-2", "case-3", "case-4", "case-10"]  # numbers as such
    assert by_cat["rows"] == ["case-2", "case-3", "case-10", "case-4", "case-1"]  # a, b, c, normal


def test_the_sort_is_read_from_the_link_and_kept_with_an_open_case(html):
    loaded, opened, bogus = open_report(
        html,
        "#sort=-answer_relevancy",
        "click(button('case-4')); snap(); goTo('#sort=constructor'); snap();",
    )
    # answer_relevancy descending, ties in eval-set order; case-3's judge error goes last.
    assert loaded["rows"] == ["case-10", "case-2", "case-1", "case-4", "case-3"]
    assert loaded["sort"] == "answer_relevancy descending"
    assert opened["url"] == "#sort=-answer_relevancy&case=case-4"
    assert opened["detail_after"] == "case-4"
    assert bogus["sort"] is None and bogus["rows"][0] == "case-10"  # not a column: eval-set order


def test_a_zero_score_is_an_empty_bar_and_no_score_is_a_hatched_cell_naming_why(html):
    _, loaded = open_report(
        html,
        "",
        "extra(cells('case-2')); extra(cells('case-1')); extra(cells('case-3'));"
        "extra(cells('case-10')); snap();",
    )
    zero, refusal, error, half = loaded["extra"]
    assert zero[0] == {"cls": "num score fail zero", "text": "0.00", "title": None, "bar": "0%"}
    assert refusal[0] == {
        "cls": "num score none na",
        "text": "n/a",
        "title": "not applicable: refusal: answer has no claims",
        "bar": None,
    }
    assert error[1] == {
        "cls": "num score none unscored",
        "text": "unscored",
        "title": "unscored: judge error: timed out",
        "bar": None,
    }
    assert half[0]["bar"] == "50%" and half[0]["text"] == "0.50"


def _chunk_case(cid: str, context: str, span: Span | None):
    result = case(
        cid, {FAITH: 0.2}, contexts=[context], claims=[("Refunds take 30 days.", "contradicted")]
    )
    claim = result.metrics[FAITH].evidence.claims[0]
    claim.span = span
    return result


def test_a_long_chunk_is_folded_to_the_cited_span_with_a_toggle_that_shows_it_all():
    """At most about 400 characters and 12 lines: code's short lines fold too."""
    english = "Intro text about nothing. " * 60  # 1560 characters
    cited = "Refunds are issued within 14 days."
    long_en = english + cited + " Tail." * 200
    start = len(english)
    chinese = "退款说明。" * 200  # 1000 characters, no span recorded
    short = "Refunds are issued within 14 days."
    html = render_html(
        ReportInputs(
            run(
                [
                    _chunk_case("en-1", long_en, Span(start=start, end=start + len(cited))),
                    _chunk_case("zh-1", chinese, None),
                    _chunk_case("short-1", short, Span(start=0, end=7)),
                ]
            )
        )
    )
    en, en_open, en_closed = open_report(
        html,
        "#case=en-1",
        "const t = () => find(ids['detail'], (n) => n.className === 'fold-toggle')[0];"
        "click(t()); snap(); click(t()); snap();",
    )
    folded = chunks_of(en)
    assert folded["toggle"] == "show all" and folded["expanded"] == "false"
    assert folded["shown"].startswith("… ") and folded["shown"].endswith(" …")
    assert cited in folded["shown"] and folded["marks"] == [cited]
    assert len(folded["shown"]) < 520  # about 400 characters around the span, not 1,800
    whole = chunks_of(en_open)
    assert whole["shown"] == long_en and whole["marks"] == [cited]
    assert whole["toggle"] == "show less" and whole["expanded"] == "true"
    assert chunks_of(en_closed)["shown"] == folded["shown"]

    (zh,) = open_report(html, "#case=zh-1")
    start_only = chunks_of(zh)
    assert start_only["shown"] == chinese[:400] + " …"  # no span: the chunk's start

    code = "x = 1\n" * 100 + cited + "\n" + "y = 2\n" * 20  # 752 characters, 121 lines
    at = code.index(cited)
    html = render_html(
        ReportInputs(
            run(
                [
                    _chunk_case("code-1", code, Span(start=at, end=at + len(cited))),
                    _chunk_case("lines-1", "z\n" * 30, None),  # 60 characters, 30 lines
                    _chunk_case("short-1", short, Span(start=0, end=7)),
                ]
            )
        )
    )
    (lines,) = open_report(html, "#case=code-1")
    folded = chunks_of(lines)
    assert folded["shown"] == "… " + "x = 1\n" * 3 + cited + "\n" + "y = 2\n" * 7 + "y = 2 …"
    assert folded["marks"] == [cited] and folded["toggle"] == "show all"
    (few,) = open_report(html, "#case=lines-1")
    assert chunks_of(few)["shown"] == "z\n" * 11 + "z …"

    (small,) = open_report(html, "#case=short-1")
    assert chunks_of(small) == {
        "shown": short,
        "marks": ["Refunds"],
        "toggle": None,
        "expanded": None,
    }


def chunks_of(snapshot):
    """The open case's one chunk as the snapshot recorded it."""
    (chunk,) = snapshot["chunks"]
    return chunk
