"""Text from users and endpoints never drives the terminal: no ESC sequences, no Rich markup."""

import re

from typer.testing import CliRunner

from factories import case, run
from ragmeter.cli import app
from ragmeter.report.safe import printable
from ragmeter.results import save_run

ESC = "\x1b"
HOSTILE = f"{ESC}[2J{ESC}]0;pwned\x07 [bold]loud[/bold] [/x] [faq]"


def hostile_run():
    cases = [
        case(
            f"c{i}{ESC}[1A",
            {"faithfulness": 0.2 if i % 2 else 0.9, "answer_relevancy": f"judge error: {HOSTILE}"},
            category="[/oops]",
            question=f"Q{i} {HOSTILE}",
            answer=f"A {HOSTILE}",
            claims=[(f"claim {HOSTILE}", "not_verifiable")],
        )
        for i in range(6)
    ]
    result = run(cases, pipeline=f"pipe {HOSTILE}")
    result.run.warnings.append(f"warned {HOSTILE}")
    return result


def test_printable_escapes_control_characters_and_keeps_lines():
    assert printable("a\x1b[2Jb\x07c\x9b\n\td") == "a\\x1b[2Jb\\x07c\\x9b\n\td"


def test_every_printer_shows_hostile_text_literally(tmp_path):
    save_run(hostile_run(), tmp_path / "run")
    save_run(run([case("c0", {"faithfulness": 0.9})]), tmp_path / "other")
    runner = CliRunner()
    outputs = {
        "report": runner.invoke(app, ["report", str(tmp_path / "run")]),
        "gate": runner.invoke(app, ["gate", str(tmp_path / "run")]),
        "compare": runner.invoke(app, ["compare", str(tmp_path / "run"), str(tmp_path / "run")]),
    }
    for name, result in outputs.items():
        assert result.exception is None or isinstance(result.exception, SystemExit), name
        assert ESC not in result.output and "\x07" not in result.output, name
    report = outputs["report"].output
    assert "[/oops]" in report and "[faq]" in report and "[bold]loud[/bold]" in report
    assert "\\x1b[2J" in report


def test_markdown_mentions_nobody_and_reads_the_same():
    """GitHub notifies whoever an `@name` in a PR comment names; the Markdown report quotes
    questions, answers, categories, reasons and warnings that may hold one (issue 13)."""
    import re

    from ragmeter.report.inputs import ReportInputs
    from ragmeter.report.markdown import ZWJ, render_markdown

    mention = "ping @octocat and @acme/reviewers, mail ops@example.com"
    cases = [
        case(
            "m1",
            {"faithfulness": 0.1},
            category="@triage",
            question=f"Q {mention}",
            answer=f"A {mention}",
        )
    ]
    result = run(cases)
    result.run.warnings.append(f"warned {mention}")
    md = render_markdown(ReportInputs(result))
    # What GitHub reads as a mention: `@name` after a non-word character.
    assert re.findall(r"(?<![A-Za-z0-9_])@[A-Za-z0-9]", md) == []
    shown = md.replace(ZWJ, "")
    for text in ("@octocat", "@acme/reviewers", "@triage"):
        assert text in shown
    assert "ops@example.com" in md  # an address is no mention: left alone
    assert md.count(f"@{ZWJ}octocat") == 3  # question, answer, warning


CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""A terminal control byte: what no file or output of ragmeter may carry raw (\\n and \\t may)."""
RAW = "\x00NUL\x08BS\x1b[2J\x1b]0;pwned\x07\x9b31m\x7f"


def raw_run():
    cases = [
        case(
            f"r{i}{RAW}",
            {"faithfulness": 0.2 if i % 2 else 0.9, "answer_relevancy": f"judge error: {RAW}"},
            category=f"cat{RAW}",
            question=f"Q{i} {RAW} 问题",
            answer=f"A {RAW}",
            claims=[(f"claim {RAW}", "not_verifiable")],
        )
        for i in range(4)
    ]
    result = run(cases, pipeline=f"pipe {RAW}")
    result.run.warnings.append(f"warned {RAW}")
    return result


def test_no_report_format_writes_a_control_byte():
    """Markdown, HTML, JUnit XML and JSON show NUL, BS, ESC, BEL, DEL and C1 controls as
    escapes (JUnit XML 1.0 cannot carry most C0 controls at all)."""
    import json
    import xml.etree.ElementTree as ET

    from ragmeter.report.inputs import report_inputs
    from ragmeter.report.registry import render

    result = raw_run()
    inputs = report_inputs(result, raw_run())
    for fmt in ("md", "html", "junit", "json"):
        text = render(inputs, fmt)
        assert CONTROL.findall(text) == [], fmt
    assert "\\x1b[2J" in render(inputs, "md") and "\\x00NUL" in render(inputs, "md")
    junit = render(inputs, "junit")
    ET.fromstring(junit.encode())  # well-formed XML 1.0
    assert "\\x08BS" in junit and "\\x1b" in junit
    html_text = render(inputs, "html")
    assert "\\x1b[2J" in html_text  # shown in the page's own text (the warning)
    data = json.loads(render(inputs, "json"))
    assert data["warnings"] == [f"warned {RAW}"]  # JSON escapes: the same text read back


def test_lint_and_vary_print_ids_and_categories_literally(tmp_path):
    import json

    from test_vary import hand_made_run

    cases_file = tmp_path / "set\x1b[2J.jsonl"
    rows = [
        {"id": f"a{i}{RAW}", "question": f"How long do refunds take {i}?", "category": f"[b]{RAW}"}
        for i in range(3)
    ]
    rows.append({"id": f"dup{RAW}", "question": "How long do refunds take 0?", "category": "x"})
    cases_file.write_text(
        "\n".join(json.dumps({**r, "ground_truth": "14 days."}) for r in rows) + "\n"
    )
    runner = CliRunner()
    lint = runner.invoke(app, ["lint", str(cases_file)])
    assert lint.exit_code == 1, lint.output  # the duplicate question is an error
    assert CONTROL.findall(lint.output) == []
    assert "\\x1b[2J" in lint.output and "[b]" in lint.output  # literal, not markup
    lint_json = runner.invoke(app, ["lint", str(cases_file), "--format", "json"])
    assert CONTROL.findall(lint_json.output) == []
    assert json.loads(lint_json.output)["findings"]

    out = tmp_path / "varied\x1b[2J.jsonl"
    vary = runner.invoke(app, ["vary", "--cases", str(cases_file), "-o", str(out)])
    assert vary.exit_code == 0, vary.output
    assert CONTROL.findall(vary.output) == []
    assert "\\x1b[2J" in vary.output  # the skipped cases' ids

    checked = hand_made_run()
    typo = next(c for c in checked.cases if c.id == "o~typo")
    from ragmeter.judges.base import MetricResult

    typo.metrics["answer_relevancy"] = MetricResult.unscored("answer_relevancy", f"x {RAW}")
    save_run(checked, tmp_path / "run")
    check = runner.invoke(app, ["vary", "check", str(tmp_path / "run")])
    assert check.exit_code == 0, check.output
    assert CONTROL.findall(check.output) == [] and "\\x1b[2J" in check.output
    check_json = runner.invoke(app, ["vary", "check", str(tmp_path / "run"), "--format", "json"])
    assert CONTROL.findall(check_json.output) == []


def test_generate_prints_file_names_literally(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "refunds.md").write_text(
        "Refunds are issued within 14 days of the request. "
        "退款会在申请后十四天内退回原支付账户。\n" * 3
    )
    (docs / "bad\x1b[2J.txt").write_bytes(b"\xff\xfe\x00broken")
    out = tmp_path / "set\x1b]0;pwned\x07.jsonl"
    result = CliRunner().invoke(app, ["generate", str(docs), "-o", str(out), "--n", "4"])
    assert result.exit_code == 0, result.output
    assert CONTROL.findall(result.output) == []
    assert "\\x1b]0;pwned\\x07" in result.output
