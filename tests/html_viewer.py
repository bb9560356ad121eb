"""Run the HTML report's own script under Node with a small stand-in DOM, drive it (clicks,
keys, filters, hash changes) and read back what it shows.

The stand-in has just what report.js touches: elements with children and parents (append,
after, remove), text, attributes, dataset, listeners with bubbling, focus, and scrollIntoView,
whose calls are recorded. The browser tests in test_html_browser.py need Chromium; these need
only `node`."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from typing import Any

NODE = shutil.which("node") or shutil.which("nodejs")

DOM = r"""
let scrolls = [];
let ROW_TOP = 5000;  // where every element sits in the window, px from its top
class Node {
  constructor(tag) {
    this.tag = tag; this.children = []; this.dataset = {}; this.className = ""; this.value = "";
    this.own = null; this.parentNode = null; this.attrs = {}; this.listeners = {}; this.id = "";
    this.style = {}; this.hidden = false; this.title = "";
  }
  prepend(...xs) {
    const before = this.children; this.children = []; this.append(...xs);
    this.children.push(...before);
  }
  querySelector(selector) {  // only "button": the first button inside
    for (const c of this.children) {
      if (!(c instanceof Node)) continue;
      if (c.tag === selector) return c;
      const found = c.querySelector(selector);
      if (found) return found;
    }
    return null;
  }
  append(...xs) {
    for (const x of xs) {
      if (x instanceof Node) { x.remove(); x.parentNode = this; this.children.push(x); }
      else { this.children.push(String(x)); }
    }
  }
  after(x) {
    x.remove();
    const siblings = this.parentNode.children;
    siblings.splice(siblings.indexOf(this) + 1, 0, x);
    x.parentNode = this.parentNode;
  }
  remove() {
    if (!this.parentNode) return;
    const siblings = this.parentNode.children;
    siblings.splice(siblings.indexOf(this), 1);
    this.parentNode = null;
  }
  replaceChildren() {
    for (const c of this.children) if (c instanceof Node) c.parentNode = null;
    this.children = [];
  }
  setAttribute(k, v) { this.attrs[k] = String(v); }
  removeAttribute(k) { delete this.attrs[k]; }
  getAttribute(k) { return k in this.attrs ? this.attrs[k] : null; }
  addEventListener(type, f) { (this.listeners[type] = this.listeners[type] || []).push(f); }
  focus() { document.activeElement = this; }
  scrollIntoView(options) {
    scrolls.push({ row: this.dataset.id === undefined ? this.id : this.dataset.id,
                   block: (options && options.block) || null });
  }
  getBoundingClientRect() { return { top: ROW_TOP, bottom: ROW_TOP + 20 }; }
  get textContent() {
    if (this.own !== null) return this.own;
    return this.children.map((c) => (c instanceof Node ? c.textContent : c)).join("");
  }
  set textContent(v) { this.own = String(v); this.children = []; }
}
const body = new Node("body");
const ids = {};
for (const id of ["ragmeter-data", "filter-text", "filter-category", "filter-failing",
                  "case-rows", "case-count", "detail"]) {
  ids[id] = new Node("div");
  body.append(ids[id]);
}
ids["ragmeter-data"].textContent = DATA;
// The case table's sortable headers, as html.py writes them: id, category, each judged metric.
const heads = ["id", "category"].concat(JSON.parse(DATA).metrics).map((key) => {
  const th = new Node("th");
  th.dataset.sort = key;
  th.append(new Node("button"));
  th.children[0].append(key.replace(/_/g, " "));
  return th;
});
const windowListeners = {};
let lastUrl = null;
globalThis.Node = Node;
globalThis.document = {
  getElementById: (id) => ids[id],
  querySelectorAll: (selector) => (selector === "#cases th[data-sort]" ? heads : []),
  createElement: (tag) => new Node(tag),
  documentElement: new Node("html"),
  activeElement: body,
};
globalThis.window = {
  location: { hash: HASH, pathname: "/report.html" },
  innerHeight: 900,
  addEventListener: (type, f) => { (windowListeners[type] = windowListeners[type] || []).push(f); },
};
globalThis.history = { replaceState: (s, t, url) => { lastUrl = url; } };
"""

HELPERS = r"""
function fire(node, type, init) {
  const event = Object.assign({ type, target: node, preventDefault() {} }, init || {});
  for (let n = node; n; n = n.parentNode) for (const f of n.listeners[type] || []) f(event);
}
function head(key) { return heads.find((th) => th.dataset.sort === key); }
function sortState() {
  const th = heads.find((h) => h.getAttribute("aria-sort") !== null);
  return th ? th.dataset.sort + " " + th.getAttribute("aria-sort") : null;
}
function find(node, test, found) {  // the nodes under `node` that pass `test`, in order
  found = found || [];
  for (const c of node.children) {
    if (!(c instanceof Node)) continue;
    if (test(c)) found.push(c);
    find(c, test, found);
  }
  return found;
}
function cells(id) {  // each judged metric's cell of a case's row: class, text, title, bar width
  return row(id).children.slice(2, -1).map((td) => ({
    cls: td.className, text: td.children.filter((x) => !(x instanceof Node)).join("").trim()
      || td.textContent, title: td.title || null,
    bar: td.children[0] instanceof Node ? td.children[0].children[0].style.width : null,
  }));
}
function chunks() {  // each retrieved chunk in the open case: what shows, and the toggle
  return find(ids["detail"], (n) => /^chunk\b/.test(n.className)).map((box) => {
    const shown = find(box, (n) => /^text\b/.test(n.className) && !n.hidden)[0];
    const toggle = find(box, (n) => n.className === "fold-toggle")[0] || null;
    return { shown: shown.textContent,
      marks: find(shown, (n) => n.tag === "mark").map((m) => m.textContent),
      toggle: toggle && toggle.textContent,
      expanded: toggle && toggle.getAttribute("aria-expanded") };
  });
}
function row(id) { return ids["case-rows"].children.find((tr) => tr.dataset.id === id); }
function button(id) { return row(id).children[0].children[0]; }
function click(node) { fire(node, "click"); }
function key(node, name) { fire(node, "keydown", { key: name }); }
function type(id, value) { ids[id].value = value; fire(ids[id], "input"); }
function goTo(hash) {
  window.location.hash = hash;
  for (const f of windowListeners["hashchange"] || []) f({ type: "hashchange" });
}
function closeButtons() {
  const found = [];
  (function walk(n) {
    if (n.className === "detail-close") found.push(n);
    for (const c of n.children) if (c instanceof Node) walk(c);
  })(ids["detail"]);
  return found;
}
function state() {
  const tbody = ids["case-rows"].children;
  const at = tbody.findIndex((tr) => tr.className === "detail-row");
  const detail = ids["detail"];
  const inRow = at >= 0 && detail.parentNode && detail.parentNode.parentNode === tbody[at];
  const focused = document.activeElement;
  return {
    ready: document.documentElement.dataset.ready || null,
    rows: tbody.filter((tr) => tr.className !== "detail-row").map((tr) => tr.dataset.id),
    detail: detail.children.length ? detail.children[0].textContent : null,
    detail_after: at > 0 && inRow ? tbody[at - 1].dataset.id : null,
    detail_span: at >= 0 ? tbody[at].children[0].colSpan : null,
    detail_lang: detail.lang || null,
    selected: tbody.filter((tr) => / selected$/.test(tr.className)).map((tr) => tr.dataset.id),
    expanded: tbody.filter((tr) => tr.className !== "detail-row"
      && button(tr.dataset.id).getAttribute("aria-expanded") === "true").map((tr) => tr.dataset.id),
    focus: focused === body ? null : focused.textContent,
    count: ids["case-count"].textContent,
    url: lastUrl,
    sort: sortState(),
    chunks: chunks(),
    scrolls,
  };
}
const snapshots = [];
let extras = [];
function extra(value) { extras.push(value); }
function snap() {
  snapshots.push(Object.assign(state(), { extra: extras }));
  scrolls = [];
  extras = [];
}
"""


def open_report(html: str, fragment: str = "", actions: str = "") -> list[dict[str, Any]]:
    """What the viewer shows for the page at `fragment` once loaded, then after each `snap()`
    in `actions` (JavaScript run after load, with fire, click, key, type, goTo, row, button,
    head (a sortable column's header), cells, chunks, find, closeButtons and ROW_TOP at hand;
    `extra(value)` adds a value to the next snapshot's `extra` list). Each snapshot: ready,
    rows (case ids listed), detail
    (its heading or None), detail_after (the case row the detail sits under, None when it is
    not in the list), detail_span, detail_lang, selected, expanded (aria-expanded="true"),
    focus (text of the focused element), count, url (the last hash written), sort (the sorted
    column and its aria-sort, or None), chunks (the open case's chunks: the text shown, its marks,
    the fold toggle's caption and aria-expanded), extra, scrolls
    (scrollIntoView calls since the last snapshot: row id and block)."""
    assert NODE is not None
    data = re.search(r'<script [^>]*id="ragmeter-data">(.*?)</script>', html, re.S)
    script = re.findall(r"<script>(.*?)</script>", html, re.S)[-1]  # the report's, last
    assert data and "ragmeter HTML report" in script
    program = (
        f"const DATA = {json.dumps(data.group(1))};\nconst HASH = {json.dumps(fragment)};\n"
        + DOM
        + HELPERS
        + script
        + "\nsnap();\n"
        + actions
        + "\nconsole.log(JSON.stringify(snapshots));\n"
    )
    proc = subprocess.run(
        [NODE, "-"], input=program, capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)
