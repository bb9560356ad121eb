import json
import re
import xml.etree.ElementTree as ET

from factories import case, run, uniform_run
from ragmeter.report.html import json_for_script, render_html
from ragmeter.report.json_report import render_json
from ragmeter.report.junit import render_junit
from ragmeter.report.markdown import md_escape, render_markdown

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
    text = render_markdown(_run())
    assert "| faithfulness | generation | 0.767 |" in text
    assert "### Diagnosis" in text
    assert "Failed cases (2 case × metric below threshold)" in text
    assert "contradicted: «Refunds take 30 days.»" in text
    assert re.search(r"(?<!\\)<(script|img)", text) is None  # only backslash-escaped
    assert "\\<script\\>" in text
    assert md_escape("a|b <i>") == "a\\|b \\<i\\>"


def test_markdown_comparison_with_baseline():
    base = uniform_run(20, {"context_recall": 0.9})
    new = uniform_run(20, {"context_recall": [0.9 - 0.3 * (i % 2) for i in range(20)]})
    text = render_markdown(new, baseline=base)
    assert "### Compared with the baseline" in text
    assert "| context_recall | 20 | 0.900 | 0.750 | -0.150 🔻 |" in text
    assert "Regressed cases (10), worst first" in text


def test_junit_one_testcase_per_case_and_metric():
    root = ET.fromstring(render_junit(_run()))
    assert root.get("tests") == "12"
    assert root.get("failures") == "2"  # a: faithfulness 0.4 < 0.7; b: recall 0.2 < 0.5
    assert root.get("skipped") == "1"
    faith = root.find("testsuite[@name='ragmeter.faithfulness']")
    failure = faith.find("testcase[@name='a']/failure")
    assert "0.400 < threshold 0.70" in failure.get("message")
    assert "Refunds take 30 days." in failure.text
    skipped = root.find("testsuite[@name='ragmeter.context_precision']/testcase[@name='b']/skipped")
    assert skipped.get("message") == "unscored: no chunks retrieved"


def test_json_report_is_the_summary_dict_plus_diagnosis():
    r = _run()
    data = json.loads(render_json(r))
    assert data["summary"] == json.loads(json.dumps(r.summary_dict()))
    assert data["diagnosis"]["headline"] == r.diagnosis.headline
    assert set(data["by_category"]) == {"normal", "typo"}


def test_html_is_self_contained_and_embeds_user_text_safely():
    page = render_html(_run())
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in page
    data_block = page.split('id="ragmeter-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in data_block and ">" not in data_block
    assert json.loads(data_block)["cases"][0]["contexts"][0] == EVIL
    assert EVIL not in page
    assert page.count("<script") == 3  # error trap, JSON data, report script
    assert json_for_script("</script>") == '"\\u003c/script\\u003e"'
    assert "<svg" in page and "Mean per category" in page
