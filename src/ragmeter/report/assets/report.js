// ragmeter HTML report: filterable case list and per-case detail.
// Every piece of user text is inserted as a text node (textContent / append(string)), never as
// markup. Filter state lives in the URL hash (#q=...&category=...&failing=...&case=...), so a
// filtered view can be shared as a link. Lookups keyed by user text (case ids, hash keys) use a
// Map or a null-prototype object: `#case=constructor` or an id `__proto__` must find nothing
// inherited.
// A case opens in place: the one #detail element moves into a row of its own right under the
// case's row (a disclosure: the id is a button with aria-expanded), and the page scrolls the row
// to the top when the detail would start in the lower half of the window. Escape or "close"
// folds it and puts the focus (and the row) back on the case's button; a link (#case=ID) opens
// the case under its row and scrolls there, on load or when the hash changes.
// The list sorts by a column (a button in its header: click, Enter or Space; again to reverse);
// a case with no score on the metric sorts last either way, and ties keep the eval-set order.
// A score is drawn as a bar on the [0, 1] scale, so 0 is an empty bar beside "0.00", while a
// metric with no score is a hatched "n/a" (not applicable by design) or "unscored" cell that
// names its reason on hover. A long chunk is folded to about FOLD characters (FOLD_LINES lines
// at most) around the first span the judge cited in it (its start when none is recorded), with
// a "show all" toggle.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("ragmeter-data").textContent);
  var METRICS = data.metrics;
  var byId = new Map();
  data.cases.forEach(function (c) { byId.set(c.id, c); });

  function $(id) { return document.getElementById(id); }
  function el(tag, cls) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    for (var i = 2; i < arguments.length; i++) {
      var c = arguments[i];
      if (c === null || c === undefined) { continue; }
      e.append(c instanceof Node ? c : String(c));
    }
    return e;
  }
  function fmt(x) { return x === null || x === undefined ? "—" : x.toFixed(2); }
  var FOLD = 400, FOLD_LINES = 12;
  // A case's cell for metric m: its score (with a bar when `bar`), else why it has none.
  function scoreCell(c, m, bar) {
    var s = c.scores[m];
    if (s === null || s === undefined) {
      var na = (c.by_design || []).indexOf(m) >= 0;
      var none = el("td", "num score none " + (na ? "na" : "unscored"), na ? "n/a" : "unscored");
      none.title = (na ? "not applicable: " : "unscored: ") + (c.unscored[m] || "not judged");
      return none;
    }
    var td = el("td", "num score " + (c.failing.indexOf(m) >= 0 ? "fail" : "pass") + (s === 0 ? " zero" : ""));
    if (bar) {
      var fill = el("span", "fill");
      fill.style.width = Math.round(Math.max(0, Math.min(1, s)) * 100) + "%";
      td.append(el("span", "bar", fill), " ");
    }
    td.append(s.toFixed(2));
    return td;
  }

  var SORTS = ["id", "category"].concat(METRICS);
  var sortKey = "", sortDesc = false;
  var collator = new Intl.Collator(undefined, { numeric: true });
  var heads = [].slice.call(document.querySelectorAll("#cases th[data-sort]"));
  function sortValue(c) {
    if (sortKey === "id") { return c.id; }
    if (sortKey === "category") { return c.category; }
    var s = c.scores[sortKey];
    return s === null || s === undefined ? null : s;
  }
  // The cases in the list's order: the eval set's, or sorted by the chosen column.
  function ordered() {
    if (!sortKey) { return data.cases; }
    var keyed = data.cases.map(function (c, i) { return { c: c, i: i, v: sortValue(c) }; });
    keyed.sort(function (a, b) {
      if (a.v === null || b.v === null) {
        return a.v === b.v ? a.i - b.i : (a.v === null ? 1 : -1);
      }
      var d = typeof a.v === "number" ? a.v - b.v : collator.compare(a.v, b.v);
      return (sortDesc ? -d : d) || a.i - b.i;
    });
    return keyed.map(function (k) { return k.c; });
  }
  function showSort() {
    heads.forEach(function (th) {
      if (th.dataset.sort === sortKey) {
        th.setAttribute("aria-sort", sortDesc ? "descending" : "ascending");
      } else {
        th.removeAttribute("aria-sort");
      }
    });
  }
  function sortBy(key) {
    sortDesc = key === sortKey ? !sortDesc : false;
    sortKey = key;
    showSort();
    renderList();
  }
  heads.forEach(function (th) {
    var b = th.querySelector("button");
    b.title = "sort by " + th.dataset.sort.replace(/_/g, " ") + " (again to reverse)";
    b.addEventListener("click", function () { sortBy(th.dataset.sort); });
  });

  function readHash() {
    var out = Object.create(null);
    var h = window.location.hash.replace(/^#/, "");
    if (!h) { return out; }
    h.split("&").forEach(function (kv) {
      var i = kv.indexOf("=");
      if (i > 0) { out[decodeURIComponent(kv.slice(0, i))] = decodeURIComponent(kv.slice(i + 1)); }
    });
    return out;
  }
  function writeHash(state) {
    var parts = [];
    Object.keys(state).forEach(function (k) {
      if (state[k]) { parts.push(encodeURIComponent(k) + "=" + encodeURIComponent(state[k])); }
    });
    var h = parts.join("&");
    if (history.replaceState) { history.replaceState(null, "", h ? "#" + h : window.location.pathname); }
  }

  var text = $("filter-text"), cat = $("filter-category"), failing = $("filter-failing");
  var selected = null;
  var rows = new Map();  // case id -> its row in the list as last drawn
  var buttons = new Map();  // case id -> the button that opens it, in that row
  var listed = "";  // "N of M cases"
  var detail = $("detail");
  var detailCell = el("td", "");
  detailCell.colSpan = METRICS.length + 3;
  var detailRow = el("tr", "detail-row", detailCell);
  detailRow.id = "detail-row";

  function matches(c) {
    var q = text.value.trim().toLowerCase();
    if (q && (c.id + "\n" + c.question + "\n" + c.answer).toLowerCase().indexOf(q) < 0) { return false; }
    if (cat.value && c.category !== cat.value) { return false; }
    if (failing.value === "any" && c.failing.length === 0) { return false; }
    if (failing.value === "none" && c.failing.length > 0) { return false; }
    if (failing.value === "unscored" && Object.keys(c.unscored).length === 0) { return false; }
    if (METRICS.indexOf(failing.value) >= 0 && c.failing.indexOf(failing.value) < 0) { return false; }
    return true;
  }

  function renderList() {
    var body = $("case-rows");
    body.replaceChildren();
    rows = new Map();
    buttons = new Map();
    var shown = 0;
    ordered().forEach(function (c) {
      if (!matches(c)) { return; }
      shown += 1;
      var tr = el("tr", "case-row");
      tr.dataset.id = c.id;
      var open = el("button", "case-open", c.id);
      open.type = "button";
      open.setAttribute("aria-controls", "detail");
      open.setAttribute("aria-expanded", "false");
      tr.append(el("td", "", open), el("td", "", c.category));
      METRICS.forEach(function (m) { tr.append(scoreCell(c, m, true)); });
      var q = c.question.length > 120 ? c.question.slice(0, 119) + "…" : c.question;
      var qcell = el("td", "", q);
      qcell.lang = c.lang;
      tr.append(qcell);
      // The button's click (mouse, Enter, Space) bubbles here too: one handler for the row.
      tr.addEventListener("click", function () { toggle(c.id); });
      rows.set(c.id, tr);
      buttons.set(c.id, open);
      body.append(tr);
    });
    listed = shown + " of " + data.cases.length + (data.cases.length === 1 ? " case" : " cases");
    place();
  }

  // Put the detail under the selected case's row (or take it out of the list when no case is
  // selected or the filter hides it), mark the row, and record the state in the hash. The rows
  // stay as they are, so the focus stays on the button that opened or closed the case.
  function place() {
    rows.forEach(function (tr, id) {
      var on = id === selected;
      tr.className = on ? "case-row selected" : "case-row";
      buttons.get(id).setAttribute("aria-expanded", on ? "true" : "false");
    });
    var row = selected === null ? undefined : rows.get(selected);
    if (row === undefined) {
      if (detailRow.parentNode) { detailRow.remove(); }
    } else {
      if (detail.parentNode !== detailCell) { detailCell.append(detail); }
      row.after(detailRow);
    }
    $("case-count").textContent = listed +
      (selected !== null && row === undefined ? " · the open case " + selected + " is hidden by the filter" : "");
    writeHash({ q: text.value, category: cat.value, failing: failing.value,
      sort: sortKey ? (sortDesc ? "-" : "") + sortKey : "", "case": selected || "" });
  }

  // Bring an opened case's row to the top of the window when its detail would start in the
  // lower half (or below the fold); `always` for a link, which may point anywhere.
  function reveal(always) {
    var row = selected === null ? undefined : rows.get(selected);
    if (row === undefined) { return; }
    if (always || row.getBoundingClientRect().bottom > window.innerHeight / 2) {
      row.scrollIntoView({ block: "start" });
    }
  }

  function focusRow(id) {
    var row = rows.get(id);
    if (row === undefined) { return; }
    buttons.get(id).focus({ preventScroll: true });
    row.scrollIntoView({ block: "nearest" });
  }

  // Wrap the given [start, end) spans of `s` in <mark> elements, as text nodes.
  function highlighted(s, spans) {
    var box = el("div", "text");
    spans = spans.filter(function (x) { return x.start >= 0 && x.end <= s.length && x.end > x.start; })
      .sort(function (a, b) { return a.start - b.start; });
    var at = 0;
    spans.forEach(function (x) {
      if (x.start < at) { return; }
      box.append(s.slice(at, x.start));
      var mark = el("mark", x.cls, s.slice(x.start, x.end));
      mark.title = x.title;
      box.append(mark);
      at = x.end;
    });
    box.append(s.slice(at));
    return box;
  }

  // A chunk's text with its spans marked; past FOLD (and some) characters, folded to the part
  // around the first span (or the start) with a toggle that shows it all.
  function chunkText(s, spans) {
    if (s.length <= FOLD + FOLD / 4 && s.split("\n").length <= FOLD_LINES + 3) { return highlighted(s, spans); }
    var cited = spans.filter(function (x) { return x.start >= 0 && x.end <= s.length && x.end > x.start; })
      .sort(function (a, b) { return a.start - b.start; })[0];
    var start = cited ? Math.max(0, cited.start - 80) : 0;
    if (cited) {  // at most 3 lines of code or prose before the span
      var before = s.slice(start, cited.start).split("\n");
      if (before.length > 4) { start = cited.start - before.slice(-4).join("\n").length; }
    }
    var end = Math.min(s.length, Math.max(start + FOLD, cited ? Math.min(cited.end + 40, start + 3 * FOLD) : 0));
    // ... and at most FOLD_LINES lines in all, so short lines of code fold too (the span whole).
    for (var k = start, lines = 0; k < end; k++) {
      if (s.charAt(k) === "\n" && ++lines >= FOLD_LINES) {
        end = Math.max(k, cited ? Math.min(cited.end, start + 3 * FOLD) : 0);
        break;
      }
    }
    var inside = [];
    spans.forEach(function (x) {
      var a = Math.max(x.start, start), b = Math.min(x.end, end);
      if (b > a) { inside.push({ start: a - start, end: b - start, cls: x.cls, title: x.title }); }
    });
    var folded = highlighted(s.slice(start, end), inside);
    folded.className = "text folded";
    if (start > 0) { folded.prepend("… "); }
    if (end < s.length) { folded.append(" …"); }
    var full = highlighted(s, spans);
    full.hidden = true;
    var where = cited ? "the span the judge cited, characters " + (start + 1) + "–" + end + " of " + s.length
      : "the first " + end + " of " + s.length + " characters";
    var note = el("span", "muted fold-note", where + " ");
    var toggle = el("button", "fold-toggle", "show all");
    toggle.type = "button";
    toggle.setAttribute("aria-expanded", "false");
    toggle.addEventListener("click", function () {
      var open = full.hidden;
      full.hidden = !open;
      folded.hidden = open;
      note.hidden = open;
      toggle.textContent = open ? "show less" : "show all";
      toggle.setAttribute("aria-expanded", open ? "true" : "false");
    });
    return el("div", "fold", folded, full, el("div", "", note, toggle));
  }

  function label(v) { return v.replace(/_/g, " "); }
  // The number a verdict carries, named as the judge means it (data.strength: P(supported)
  // for an LLM judge's claims, support for the local judge's, ...); nothing when it has none.
  function strength(kind, x) {
    if (x === null || x === undefined || !data.strength || !data.strength[kind]) { return null; }
    return el("span", "strength", data.strength[kind] + " " + x.toFixed(2));
  }

  function renderDetail(c) {
    var d = detail;
    d.replaceChildren();
    if (!c) { return; }
    d.lang = c.lang;  // Han characters drawn with the glyphs of the case's language
    var heading = el("h3", "", c.id + " · " + c.category + " · " + c.lang);
    heading.id = "detail-title";
    d.append(heading);
    var link = el("a", "", "link to this case");
    link.href = "#case=" + encodeURIComponent(c.id);
    d.append(el("div", "detail-tools", closeButton("close ✕"), " ", link));
    if (c.history.length) {
      d.append(el("div", "muted", "conversation so far"));
      c.history.forEach(function (t) { d.append(el("div", "text", t.role + ": " + t.content)); });
    }
    d.append(el("div", "muted", "question"), el("div", "text question", c.question));
    if (c.ground_truth) { d.append(el("div", "muted", "reference answer"), el("div", "text", c.ground_truth)); }
    if (c.pipeline_error) { d.append(el("div", "banner error", "pipeline error: " + c.pipeline_error)); }
    d.append(el("div", "muted", "answer"), el("div", "text answer", c.answer || "(empty)"));

    // What pulled each failing metric under its pass mark comes first, as the judge recorded it.
    METRICS.forEach(function (m) {
      if (!c.why || !c.why[m]) { return; }
      var note = (data.indicative || []).indexOf(m) >= 0 ? " (indicative only)" : "";
      d.append(el("div", "banner error why", m + " " + fmt(c.scores[m]) + " < pass mark " +
        fmt(data.thresholds[m]) + note + ": " + c.why[m]));
    });

    var table = el("table", "");  // numbers and metric names never wrap; the notes do
    table.append(el("tr", "", el("th", "", "metric"), el("th", "num", "score"),
      el("th", "num", "pass mark"), el("th", "", "unscored reason / notes")));
    METRICS.forEach(function (m) {
      var notes = (c.evidence[m] && c.evidence[m].notes) || [];
      table.append(el("tr", "", el("td", "nowrap", m), scoreCell(c, m, false),
        el("td", "num", fmt(data.thresholds[m])), el("td", "", [c.unscored[m]].concat(notes).filter(Boolean).join(" · "))));
    });
    d.append(table);

    var faith = c.evidence.faithfulness;
    if (faith && faith.claims.length) {
      d.append(el("h3", "", "Claims of the answer (faithfulness)"));
      faith.claims.forEach(function (cl) {
        var row = el("div", "claim " + cl.verdict, el("span", "badge " + cl.verdict, label(cl.verdict)),
          strength("claim", cl.confidence), cl.claim);
        if (cl.chunk_index !== null && cl.chunk_index !== undefined) {
          row.append(el("div", "reason", "chunk " + (cl.chunk_index + 1) + (cl.evidence ? ": «" + cl.evidence + "»" : "")));
        }
        if (cl.reason) { row.append(el("div", "reason", cl.reason)); }
        d.append(row);
      });
    }
    var recall = c.evidence.context_recall;
    if (recall && recall.points.length) {
      d.append(el("h3", "", "Points of the reference answer (context recall)"));
      recall.points.forEach(function (p) {
        var cls = p.supported ? "supported" : "missing";
        var row = el("div", "point " + cls,
          el("span", "badge " + (p.supported ? "supported" : "contradicted"), p.supported ? "found" : "missing"),
          strength("point", p.confidence), p.point);
        if (p.reason) { row.append(el("div", "reason", p.reason)); }
        d.append(row);
      });
    }
    var rel = c.evidence.answer_relevancy;
    if (rel && rel.generated_questions.length) {
      d.append(el("h3", "", "Questions written back from the answer (answer relevancy)"));
      rel.generated_questions.forEach(function (g) { d.append(el("div", "text", g)); });
    }

    d.append(el("h3", "", "Retrieved chunks, best first (context precision)"));
    var chunks = new Map();
    var prec = c.evidence.context_precision;
    if (prec) { prec.chunks.forEach(function (ch) { chunks.set(ch.index, ch); }); }
    c.contexts.forEach(function (ctx, i) {
      var v = chunks.get(i);
      var cls = v === undefined ? "" : (v.useful ? "useful" : "not-useful");
      var box = el("div", "chunk " + cls);
      var badge = v === undefined ? el("span", "badge unjudged", "not judged")
        : el("span", "badge " + cls, v.useful ? "useful" : "not useful");
      box.append(el("div", "", badge, v ? strength("chunk", v.score) : null, "chunk " + (i + 1),
        v && v.reason ? el("span", "reason", " — " + v.reason) : null));
      var spans = [];
      if (faith) {
        faith.claims.forEach(function (cl) {
          if (cl.chunk_index === i && cl.span) {
            spans.push({ start: cl.span.start, end: cl.span.end, cls: cl.verdict, title: label(cl.verdict) + ": " + cl.claim });
          }
        });
      }
      if (recall) {
        recall.points.forEach(function (p) {
          if (p.chunk_index === i && p.span) {
            spans.push({ start: p.span.start, end: p.span.end, cls: "point", title: "reference point: " + p.point });
          }
        });
      }
      box.append(chunkText(ctx, spans));
      d.append(box);
    });
    if (!c.contexts.length) { d.append(el("div", "muted", "no chunks retrieved")); }
    d.append(el("div", "detail-tools", closeButton("close ✕ and back to " + c.id)));
  }

  function closeButton(caption) {
    var b = el("button", "detail-close", caption);
    b.type = "button";
    b.addEventListener("click", close);
    return b;
  }

  function select(id) {
    selected = typeof id === "string" && byId.has(id) ? id : null;
    renderDetail(selected === null ? null : byId.get(selected));
    place();
  }

  function close() {
    var was = selected;
    select(null);
    if (was !== null) { focusRow(was); }
  }

  function toggle(id) {
    if (id === selected) { close(); return; }
    select(id);
    reveal(false);
  }

  // Escape in the list or in the open case (which sits in the list) folds the case.
  $("case-rows").addEventListener("keydown", function (e) {
    if (e.key === "Escape" && selected !== null) { e.preventDefault(); close(); }
  });

  function applyHash() {
    var state = readHash();
    text.value = state.q || "";
    cat.value = state.category || "";
    failing.value = state.failing || "";
    var sort = state.sort || "";
    sortDesc = sort.charAt(0) === "-";
    sortKey = SORTS.indexOf(sort.replace(/^-/, "")) >= 0 ? sort.replace(/^-/, "") : "";
    if (!sortKey) { sortDesc = false; }
    showSort();
    renderList();
    select(state["case"] || null);
    reveal(true);
  }

  [text, cat, failing].forEach(function (input) {
    input.addEventListener("input", renderList);
    input.addEventListener("change", renderList);
  });
  window.addEventListener("hashchange", applyHash);
  // A failed case's link (#case=ID) above the table: followed again when the hash already
  // reads so (the case open), which fires no hashchange.
  var failedList = $("failed");
  if (failedList) {
    failedList.addEventListener("click", function (e) {
      var a = e.target.closest ? e.target.closest("a") : null;
      if (a && a.hash && a.hash === window.location.hash) { e.preventDefault(); applyHash(); }
    });
  }
  applyHash();
  document.documentElement.dataset.ready = "1";
})();
