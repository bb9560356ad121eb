from __future__ import annotations

from collections.abc import Callable

import pytest

from ragmeter.judges.base import MetricResult, Sample
from ragmeter.judges.local import LocalJudge, average_precision

Make = Callable[..., Sample]
REFUND = "Refunds are processed within 14 days of the request."
OFFICE = "Our office is open Monday to Friday, 9am to 5pm."
EXCHANGE = "Exchanges are free of charge if items are unused."


def retrieval(judge: LocalJudge, sample: Sample) -> dict[str, MetricResult]:
    return dict(judge.judge_sync(sample, ("context_recall", "context_precision")))


def test_average_precision() -> None:
    assert average_precision([True, False, True]) == pytest.approx((1 / 1 + 2 / 3) / 2)
    assert average_precision([False, True]) == pytest.approx(0.5)
    assert average_precision([False, False]) == 0.0
    assert average_precision([]) == 0.0


@pytest.mark.parametrize(
    ("lang", "ground_truth", "contexts"),
    [
        (
            "en",
            "Refunds are processed within 14 days. Exchanges are free of charge.",
            [REFUND, OFFICE, EXCHANGE],
        ),
        (
            "zh",
            "退款会在申请后14天内处理完毕。换货免费。",
            [
                "退款会在申请后14天内处理完毕。",
                "食堂中午供应午餐。",
                "换货免费，但商品必须未使用。",
            ],
        ),
    ],
)
def test_precision_useful_useless_useful(
    judge: LocalJudge, make: Make, lang: str, ground_truth: str, contexts: list[str]
) -> None:
    sample = make(lang, "", ground_truth=ground_truth, contexts=contexts)
    result = retrieval(judge, sample)["context_precision"]
    assert [c.useful for c in result.evidence.chunks] == [True, False, True]
    assert result.score == pytest.approx((1 / 1 + 2 / 3) / 2)
    assert all(c.reason and c.preview for c in result.evidence.chunks)


def test_precision_useless_first_ranks_lower(judge: LocalJudge, make: Make) -> None:
    good = retrieval(judge, make("en", "", contexts=[REFUND, OFFICE]))["context_precision"]
    bad = retrieval(judge, make("en", "", contexts=[OFFICE, REFUND]))["context_precision"]
    assert good.score == 1.0
    assert bad.score == 0.5


@pytest.mark.parametrize(
    ("lang", "ground_truth", "contexts"),
    [
        (
            "en",
            "Refunds are processed within 14 days. Parking is free for all employees.",
            [OFFICE, REFUND],
        ),
        (
            "zh",
            "退款会在申请后14天内处理完毕。员工停车免费。",
            ["办公室周一至周五开放。", "退款会在申请后14天内处理完毕。"],
        ),
    ],
)
def test_recall_half_covered(
    judge: LocalJudge, make: Make, lang: str, ground_truth: str, contexts: list[str]
) -> None:
    sample = make(lang, "", ground_truth=ground_truth, contexts=contexts)
    result = retrieval(judge, sample)["context_recall"]
    assert result.score == 0.5
    supported = [p for p in result.evidence.points if p.supported]
    assert len(supported) == 1 and supported[0].chunk_index == 1
    assert supported[0].evidence in contexts[1]


def test_recall_requires_matching_numbers(judge: LocalJudge, make: Make) -> None:
    sample = make("en", "", ground_truth="Refunds are processed within 30 days.", contexts=[REFUND])
    assert retrieval(judge, sample)["context_recall"].score == 0.0


@pytest.mark.parametrize("metric", ["context_recall", "context_precision"])
def test_unscored_rules(judge: LocalJudge, make: Make, metric: str) -> None:
    no_truth = retrieval(judge, make("en", "", ground_truth=" "))[metric]
    assert no_truth.unscored_reason == "no ground truth"
    oos = retrieval(judge, make("en", "", category="out_of_scope"))[metric]
    assert oos.unscored_reason == "not applicable: out-of-scope case"
    empty = retrieval(judge, make("en", "", contexts=[]))[metric]
    assert empty.score == 0.0
    assert "no contexts were retrieved" in empty.evidence.notes
