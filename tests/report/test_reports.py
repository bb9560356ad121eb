import json
import re
import xml.etree.ElementTree as ET

import pytest

from factories import case, judge, run, uniform_run
from ragmeter.report.failures import explain
from ragmeter.report.html import json_for_script, render_html
from ragmeter.report.inputs import ReportInputs, report_inputs
from ragmeter.report.json_report import render_json
from ragmeter.report.junit import render_junit
from ragmeter.report.markdown import md_escape, render_markdown
from ragmeter.report.terminal import render_text

EVIL = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"> | `x` </script>'


def _run():
    return run(
        [
            case(
                "a",
                {
                    "faithfulness": 0.4,
                    "context_recall": 1.0,
                    "context_precision": 0.5,
                    "answer_relevancy": 0.9,
                },
                claims=[("Refunds take 30 days.", "contradicted")],
                contexts=[EVIL, "plain"],
            ),
            case(
                "b",
                {
                    "faithfulness": 1.0,
                    "context_recall": 0.2,
                    "context_precision": "no chunks retrieved",
                    "answer_relevancy": 0.8,
                },
                category="typo",
                question=EVIL,
            ),
            case(
                "c",
                {
                    "faithfulness": 0.9,
                    "context_recall": 0.9,
                    "context_precision": 1.0,
                    "answer_relevancy": 0.9,
                },
            ),
        ]
    )


def test_markdown_has_summary_diagnosis_failures_and_escapes_user_text():
    text = render_markdown(ReportInputs(_run()))
    assert "| faithfulness | generation | 0.767 |" in text
    assert "### Diagnosis" in text
    assert "Failed cases (2 case × metric under its pass mark)" in text
    assert "contradicted: «Refunds take 30 days.»" in text
    assert re.search(r"(?<!\\)<(script|img)", text) is None  # only backslash-escaped
    assert "\\<script\\>" in text
    assert md_escape("a|b <i>") == "a\\|b \\<i\\>"


def test_markdown_comparison_with_baseline():
    base = uniform_run(20, {"context_recall": 0.9})
    new = uniform_run(20, {"context_recall": [0.9 - 0.3 * (i % 2) for i in range(20)]})
    text = render_markdown(report_inputs(new, base))
    assert "### Compared with the baseline" in text
    assert "| context_recall | 20 | 0.900 | 0.750 | -0.150 🔻 |" in text
    assert "Regressed cases (10), worst first" in text


def test_junit_one_testcase_per_case_and_metric():
    root = ET.fromstring(render_junit(ReportInputs(_run())))
    assert root.get("tests") == "12"
    assert root.get("failures") == "2"  # a: faithfulness 0.4 < 0.7; b: recall 0.2 < 0.5
    assert root.get("skipped") == "1"
    faith = root.find("testsuite[@name='ragmeter.faithfulness']")
    failure = faith.find("testcase[@name='a']/failure")
    assert "0.400 < pass mark 0.70" in failure.get("message")
    assert "Refunds take 30 days." in failure.text
    skipped = root.find("testsuite[@name='ragmeter.context_precision']/testcase[@name='b']/skipped")
    assert skipped.get("message") == "unscored: no chunks retrieved"


def test_json_report_is_the_summary_dict_plus_diagnosis():
    r = _run()
    data = json.loads(render_json(ReportInputs(r)))
    assert data["summary"] == json.loads(json.dumps(r.summary_dict()))
    assert data["diagnosis"]["headline"] == r.diagnosis.headline
    assert set(data["by_category"]) == {"normal", "typo"}


def test_html_is_self_contained_and_embeds_user_text_safely():
    page = render_html(ReportInputs(_run()))
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in page
    data_block = page.split('id="ragmeter-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in data_block and ">" not in data_block
    assert json.loads(data_block)["cases"][0]["contexts"][0] == EVIL
    assert EVIL not in page
    assert page.count("<script") == 3  # error trap, JSON data, report script
    assert json_for_script("</script>") == '"\\u003c/script\\u003e"'
    assert "<svg" in page and "Mean per category" in page


def _judged_run(kind: str, *, strengths: bool = True):
    """A failing claim, reference point and chunk, with the numbers `kind`'s judge gives them
    (None everywhere without `strengths`, as from an endpoint without log-probabilities)."""
    failing = case(
        "s",
        {"faithfulness": 0.2, "context_recall": 0.2, "context_precision": 0.3},
        claims=[("Refunds take 30 days.", "contradicted"), ("It is free.", "supported")],
    )
    evidence = {m: failing.metrics[m].evidence for m in failing.metrics}
    if strengths:
        evidence["faithfulness"].claims[0].confidence = 0.034
        evidence["faithfulness"].claims[1].confidence = 0.91
        evidence["context_recall"].points[0].confidence = 0.12
        evidence["context_precision"].chunks[1].score = 0.08
    return run([failing], judge_fp=judge(kind, "m"))


def _html_detail_data(page: str) -> dict:
    return json.loads(page.split('id="ragmeter-data">', 1)[1].split("</script>", 1)[0])


LLM_LINES = (
    "contradicted (P(supported) 0.03): «Refunds take 30 days.»",
    "missing from contexts (P(supported) 0.12): «the main fact»",
    "chunk 2 not useful (P(useful) 0.08) «second chunk»",
)


def test_llm_verdict_probabilities_shown_with_failed_case_evidence():
    for kind in ("openai", "llama"):
        r = _judged_run(kind)
        text = render_text(ReportInputs(r), width=200)
        markdown = render_markdown(ReportInputs(r)).replace("\\", "")
        junit = ET.fromstring(render_junit(ReportInputs(r)))
        failures = "\n".join(f.text for f in junit.iter("failure"))
        for line in LLM_LINES:
            assert line in text and line in markdown and line in failures, (kind, line)
        assert "0.91" not in text  # supported claims are no failure
        data = _html_detail_data(render_html(ReportInputs(r)))
        assert data["strength"] == {
            "claim": "P(supported)",
            "point": "P(supported)",
            "chunk": "P(useful)",
        }
        evidence = data["cases"][0]["evidence"]
        assert [c["confidence"] for c in evidence["faithfulness"]["claims"]] == [0.034, 0.91]
        assert evidence["context_recall"]["points"][0]["confidence"] == 0.12
        assert [c["score"] for c in evidence["context_precision"]["chunks"]] == [None, 0.08]


def test_verdicts_without_probabilities_show_no_number():
    r = _judged_run("openai", strengths=False)
    text = render_text(ReportInputs(r), width=200)
    markdown = render_markdown(ReportInputs(r)).replace("\\", "")
    failures = "\n".join(
        f.text for f in ET.fromstring(render_junit(ReportInputs(r))).iter("failure")
    )
    for out in (text, markdown, failures):
        assert "contradicted: «Refunds take 30 days.»" in out
        assert "missing from contexts: «the main fact»" in out
        assert "chunk 2 not useful «second chunk»" in out
        assert "P(" not in out
    evidence = _html_detail_data(render_html(ReportInputs(r)))["cases"][0]["evidence"]
    assert {c["confidence"] for c in evidence["faithfulness"]["claims"]} == {None}
    assert evidence["context_recall"]["points"][0]["confidence"] is None


def test_local_judge_numbers_named_as_support_scores_not_probabilities():
    r = _judged_run("local")
    text = render_text(ReportInputs(r), width=200)
    markdown = render_markdown(ReportInputs(r)).replace("\\", "")
    for out in (text, markdown):
        assert "contradicted (support 0.03): «Refunds take 30 days.»" in out
        assert "chunk 2 not useful (usefulness 0.08) «second chunk»" in out
        assert "P(" not in out
    assert _html_detail_data(render_html(ReportInputs(r)))["strength"] == {
        "claim": "support",
        "point": "support",
        "chunk": "usefulness",
    }
    assert explain(r.cases[0], "faithfulness")[0].startswith("contradicted: ")  # judge unknown


def test_reports_of_a_large_run_show_the_worst_few_and_count_the_rest(monkeypatch):
    """3,000 cases, 2,400 failing faithfulness, 600 categories: every report shows the worst
    few, says how many more there are, and explains only those it shows."""
    import ragmeter.report.failures as failures_module
    from ragmeter.report.terminal import MAX_CATEGORIES

    cases = []
    for i in range(3000):
        score = 0.9 if i % 5 == 0 else 0.001 * (i % 600)  # 2,400 below the 0.7 threshold
        reason = f"pipeline error: KeyError: 'doc-{i}'"  # a different message for each case
        cases.append(
            case(
                f"c{i:04d}",
                {"faithfulness": score, "answer_relevancy": reason if i % 7 == 0 else 0.9},
                category=f"cat{i % 600}",
                claims=[("Refunds take 30 days.", "contradicted")],
            )
        )
    big = run(cases)
    explained = 0
    real_explain = failures_module.explain

    def counting_explain(*args, **kwargs):
        nonlocal explained
        explained += 1
        return real_explain(*args, **kwargs)

    monkeypatch.setattr(failures_module, "explain", counting_explain)
    text = render_text(ReportInputs(big))
    assert "Failed cases: 2400 (case × metric under its pass mark), worst first" in text
    assert "… 2390 more; see results.json or --limit" in text
    worst = ["c0001", "c0601", "c1201", "c1801", "c2401"]  # scored 0.001, the lowest
    assert [text.index(f"faithfulness < pass mark 0.70  {cid} ") for cid in worst] == sorted(
        text.index(f"faithfulness < pass mark 0.70  {cid} ") for cid in worst
    )
    assert f"… {600 - MAX_CATEGORIES} more categories" in text
    assert "pipeline error: 424 other causes" in text  # 429 distinct messages: 5 + the rest
    assert explained == 10
    md = render_markdown(ReportInputs(big, max_failures=5))
    assert "### Failed cases (2400 case × metric under its pass mark)" in md
    assert "- … 2395 more in the full report" in md
    shown = re.findall(r"- \*\*0\.00\*\* faithfulness < pass mark 0\.70 · `(c\d+)`", md)
    assert shown == worst
    assert explained == 15
    html = render_html(ReportInputs(big), max_cases=100)
    data = json.loads(
        re.search(r'id="ragmeter-data">(.*?)</script>', html, re.S).group(1)  # type: ignore[union-attr]
    )
    held = [c["id"] for c in data["cases"]]
    assert len(held) == 100 and held == sorted(held)  # eval-set order
    assert all(c["failing"] for c in data["cases"])  # the worst: all failing
    lowest = sorted(c.score("faithfulness") for c in cases)[:100]
    assert sorted(c["scores"]["faithfulness"] for c in data["cases"]) == lowest
    assert "The case list holds the 100 worst of 3,000 cases" in html
    assert "holds the" not in render_html(ReportInputs(run(cases[:50])))  # a small run: every case


def _rejudged_run():
    """Re-judged cases whose first judgement and mean disagree: a passes first then fails on
    the mean (0.9 → 0.5), b the reverse (0.4 → 0.8), c is first unscored then scored twice."""
    return run(
        [
            case("a", {"faithfulness": 0.9}, repeats={"faithfulness": [0.9, 0.3, 0.3]}),
            case("b", {"faithfulness": 0.4}, repeats={"faithfulness": [0.4, 1.0, 1.0]}),
            case(
                "c",
                {"faithfulness": "judge error: boom"},
                repeats={"faithfulness": [None, 0.9, 0.8]},
            ),
        ]
    )


def test_junit_counts_rejudged_cases_with_their_mean_as_the_summary_does():
    r = _rejudged_run()
    summary = r.summary.metrics["faithfulness"]
    assert (summary.n_failed, summary.n_unscored) == (1, 0)
    root = ET.fromstring(render_junit(ReportInputs(r)))
    assert (root.get("failures"), root.get("skipped")) == ("1", "0")
    suite = root.find("testsuite[@name='ragmeter.faithfulness']")
    assert [t.get("name") for t in suite.iter("testcase") if t.find("failure") is not None] == ["a"]
    assert "0.500 < pass mark 0.70" in suite.find("testcase[@name='a']/failure").get("message")
    assert suite.find("testcase[@name='c']/system-out").text == "faithfulness 0.850"


def test_html_case_table_and_its_failing_filter_use_the_mean_of_repeats():
    r = _rejudged_run()
    data = _html_detail_data(render_html(ReportInputs(r)))
    by_id = {c["id"]: c for c in data["cases"]}
    assert by_id["a"]["scores"]["faithfulness"] == pytest.approx(0.5)
    assert [cid for cid, c in by_id.items() if c["failing"]] == ["a"]
    assert "faithfulness" not in by_id["c"]["unscored"]
    assert by_id["c"]["scores"]["faithfulness"] == pytest.approx(0.85)
    worst = _html_detail_data(render_html(ReportInputs(r), max_cases=1))
    assert [c["id"] for c in worst["cases"]] == ["a"]  # the worst by the mean, not b
