"""Text from users and endpoints never drives the terminal: no ESC sequences, no Rich markup."""

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
