"""Markdown report for a pull-request comment: scores, diagnosis, comparison, top failures."""

from __future__ import annotations

import re

from ..compare import Comparison
from ..compare.noise import NoiseSummary
from ..results import RunResult
from ..vocabulary import METRICS, RETRIEVAL_METRICS
from .comparison import ci_label, diff_rows
from .failures import worst_failures
from .inputs import ReportInputs
from .judge_agreement import calibration_lines
from .safe import printable
from .words import counted, spend_line

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~])")
_MENTION = re.compile(r"(?<![A-Za-z0-9_])@(?=[A-Za-z0-9])")
"""An `@` GitHub would read as a mention (of a user, or `org/team`): after a non-word
character and before a name. E-mail addresses (`a@b`) are not mentions and stay as they are."""
ZWJ = "\u200d"


def no_mentions(text: str) -> str:
    """`text` with a zero-width joiner after each `@` that would mention someone on GitHub: it
    reads the same, and nobody is notified. (A backslash does not do it: GitHub looks for
    mentions in the rendered text, where `\\@` is `@` again.)"""
    return _MENTION.sub("@" + ZWJ, text)


def md_escape(text: str, limit: int | None = None) -> str:
    """User text made inert in Markdown (and its inline HTML), on one line, mentioning nobody,
    its control characters shown as `\\xNN`."""
    text = printable(" ".join(text.split()))
    if limit is not None and len(text) > limit:
        text = text[: limit - 1] + "…"
    return no_mentions(_MD_SPECIAL.sub(r"\\\1", text).replace("&", "&amp;"))


def md_code(text: str, limit: int = 80) -> str:
    """User text as an inline code span (backticks cannot close it), cut at a word boundary
    with an ellipsis when it is longer than `limit`; its control characters shown as `\\xNN`."""
    text = printable(" ".join(text.split())).replace("`", "'")
    if len(text) > limit:
        cut = text[: limit - 1]
        space = cut.rfind(" ", limit // 2)
        text = (cut[:space] if space > 0 else cut).rstrip(" ,;") + "…"
    return f"`{text}`"


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _summary_table(run: RunResult, noise: NoiseSummary | None) -> list[str]:
    head = "| metric | stage | mean | 95% CI | scored | unscored | failed |"
    rule = "|---|---|---:|---|---:|---:|---:|"
    if noise:
        head += " noise floor | flip rate |"
        rule += "---:|---:|"
    lines = [head, rule]
    for metric in METRICS:
        s = run.summary.metrics.get(metric)
        if s is None:
            continue
        ci = "—" if s.ci is None else f"[{s.ci[0]:.3f}, {s.ci[1]:.3f}]"
        stage = "retrieval" if metric in RETRIEVAL_METRICS else "generation"
        row = (
            f"| {metric} | {stage} | {_num(s.mean)} | {ci} | {s.n_scored} | {s.n_unscored} | "
            f"{s.n_failed} |"
        )
        if noise:
            m = noise.metrics.get(metric)
            row += " — | — |" if m is None else f" ±{m.noise_floor:.3f} | {m.flip_rate:.0%} |"
        lines.append(row)
    if noise:
        lines.append("")
        lines.append(
            f"Judge noise from {noise.repeats} judgements per case: the noise floor is the SD of "
            "the mean due to the judge alone; the flip rate is the share of cases whose "
            "pass/fail verdict changed between judgements."
        )
    return lines


def _comparison(comparison: Comparison) -> list[str]:
    lines = ["### Compared with the baseline", ""]
    lines.extend(f"> ⚠️ {md_escape(p)}" for p in comparison.problems)
    if comparison.problems:
        lines.append("")
    lines += [
        f"| metric | paired | base | new | diff | {ci_label(comparison)} | significant |",
        "|---|---:|---:|---:|---:|---|---|",
    ]
    arrows = {"worse": " 🔻", "better": " 🔺", None: ""}
    for row in diff_rows(comparison):
        mark = "**yes**" if row.significant else "no"
        lines.append(
            f"| {row.metric} | {row.paired} | {row.base} | {row.new} | "
            f"{row.diff}{arrows[row.change]} | {row.ci} | {mark} |"
        )
    if comparison.regressed:
        lines += ["", f"**Regressed cases ({len(comparison.regressed)}), worst first**", ""]
        for change in comparison.regressed[:10]:
            lines.append(
                f"- {md_code(change.case_id, 60)} {change.metric} {change.base:.2f} → "
                f"{change.new:.2f} ({change.diff:+.2f}): {md_escape(change.question, 100)}"
            )
            if change.evidence:
                lines.append(f"  - {change.evidence_title}:")
            lines.extend(f"    - {md_escape(e, 160)}" for e in change.evidence[:2])
    if comparison.improved:
        lines.append("")
        lines.append(f"Improved cases: {len(comparison.improved)}.")
    return [*lines, ""]


def render_markdown(report: ReportInputs) -> str:
    """The `md` renderer."""
    run = report.run
    judge = run.judge
    lines = [
        "## ragmeter report",
        "",
        f"{counted(run.summary.n_cases, 'case')} · pipeline {md_code(run.run.pipeline or '—')} · "
        "judge "
        f"{md_code(judge.kind)} ({md_escape(judge.model)}, prompts "
        f"{md_escape(judge.prompt_version)})",
        "",
    ]
    # Our own wording, with strings read back from results.json (a file anyone may edit).
    lines += [*(f"- {no_mentions(line)}" for line in [spend_line(run), *calibration_lines(run)])]
    lines.append("")
    for warning in run.run.warnings:
        lines.append(f"> ⚠️ {md_escape(warning)}")
    if run.summary.n_pipeline_errors:
        failed = counted(run.summary.n_pipeline_errors, "case")
        lines.append(f"> ❌ {failed} failed in the pipeline.")
    if run.run.warnings or run.summary.n_pipeline_errors:
        lines.append("")
    lines += [*_summary_table(run, report.noise), ""]
    lines += ["### Diagnosis", "", f"**{md_escape(run.diagnosis.headline)}**", ""]
    for finding in run.diagnosis.findings:
        icon = {"fix-first": "🔴", "weak": "🟡", "ok": "🟢", "indicative": "❔"}.get(
            finding.severity, "⚪"
        )
        lines.append(f"- {icon} {finding.stage}: {md_escape(finding.message)}")
        if finding.advice and finding.severity in ("fix-first", "weak"):
            lines.append(f"  - try: {md_escape(finding.advice)}")
    lines.append("")
    if report.comparison is not None:
        lines += _comparison(report.comparison)
    failures, total = worst_failures(run, report.max_failures)
    lines.append(f"### Failed cases ({total} case × metric under its pass mark)")
    lines.append("")
    if total:
        lines.append("<details><summary>Worst first</summary>")
        lines.append("")
        for failure in failures:
            case = failure.case
            lines.append(
                f"- **{failure.score:.2f}** {failure.metric} {failure.mark} · "
                f"{md_code(case.id, 60)} "
                f"\\[{md_escape(case.category)}\\] {md_escape(case.question, 120)}"
            )
            if failure.metric != "context_recall" and case.answer:
                lines.append(f"  - answer: {md_escape(case.answer, 200)}")
            lines.extend(f"  - {md_escape(reason, 200)}" for reason in failure.reasons[:3])
        if total > len(failures):
            lines.append(f"- … {total - len(failures)} more in the full report")
        lines += ["", "</details>"]
    else:
        lines.append("None.")
    # Our own lines quote results.json too (spend, calibration): no control byte gets out.
    return printable("\n".join(lines) + "\n")
