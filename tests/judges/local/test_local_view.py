"""The local judge judges a sample in the language it was given (the runner gives every sample
`cases.case_lang`'s), and detects one only when none was given, as `case_lang` does."""

from __future__ import annotations

import pytest

from ragmeter.cases import Case, case_lang
from ragmeter.judges.base import Sample
from ragmeter.judges.local.settings import LocalSettings
from ragmeter.judges.local.vectors import EmbeddingStore
from ragmeter.judges.local.view import build_view
from ragmeter.run import build_sample

ZH_QUESTION = "退款需要多久处理？"
ZH_TRUTH = "退款会在申请后14天内处理完毕。"
EN_QUESTION = "How long do refunds take?"
EN_TRUTH = "Within 14 days."


def _lang(sample: Sample) -> str:
    return build_view(sample, ("faithfulness",), LocalSettings(), EmbeddingStore(None)).lang


@pytest.mark.parametrize(
    ("question", "truth", "answer", "forced"),
    [
        (EN_QUESTION, EN_TRUTH, "退款会在申请后十四天内处理完毕，请耐心等待。", None),  # zh answer
        (ZH_QUESTION, ZH_TRUTH, ZH_TRUTH, "en"),  # --lang en
        (EN_QUESTION, EN_TRUTH, "Within 14 days.", "zh"),  # --lang zh
    ],
    ids=["detected-en-with-a-chinese-answer", "forced-en", "forced-zh"],
)
def test_the_local_judge_judges_in_the_language_the_runner_gave(question, truth, answer, forced):
    case = Case(id="c", question=question, ground_truth=truth)
    lang = case_lang(case, forced)
    sample = build_sample(case, ["退款会在14天内处理。"], answer, lang)
    assert _lang(sample) == lang


@pytest.mark.parametrize(
    ("question", "truth", "answer"),
    [
        (ZH_QUESTION, ZH_TRUTH, ZH_TRUTH),
        (EN_QUESTION, EN_TRUTH, "退款会在申请后十四天内处理完毕，请耐心等待。"),
    ],
    ids=["zh", "en-with-a-chinese-answer"],
)
def test_a_sample_without_a_language_is_detected_as_case_lang_detects_it(question, truth, answer):
    sample = Sample(case_id="c", question=question, ground_truth=truth, answer=answer)
    expected = case_lang(Case(id="c", question=question, ground_truth=truth))
    assert sample.lang == expected == _lang(sample)
