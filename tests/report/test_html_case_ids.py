"""The HTML viewer's case lookup is a Map: a hash or a case id named like an Object property
(`constructor`, `__proto__`, `toString`) finds that case or nothing, and the script runs to the
end (issue 13).

Runs the report's own script under Node with a stand-in DOM (html_viewer; the browser tests in
test_html_browser.py need Chromium, this one needs only `node`)."""

import pytest

from factories import case, run
from html_viewer import NODE, open_report
from ragmeter.report.html import render_html
from ragmeter.report.inputs import ReportInputs

pytestmark = pytest.mark.skipif(NODE is None, reason="node missing")


def _shown(html: str, fragment: str) -> dict[str, object]:
    (loaded,) = open_report(html, fragment)
    return {k: loaded[k] for k in ("ready", "rows", "detail", "detail_after")}


def test_hash_and_ids_named_like_object_properties_find_the_case_or_nothing():
    scores = {"faithfulness": 0.9, "answer_relevancy": 0.9}
    ids = ["constructor", "__proto__", "refund-1"]
    html = render_html(ReportInputs(run([case(i, scores) for i in ids])))
    for fragment, opened in [
        ("#case=constructor", "constructor"),
        ("#case=__proto__", "__proto__"),
        ("#case=refund-1", "refund-1"),
        ("#case=toString", None),  # no such case: nothing selected, nothing inherited
        ("#case=hasOwnProperty&__proto__=x&constructor=y", None),
    ]:
        heading = None if opened is None else f"{opened} · normal · en"
        shown = _shown(html, fragment)
        assert shown == {"ready": "1", "rows": ids, "detail": heading, "detail_after": opened}
    # Without such a case, `constructor` is a missing id, not Object.prototype.constructor.
    other = render_html(ReportInputs(run([case("q1", scores)])))
    assert _shown(other, "#case=constructor") == {
        "ready": "1",
        "rows": ["q1"],
        "detail": None,
        "detail_after": None,
    }
