"""A failed case's first line of evidence, in every report, is what pulled it under its pass
mark and why, as the judge recorded it: never a bare "supported"."""

from __future__ import annotations

import json

from factories import case, judge, run
from ragmeter.api import evaluate
from ragmeter.report.html import render_html
from ragmeter.report.inputs import ReportInputs
from ragmeter.report.json_report import render_json
from ragmeter.report.markdown import render_markdown
from ragmeter.report.terminal import render_text
from ragmeter.results.explain import explain

REASON = (
    "the passage covers 60% of its key words (similarity 0.58); key words 'original', 'card' "
    "not found in any chunk"
)
LEAD = (
    "claim «Refunds go back to the original card.» has support 0.61, under the 0.70 pass mark: "
    + REASON
)


def _one_weak_claim():
    """The issue's case: faithfulness 0.61 (pass mark 0.70) whose only claim is supported with
    support 0.61."""
    weak = case(
        "w",
        {"faithfulness": 0.61},
        claims=[("Refunds go back to the original card.", "supported")],
        answer="Refunds go back to the original card.",
    )
    claim = weak.metrics["faithfulness"].evidence.claims[0]
    claim.confidence, claim.reason = 0.61, REASON
    return run([weak], judge_fp=judge("local", "m"))


def _first_bullet(text: str, bullet: str) -> str:
    lines = [line for line in text.splitlines() if line.startswith(bullet)]
    lines = [line for line in lines if not line.startswith(bullet + "answer:")]
    return lines[0][len(bullet) :]


def test_every_report_leads_a_failure_with_what_pulled_it_under_the_pass_mark():
    result = _one_weak_claim()
    terminal = render_text(ReportInputs(result), width=400)
    assert "0.61  faithfulness < pass mark 0.70  w [normal, en]" in terminal
    assert _first_bullet(terminal, "    • ") == LEAD
    markdown = render_markdown(ReportInputs(result)).replace("\\", "")
    assert "**0.61** faithfulness < pass mark 0.70 · `w`" in markdown
    failed_section = markdown.split("### Failed cases", 1)[1]
    assert _first_bullet(failed_section, "  - ") == LEAD
    failures = json.loads(render_json(ReportInputs(result)))["failures"]
    assert failures["total"] == 1
    assert failures["shown"][0] == {
        "case_id": "w",
        "metric": "faithfulness",
        "score": 0.61,
        "pass_mark": 0.7,
        "indicative_only": False,
        "why": [LEAD],
    }
    page = render_html(ReportInputs(result))
    data = json.loads(page.split('id="ragmeter-data">', 1)[1].split("</script>", 1)[0])
    assert data["cases"][0]["why"] == {"faithfulness": LEAD}
    assert "pass mark" in page  # the case's metric table names the column so


def test_the_lead_names_the_missing_point_and_the_useless_chunk_ranked_first():
    failing = case("r", {"context_recall": 0.0, "context_precision": 0.5})
    chunks = failing.metrics["context_precision"].evidence.chunks
    chunks[0].useful, chunks[1].useful = False, True  # the useless chunk ranked first
    chunks[0].reason = "covers 10% of the reference answer's key words"
    failing.metrics["context_recall"].evidence.points[0].reason = "no chunk mentions refunds"
    result = run([failing], judge_fp=judge("local", "m"))
    recall = explain(failing, "context_recall", result.judge, pass_mark=0.5)
    assert recall == ["missing from contexts: «the main fact»: no chunk mentions refunds"]
    precision = explain(failing, "context_precision", result.judge, pass_mark=0.6)
    assert precision == [
        "chunk 1 not useful «first chunk»: covers 10% of the reference answer's key words "
        "(ranked above useful chunk 2)"
    ]
    # Above its pass mark, no lead line: the evidence as before.
    assert explain(failing, "context_precision", result.judge, pass_mark=0.4) == [
        "chunk 1 not useful «first chunk»: covers 10% of the reference answer's key words"
    ]


def test_the_local_judge_records_which_key_words_no_chunk_holds_in_english_and_chinese():
    rows = [
        {
            "id": "en",
            "question": "How long do refunds take?",
            "ground_truth": "Refunds are issued within 14 days.",
            "contexts": ["Refunds are issued within 14 days.", "Shipping is free over 50 dollars."],
            "answer": "Refunds are issued within 14 days to the original payment card by the "
            "billing team.",
        },
        {
            "id": "zh",
            "question": "退款需要多久？",
            "ground_truth": "退款在14天内处理完毕。",
            "contexts": ["退款在14天内处理完毕。", "运费满50元免费。"],
            "answer": "退款在14天内由财务部门退回原支付卡。",
        },
    ]
    result = evaluate(rows, metrics="faithfulness", thresholds={"faithfulness": 0.8})
    en, zh = result.cases
    lead = explain(en, "faithfulness", result.judge, pass_mark=0.8)[0]
    assert lead.startswith("claim «Refunds are issued within 14 days to the original payment")
    assert "has support 0.7" in lead and "under the 0.80 pass mark: the passage covers" in lead
    assert "key words 'original', 'payment', 'card', 'billing' and 1 more not found in any " in lead
    lead = explain(zh, "faithfulness", result.judge, pass_mark=0.8)[0]
    assert lead.startswith("not verifiable (support 0.2")
    assert "key words '财务部门', '退回', '支付卡' not found in any chunk" in lead


def test_relevancy_leads_with_what_the_answer_answers_and_the_judges_notes():
    failing = case("q", {"answer_relevancy": 0.2})
    evidence = failing.metrics["answer_relevancy"].evidence
    evidence.generated_questions = ["What does the Pro plan cost?", "Is there a free trial?"]
    evidence.notes = ["answer is evasive or noncommittal", "similarities: 0.210, 0.190"]
    result = run([failing], judge_fp=judge("openai", "m"))
    assert explain(failing, "answer_relevancy", result.judge, pass_mark=0.5) == [
        "the answer reads as answering «What does the Pro plan cost?»; answer is evasive or "
        "noncommittal; similarities: 0.210, 0.190"
    ]
