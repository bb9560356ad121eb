"""A single self-contained HTML report that works offline.

Charts are inline SVG drawn here; the case list and per-case detail are drawn by a small
vendored script (assets/report.js) from the run's data, embedded as JSON in a
``<script type="application/json">`` block with ``<``, ``>``, ``&`` escaped as unicode, so no
user text can close the block. The script inserts user text as text nodes only, and a
Content-Security-Policy lets only the report's own scripts run.
"""

from __future__ import annotations

import base64
import hashlib
import heapq
import html
import json
import math
import re
from collections.abc import Sequence
from dataclasses import asdict
from importlib.resources import files
from typing import Any
from urllib.parse import quote

from ..compare import Comparison
from ..compare.noise import NoiseSummary
from ..results import CaseResult, MetricSummary, RunResult
from ..results.explain import short, shortfall, strength_labels
from ..results.indicative import indicative_metrics
from ..vocabulary import METRICS, RETRIEVAL_METRICS
from ..vocabulary.reasons import BY_DESIGN_CODES, unscored_code
from .comparison import ci_label, diff_rows
from .failures import worst_failures
from .inputs import ReportInputs
from .judge_agreement import calibration_lines
from .safe import json_escaped, printable
from .words import counted, readable_time, spend_line

COLORS = ("#0969da", "#8250df", "#bf8700", "#1a7f37")
_ERROR_TRAP = (
    "window.addEventListener('error',function(e){var r=document.documentElement;"
    "r.setAttribute('data-errors',(r.getAttribute('data-errors')||'')+String(e.message)+'\\n');"
    "var b=document.createElement('div');b.className='banner error';"
    "b.textContent='report script error: '+String(e.message);"
    "document.body&&document.body.prepend(b);});"
)


def escape(text: str) -> str:
    """Text made inert in HTML, its control characters shown as `\\xNN`."""
    return html.escape(printable(text))


_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def _with_code(text: str) -> str:
    """Our own wording, written with Markdown's `code` spans, as HTML: escaped, each span a
    <code> element."""
    return _CODE_SPAN.sub(r"<code>\1</code>", escape(text))


def _asset(name: str) -> str:
    return files("ragmeter.report").joinpath("assets", name).read_text(encoding="utf-8")


def json_for_script(data: Any) -> str:
    """JSON that is safe inside a <script> element: no `<`, `>` or `&` survive, and no control
    character is written raw."""
    text = json_escaped(json.dumps(data, ensure_ascii=False))
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def _csp_hash(script: str) -> str:
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode() + "'"


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def metrics_chart(run: RunResult) -> str:
    """Horizontal bars: each metric's mean with its interval as a whisker."""
    rows = [(m, s) for m in METRICS if (s := run.summary.metrics.get(m)) is not None]
    left, width, row_h = 150, 320, 26
    height = row_h * len(rows) + 24
    parts = [
        f'<svg role="img" aria-label="mean per metric" width="{left + width + 60}" '
        f'height="{height}" xmlns="http://www.w3.org/2000/svg" font-size="12">'
        '<defs><pattern id="na" width="6" height="6" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><rect width="6" height="6" fill="#eaeef2"/>'
        '<line x1="0" y1="0" x2="0" y2="6" stroke="#afb8c1" stroke-width="2"/></pattern></defs>'
    ]
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        x = left + tick * width
        parts.append(
            f'<line x1="{x:.1f}" y1="0" x2="{x:.1f}" y2="{height - 18}" stroke="#d0d7de"/>'
        )
        parts.append(
            f'<text x="{x:.1f}" y="{height - 4}" text-anchor="middle" '
            f'fill="#656d76">{tick:g}</text>'
        )
    for i, (metric, s) in enumerate(rows):
        y = i * row_h + 4
        parts.append(f'<text x="{left - 8}" y="{y + 14}" text-anchor="end">{metric}</text>')
        if s.mean is None:
            parts.append(
                f'<rect x="{left}" y="{y + 3}" width="{width}" height="14" fill="url(#na)">'
                f"<title>{metric}: no case scored</title></rect>"
                f'<text x="{left + 4}" y="{y + 14}" fill="#656d76">n/a: unscored</text>'
            )
            continue
        # The track shows the whole [0, 1] scale, so a mean of 0 reads as an empty bar.
        parts.append(
            f'<rect x="{left}" y="{y + 3}" width="{width}" height="14" fill="none" '
            'stroke="#8c959f"/>'
        )
        parts.append(
            f'<rect x="{left}" y="{y + 3}" width="{s.mean * width:.1f}" height="14" '
            f'fill="{COLORS[i % 4]}" opacity="0.8"><title>{metric} mean {s.mean:.3f}'
            f"</title></rect>"
        )
        if s.ci is not None:
            lo, hi = left + s.ci[0] * width, left + s.ci[1] * width
            parts.append(
                f'<line x1="{lo:.1f}" y1="{y + 10}" x2="{hi:.1f}" y2="{y + 10}" '
                'stroke="#1f2328" stroke-width="1.5"/>'
            )
            for x in (lo, hi):
                parts.append(
                    f'<line x1="{x:.1f}" y1="{y + 5}" x2="{x:.1f}" y2="{y + 15}" '
                    'stroke="#1f2328" stroke-width="1.5"/>'
                )
        parts.append(f'<text x="{left + width + 6}" y="{y + 14}">{s.mean:.2f}</text>')
    parts.append("</svg>")
    return "".join(parts)


def category_chart(run: RunResult) -> str:
    """Grouped bars: per category, the four metrics' means."""
    cats = list(run.summary.by_category)
    if not cats:
        return ""
    group_w, bar_w, plot_h, top = 4 * 16 + 24, 16, 140, 10
    width = 40 + group_w * len(cats)
    height = top + plot_h + 40
    parts = [
        f'<svg role="img" aria-label="mean per category" width="{width}" height="{height}" '
        'xmlns="http://www.w3.org/2000/svg" font-size="11">'
    ]
    for tick in (0, 0.5, 1.0):
        y = top + plot_h * (1 - tick)
        parts.append(f'<line x1="30" y1="{y:.1f}" x2="{width}" y2="{y:.1f}" stroke="#d0d7de"/>')
        parts.append(
            f'<text x="26" y="{y + 4:.1f}" text-anchor="end" fill="#656d76">{tick:g}</text>'
        )
    for g, cat in enumerate(cats):
        x0 = 40 + g * group_w
        for i, metric in enumerate(METRICS):
            s = run.summary.by_category[cat].get(metric)
            if s is None or s.mean is None:
                continue
            h = plot_h * s.mean
            parts.append(
                f'<rect x="{x0 + i * bar_w}" y="{top + plot_h - h:.1f}" width="{bar_w - 2}" '
                f'height="{h:.1f}" fill="{COLORS[i]}"><title>{escape(cat)} · {metric} '
                f"{s.mean:.3f} (n={s.n_scored})</title></rect>"
            )
        label = escape(cat if len(cat) <= 14 else cat[:13] + "…")
        parts.append(
            f'<text x="{x0 + 2 * bar_w:.1f}" y="{top + plot_h + 16}" '
            f'text-anchor="middle">{label}</text>'
        )
        n = max(
            (s.n_scored + s.n_unscored for s in run.summary.by_category[cat].values()), default=0
        )
        parts.append(
            f'<text x="{x0 + 2 * bar_w:.1f}" y="{top + plot_h + 30}" '
            f'text-anchor="middle" fill="#656d76">n={n}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def histogram_chart(metric: str, stats: MetricSummary, color: str) -> str:
    """Ten bins over [0, 1] from the stored histogram."""
    counts = stats.histogram or [0] * 10
    top = max(counts) or 1
    bar_w, plot_h = 20, 70
    parts = [
        f'<svg role="img" aria-label="{metric} distribution" width="{bar_w * 10 + 10}" '
        f'height="{plot_h + 18}" xmlns="http://www.w3.org/2000/svg" font-size="10">'
    ]
    for i, count in enumerate(counts):
        h = plot_h * count / top
        parts.append(
            f'<rect x="{5 + i * bar_w}" y="{plot_h - h:.1f}" width="{bar_w - 2}" '
            f'height="{h:.1f}" fill="{color}"><title>{i / 10:.1f}–{(i + 1) / 10:.1f}: '
            f"{counted(count, 'case')}</title></rect>"
        )
    parts.append(f'<text x="5" y="{plot_h + 14}" fill="#656d76">0</text>')
    parts.append(
        f'<text x="{bar_w * 10 + 5}" y="{plot_h + 14}" text-anchor="end" fill="#656d76">1</text>'
    )
    parts.append("</svg>")
    return "".join(parts)


MAX_CASES = 2000
"""Cases an HTML report holds at most: a browser page cannot list (nor a person read) a very
large run's every case; results.json keeps them all."""


def shown_cases(run: RunResult, limit: int = MAX_CASES) -> Sequence[CaseResult]:
    """The cases the viewer holds, in eval-set order: every case when there are at most
    `limit`, else the `limit` worst: failing some metric (furthest below its threshold first),
    then unscored for a reason other than by design, then the others. A re-judged case counts
    with the mean of its judgements (`CaseResult.outcome`), here and in the case table."""
    if len(run.cases) <= limit:
        return run.cases
    thresholds = run.run.thresholds

    def key(index: int) -> tuple[int, float, int]:
        case = run.cases[index]
        worst, unscored = math.inf, case.pipeline_error is not None
        for metric, result in case.metrics.items():
            threshold = thresholds.get(metric)
            score = case.outcome(metric).score
            if score is None:
                unscored = unscored or unscored_code(result) not in BY_DESIGN_CODES
            elif threshold is not None:
                worst = min(worst, score - threshold)
        return (0 if worst < 0 else 1 if unscored else 2, worst, index)

    chosen = heapq.nsmallest(max(0, limit), range(len(run.cases)), key=key)
    return [run.cases[i] for i in sorted(chosen)]


def _case_data(run: RunResult, cases: Sequence[CaseResult]) -> list[dict[str, Any]]:
    out = []
    for case in cases:
        scores, unscored, failing, evidence, why = {}, {}, [], {}, {}
        by_design = []
        for metric in METRICS:
            mark = run.run.thresholds.get(metric)
            outcome = case.outcome(metric, mark)
            scores[metric] = outcome.score
            if outcome.unscored_reason is not None:
                unscored[metric] = outcome.unscored_reason
                if outcome.result is not None and unscored_code(outcome.result) in BY_DESIGN_CODES:
                    by_design.append(metric)  # not applicable to the case, not a failure
            if outcome.failed:
                failing.append(metric)
                if outcome.result is not None and mark is not None:
                    why[metric] = shortfall(outcome.result, mark, run.judge)
            result = outcome.result
            if result is None:
                continue
            evidence[metric] = result.evidence.model_dump(
                mode="json",
                include={"claims", "chunks", "points", "generated_questions", "notes"},
            )
        out.append(
            {
                "id": case.id,
                "category": case.category,
                "lang": case.lang,
                "question": case.question,
                "ground_truth": case.ground_truth,
                "history": [t.model_dump(mode="json") for t in case.history],
                "contexts": case.contexts,
                "answer": case.answer,
                "pipeline_error": case.pipeline_error,
                "scores": scores,
                "unscored": unscored,
                "by_design": by_design,
                "failing": failing,
                "evidence": evidence,
                "why": why,
            }
        )
    return out


def _failed_section(report: ReportInputs, listed: set[str]) -> str:
    """The failed (case, metric) pairs, worst first, as the terminal and Markdown reports list
    them: score, metric, pass mark, case id (a link that opens the case below when it is in the
    case list), question, and the first line of the evidence (`explain.shortfall`)."""
    failures, total = worst_failures(report.run, report.max_failures)
    out = [
        '<section id="failed" aria-labelledby="failed-title">'
        '<h2 id="failed-title" class="lead">Failed cases, worst first '
        f'<span class="muted">({total} case × metric under its pass mark)</span></h2>'
    ]
    if not total:
        out.append('<p class="muted">None: every scored case is at or above its pass mark.</p>')
    else:
        out.append('<ol class="failed">')
        for failure in failures:
            case = failure.case
            name = escape(short(case.id, 60))
            if case.id in listed:
                name = f'<a href="#case={escape(quote(case.id, safe=""))}">{name}</a>'
            why = failure.reasons[0] if failure.reasons else ""
            lang = escape(case.lang)
            out.append(
                f'<li data-id="{escape(case.id)}"><span class="fscore">{failure.score:.2f}</span> '
                f'<b>{failure.metric}</b> <span class="muted">{escape(failure.mark)}</span> · '
                f'{name} <span lang="{lang}">{escape(short(case.question, 140))}</span>'
                f'<div class="why" lang="{lang}" title="{escape(why)}">{escape(short(why, 240))}'
                "</div></li>"
            )
        out.append("</ol>")
        if total > len(failures):
            out.append(
                f'<p class="muted">… {total - len(failures)} more: filter the case table '
                "below by <i>failing any metric</i>, or sort it by a metric.</p>"
            )
    out.append("</section>")
    return "".join(out)


def _summary_table(run: RunResult, noise: NoiseSummary | None) -> str:
    head = ["metric", "stage", "mean", "95% CI", "scored", "unscored", "failed", "distribution"]
    if noise:
        head[7:7] = ["noise floor", "flip rate"]
    rows = ["<tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for i, metric in enumerate(METRICS):
        s = run.summary.metrics.get(metric)
        if s is None:
            continue
        ci = "—" if s.ci is None else f"[{s.ci[0]:.2f}, {s.ci[1]:.2f}]"
        reasons = "; ".join(f"{r}: {n}" for r, n in s.unscored_reasons.items())
        cells = [
            metric,
            "retrieval" if metric in RETRIEVAL_METRICS else "generation",
            _fmt(s.mean),
            ci,
            str(s.n_scored),
            f'<span title="{escape(reasons)}">{s.n_unscored}</span>',
            str(s.n_failed),
        ]
        if noise:
            m = noise.metrics.get(metric)
            cells += ["—", "—"] if m is None else [f"±{m.noise_floor:.3f}", f"{m.flip_rate:.0%}"]
        cells.append(histogram_chart(metric, s, COLORS[i % 4]))
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return "<table>" + "".join(rows) + "</table>"


def _comparison_section(comparison: Comparison) -> str:
    out = ["<h2>Compared with the baseline</h2>"]
    out += [f'<div class="banner warn">{escape(p)}</div>' for p in comparison.problems]
    out.append(
        "<table><tr><th>metric</th><th class=num>paired</th><th class=num>base</th>"
        f"<th class=num>new</th><th class=num>diff</th><th>{ci_label(comparison)}</th>"
        "<th>significant</th></tr>"
    )
    classes = {"worse": "score fail", "better": "score pass", None: ""}
    for row in diff_rows(comparison):
        out.append(
            f"<tr><td>{row.metric}</td><td class=num>{row.paired}</td><td class=num>"
            f"{row.base}</td><td class=num>{row.new}</td>"
            f'<td class="num {classes[row.change]}">{row.diff}</td><td>{row.ci}</td>'
            f"<td>{'yes' if row.significant else 'no'}</td></tr>"
        )
    out.append("</table>")
    if comparison.regressed:
        out.append(f"<h3>Regressed cases ({len(comparison.regressed)}), worst first</h3><ul>")
        for c in comparison.regressed[:20]:
            out.append(
                f"<li><b>{escape(c.case_id)}</b> {c.metric} {c.base:.2f} → {c.new:.2f} "
                f"({c.diff:+.2f}): {escape(c.question[:140])}</li>"
            )
        out.append("</ul>")
    return "".join(out)


def render_html(report: ReportInputs, *, max_cases: int = MAX_CASES) -> str:
    """The `html` renderer: one file, no network; the case list holds at most `max_cases`
    cases (:func:`shown_cases`), and says so."""
    run = report.run
    judge = run.judge
    cases = shown_cases(run, max_cases)
    judged = [m for m in METRICS if m in run.summary.metrics]  # `--metrics` may judge fewer
    data = {
        "metrics": judged,
        "thresholds": {m: run.run.thresholds.get(m) for m in METRICS},
        "strength": asdict(strength_labels(judge)),
        "indicative": sorted(indicative_metrics(run.run.calibration)),
        "cases": _case_data(run, cases),
    }
    script = _asset("report.js")
    csp = (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
        f"script-src {_csp_hash(_ERROR_TRAP)} {_csp_hash(script)}"
    )
    diag = run.diagnosis
    findings = "".join(
        f'<li class="{escape(f.severity)}">[{escape(f.stage)}] {escape(f.message)}'
        + (
            f'<div class="advice">→ {escape(f.advice)}</div>'
            if f.advice and f.severity in ("fix-first", "weak")
            else ""
        )
        + "</li>"
        for f in diag.findings
    )
    n_cases = counted(run.summary.n_cases, "case")
    at = run.run.started_at
    started = (
        f'<time datetime="{escape(at)}" title="{escape(at)}">{escape(readable_time(at))}</time>'
    )
    trust = "".join(
        f"<li>{_with_code(line)}</li>" for line in [spend_line(run), *calibration_lines(run)]
    )
    warnings = "".join(f'<div class="banner warn">{escape(w)}</div>' for w in run.run.warnings)
    if run.summary.n_pipeline_errors:
        warnings += (
            f'<div class="banner error">{counted(run.summary.n_pipeline_errors, "case")} '
            "failed in the pipeline (unscored)</div>"
        )
    if len(cases) < len(run.cases):
        warnings += (
            f'<div class="banner warn">The case list holds the {len(cases):,} worst of '
            f"{len(run.cases):,} cases (failing first, then unscored); results.json has every "
            "case.</div>"
        )
    categories = "".join(
        f'<option value="{escape(c)}">{escape(c)}</option>' for c in run.summary.by_category
    )
    failing_opts = "".join(f'<option value="{m}">failing {m}</option>' for m in judged)
    legend = "".join(
        f'<span><i class="sw" style="background:{COLORS[i]}"></i>{m}</span>'
        for i, m in enumerate(METRICS)
    )
    heads = "".join(
        f'<th class=num data-sort="{m}"><button type="button">{m.replace("_", " ")}</button></th>'
        for m in judged
    )
    comparison = "" if report.comparison is None else _comparison_section(report.comparison)
    title = f"ragmeter report · {run.run.pipeline or 'run'}"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
<script>{_ERROR_TRAP}</script>
<style>{_asset("report.css")}</style></head>
<body>
<h1>ragmeter report</h1>
<div class="meta">{n_cases} · pipeline {escape(run.run.pipeline or "—")} ·
judge {escape(judge.kind)} ({escape(judge.model)}, prompts {escape(judge.prompt_version)}) ·
started {started} · ragmeter {escape(run.run.ragmeter_version or "?")}</div>
<ul class="meta trust">{trust}</ul>
{warnings}
<h2>Diagnosis</h2>
<p><b>{escape(diag.headline)}</b></p><ul class="diag">{findings}</ul>
{_failed_section(report, {c.id for c in cases})}
{comparison}
<h2>Summary</h2>
<div class="charts"><div class="chart"><h3>Mean per metric (95% interval)</h3>
{metrics_chart(run)}</div>
<div class="chart"><h3>Mean per category</h3><div class="legend">{legend}</div>
{category_chart(run)}</div></div>
<h3>Scores and distributions</h3>
{_summary_table(run, report.noise)}
<h2>Cases</h2>
<div class="filters">
<input id="filter-text" type="search" placeholder="filter by id, question or answer">
<select id="filter-category"><option value="">all categories</option>{categories}</select>
<select id="filter-failing"><option value="">all cases</option>
<option value="any">failing any metric</option><option value="none">failing none</option>
<option value="unscored">with unscored metrics</option>{failing_opts}</select>
<span id="case-count" class="muted"></span></div>
<table id="cases"><thead><tr><th data-sort="id"><button type="button">id</button></th>
<th data-sort="category"><button type="button">category</button></th>{heads}<th>question</th>
</tr></thead>
<tbody id="case-rows"></tbody></table>
<div id="detail" role="region" aria-labelledby="detail-title"></div>
<script type="application/json" id="ragmeter-data">{json_for_script(data)}</script>
<script>{script}</script>
</body></html>
"""
