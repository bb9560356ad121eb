"""Refusal detection on free wording, measured on refusals and answers written for the test.

`data/refusals.jsonl` was written before the detector and used while building it;
`data/refusals_holdout.jsonl` was written after it, to see how it does on wording it was
not built on. Both hold hard non-refusals (negated facts, sources that report a fact) and
partial answers, which are not refusals.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragmeter.judges.base import Sample
from ragmeter.judges.local import LocalJudge, is_refusal

DATA = Path(__file__).parent / "data"


def _rows(name: str) -> list[dict[str, object]]:
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def detection(rows: list[dict[str, object]]) -> tuple[float, float]:
    """Precision and recall of `is_refusal` on labelled rows."""
    found = [is_refusal(str(r["text"]), r["lang"]) for r in rows]  # type: ignore[arg-type]
    truth = [bool(r["refusal"]) for r in rows]
    hits = sum(f and t for f, t in zip(found, truth, strict=True))
    return hits / max(1, sum(found)), hits / max(1, sum(truth))


def test_the_sets_are_balanced_and_bilingual() -> None:
    rows = _rows("refusals.jsonl")
    for lang in ("en", "zh"):
        for label in (True, False):
            assert sum(r["lang"] == lang and r["refusal"] is label for r in rows) >= 20
    kinds = {r["kind"] for r in rows if not r["refusal"]}
    assert {"hard", "partial", "answer"} <= kinds


@pytest.mark.parametrize(
    ("name", "min_precision", "min_recall"),
    [("refusals.jsonl", 0.97, 0.95), ("refusals_holdout.jsonl", 0.9, 0.75)],
)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_refusals_are_recognised_in_free_wording(
    name: str, min_precision: float, min_recall: float, lang: str
) -> None:
    rows = [r for r in _rows(name) if r["lang"] == lang]
    precision, recall = detection(rows)
    assert precision >= min_precision
    assert recall >= min_recall


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "The Pro plan is not available for schools."),
        ("en", "The handbook says exports do not include comments."),
        ("en", "No information is shared with third parties without consent."),
        ("en", "We do not provide refunds for annual plans."),
        ("zh", "专业版不对学校开放。"),
        ("zh", "导出的文件不包含评论和版本历史。"),
        ("zh", "我们无法提供数字商品的退款。"),
    ],
)
def test_negated_facts_are_not_refusals(lang: str, text: str) -> None:
    assert not is_refusal(text, lang)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "I couldn't find the Team plan's limit; the Pro plan includes 100 GB per member."),
        ("zh", "团队版的存储上限我没查到，专业版每位成员有 100 GB。"),
    ],
)
def test_a_partial_answer_keeps_its_claim(lang: str, text: str) -> None:
    assert not is_refusal(text, lang)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("lang", "answer"),
    [
        ("en", "That isn't covered in the documentation I have access to."),
        ("zh", "我没能在手册里查到相关内容。"),
    ],
)
def test_an_out_of_scope_refusal_in_free_wording_abstains(
    judge: LocalJudge, lang: str, answer: str
) -> None:
    sample = Sample(
        case_id="oos",
        lang=lang,  # type: ignore[arg-type]
        question="Who won the 2018 World Cup?" if lang == "en" else "2018年世界杯冠军是谁？",
        ground_truth="",
        contexts=["Refunds are processed within 14 days of the request."],
        answer=answer,
        category="out_of_scope",
    )
    result = judge.judge_sync(sample, ("answer_relevancy", "faithfulness"))
    assert result["answer_relevancy"].score == 1.0
    assert result["answer_relevancy"].evidence.abstained is True
    assert result["faithfulness"].unscored_reason is not None
