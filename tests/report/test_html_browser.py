"""Open the HTML report in headless Chromium (Debian's `chromium`): no console errors, the case
filter works, and user text containing <script> is shown as text, never run."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from factories import case, judge, run
from ragmeter.report.html import render_html
from ragmeter.report.inputs import ReportInputs

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="chromium missing: apt-get install chromium"),
]

EVIL = (
    '<script>document.title="PWNED";window.pwned=1</script>'
    "<img src=x onerror=\"document.title='PWNED'\"><b>bold</b>"
)


def _dump(page: Path, fragment: str, tmp_path: Path) -> tuple[str, str]:
    """The DOM after the report's scripts ran, and Chromium's log (console lines included)."""
    proc = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
            page.as_uri() + fragment,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return proc.stdout, proc.stderr


def _rows(dom: str) -> list[str]:
    return re.findall(r'<tr[^>]*data-id="([^"]+)"', dom)


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    cases = [
        case(
            "refund-1",
            {
                "faithfulness": 0.3,
                "context_recall": 1.0,
                "context_precision": 0.5,
                "answer_relevancy": 0.9,
            },
            contexts=[EVIL, "Refunds take 14 days."],
            claims=[("Refunds take 30 days.", "contradicted"), ("It is free.", "supported")],
        ),
        case(
            "typo-1",
            {
                "faithfulness": 1.0,
                "context_recall": 0.2,
                "context_precision": 1.0,
                "answer_relevancy": 0.9,
            },
            category="typo",
            question="how lnog refnds?",
        ),
        case(
            "oos-1",
            {
                "faithfulness": "refusal: answer has no claims",
                "context_recall": 1.0,
                "context_precision": 1.0,
                "answer_relevancy": 0.9,
            },
            category="out_of_scope",
            question="What is the weather?",
        ),
    ]
    path = tmp_path_factory.mktemp("html") / "report.html"
    path.write_text(render_html(ReportInputs(run(cases))), encoding="utf-8")
    return path


def test_renders_without_console_errors(page, tmp_path):
    dom, log = _dump(page, "", tmp_path)
    assert 'data-ready="1"' in dom  # the report script ran to the end
    assert "data-errors" not in re.search(r"<html[^>]*>", dom).group(0)
    assert [line for line in log.splitlines() if "CONSOLE" in line] == []
    assert _rows(dom) == ["refund-1", "typo-1", "oos-1"]
    assert "3 of 3 cases" in dom


def test_case_filter_by_text_category_and_failing_metric(page, tmp_path):
    assert _rows(_dump(page, "#q=lnog", tmp_path)[0]) == ["typo-1"]
    assert _rows(_dump(page, "#category=out_of_scope", tmp_path)[0]) == ["oos-1"]
    dom = _dump(page, "#failing=faithfulness", tmp_path)[0]
    assert _rows(dom) == ["refund-1"] and "1 of 3 cases" in dom
    assert _rows(_dump(page, "#failing=unscored", tmp_path)[0]) == ["oos-1"]


def test_script_in_a_context_is_shown_as_text_and_never_run(page, tmp_path):
    dom, log = _dump(page, "#case=refund-1", tmp_path)
    assert "PWNED" not in re.search(r"<title>(.*?)</title>", dom).group(1)
    assert "&lt;script&gt;document.title=" in dom  # visible as text in the chunk
    assert "<img" not in dom and "<b>bold" not in dom
    assert 'class="claim contradicted"' in dom and 'class="claim supported"' in dom
    assert 'class="chunk useful"' in dom and 'class="chunk not-useful"' in dom
    assert [line for line in log.splitlines() if "CONSOLE" in line] == []


def test_llm_verdict_probabilities_shown_next_to_the_verdicts(tmp_path):
    llm = case(
        "p-1", {"faithfulness": 0.2, "context_precision": 0.3}, claims=[("Late.", "contradicted")]
    )
    llm.metrics["faithfulness"].evidence.claims[0].confidence = 0.034
    llm.metrics["context_precision"].evidence.chunks[1].score = 0.08
    bare = case("p-2", {"faithfulness": 0.2}, claims=[("Early.", "contradicted")])
    path = tmp_path / "llm.html"
    path.write_text(
        render_html(ReportInputs(run([llm, bare], judge_fp=judge("openai", "m")))), encoding="utf-8"
    )
    dom, log = _dump(path, "#case=p-1", tmp_path)
    assert '<span class="strength">P(supported) 0.03</span>' in dom
    assert '<span class="strength">P(useful) 0.08</span>' in dom
    assert [line for line in log.splitlines() if "CONSOLE" in line] == []
    assert 'class="strength"' not in _dump(path, "#case=p-2", tmp_path)[0]


def test_a_linked_case_opens_under_its_own_row(page, tmp_path):
    dom, log = _dump(page, "#case=typo-1", tmp_path)
    # The row after typo-1's is the detail, holding the case; no other case is open.
    after = re.search(r'<tr[^>]*data-id="typo-1"[^>]*>.*?</tr>\s*<tr([^>]*)>(.*?)<h3', dom, re.S)
    assert after is not None and 'id="detail-row"' in after.group(1)
    assert 'id="detail"' in after.group(2)
    expanded = re.findall(r'<button[^>]*aria-expanded="true"[^>]*>([^<]*)</button>', dom)
    assert expanded == ["typo-1"]
    assert _rows(dom) == ["refund-1", "typo-1", "oos-1"]
    assert [line for line in log.splitlines() if "CONSOLE" in line] == []
