"""The HTML viewer's case lookup is a Map: a hash or a case id named like an Object property
(`constructor`, `__proto__`, `toString`) finds that case or nothing, and the script runs to the
end (issue 13).

Runs the report's own script under Node with a few lines of DOM stand-in (the browser tests in
test_html_browser.py need Chromium; this one needs only `node`)."""

import json
import re
import shutil
import subprocess

import pytest

from factories import case, run
from ragmeter.report.html import render_html

NODE = shutil.which("node") or shutil.which("nodejs")
pytestmark = pytest.mark.skipif(NODE is None, reason="node missing")

# Just what report.js touches: elements with children, text, dataset and listeners.
DOM = r"""
class Node {
  constructor(tag) { this.tag = tag; this.children = []; this.dataset = {}; this.className = "";
                     this.value = ""; this.own = null; }
  append(...xs) { for (const x of xs) this.children.push(x instanceof Node ? x : String(x)); }
  replaceChildren() { this.children = []; }
  addEventListener() {}
  get textContent() {
    if (this.own !== null) return this.own;
    return this.children.map((c) => (c instanceof Node ? c.textContent : c)).join("");
  }
  set textContent(v) { this.own = String(v); this.children = []; }
}
const ids = {};
for (const id of ["ragmeter-data", "filter-text", "filter-category", "filter-failing",
                  "case-rows", "case-count", "detail"]) ids[id] = new Node("div");
ids["ragmeter-data"].textContent = DATA;
globalThis.Node = Node;
globalThis.document = {
  getElementById: (id) => ids[id],
  createElement: (tag) => new Node(tag),
  documentElement: new Node("html"),
};
globalThis.window = { location: { hash: HASH, pathname: "/report.html" } };
globalThis.history = { replaceState: () => {} };
"""
REPORT = r"""
const rows = ids["case-rows"].children.map((tr) => tr.dataset.id);
const detail = ids["detail"].children.length ? ids["detail"].children[0].textContent : null;
const ready = document.documentElement.dataset.ready || null;
console.log(JSON.stringify({ ready, rows, detail }));
"""


def _open(html: str, fragment: str) -> dict[str, object]:
    """What the viewer shows for the page at `fragment`: rows, the detail's heading, ready."""
    data = re.search(r'<script [^>]*id="ragmeter-data">(.*?)</script>', html, re.S)
    script = re.findall(r"<script>(.*?)</script>", html, re.S)[-1]  # the report's, last
    assert data and "ragmeter HTML report" in script
    program = (
        f"const DATA = {json.dumps(data.group(1))};\nconst HASH = {json.dumps(fragment)};\n"
        + DOM
        + script
        + REPORT
    )
    proc = subprocess.run(
        [NODE, "-"], input=program, capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_hash_and_ids_named_like_object_properties_find_the_case_or_nothing():
    scores = {"faithfulness": 0.9, "answer_relevancy": 0.9}
    ids = ["constructor", "__proto__", "refund-1"]
    html = render_html(run([case(i, scores) for i in ids]))
    for fragment, heading in [
        ("#case=constructor", "constructor · normal · en"),
        ("#case=__proto__", "__proto__ · normal · en"),
        ("#case=refund-1", "refund-1 · normal · en"),
        ("#case=toString", None),  # no such case: nothing selected, nothing inherited
        ("#case=hasOwnProperty&__proto__=x&constructor=y", None),
    ]:
        shown = _open(html, fragment)
        assert shown == {"ready": "1", "rows": ids, "detail": heading}, fragment
    # Without such a case, `constructor` is a missing id, not Object.prototype.constructor.
    other = render_html(run([case("q1", scores)]))
    assert _open(other, "#case=constructor") == {"ready": "1", "rows": ["q1"], "detail": None}
