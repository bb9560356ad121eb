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
    assert (empty.score, empty.reason_code) == (0.0, "no_contexts")
    assert "no contexts were retrieved" in empty.evidence.notes
    assert not empty.evidence.points  # recall listed every point unsupported; the LLM judge none
    codes = {no_truth.reason_code, oos.reason_code}
    assert codes == {"no_ground_truth", "out_of_scope"}


BACKUPS = (
    "Nimbus Notes takes an encrypted snapshot of all customer data every 4 hours. "
    "Backup snapshots are kept for 35 days and are then deleted automatically.\n\n"
    "Backups are encrypted with AES-256 and are stored in a second data center in the same "
    "region as the workspace, so backups never leave the region the customer chose."
)


def test_recall_reads_each_clause_against_its_own_sentence(judge: LocalJudge, make: Make) -> None:
    """A point whose two clauses rest on the two sentences of one window: each number is
    checked against the sentence its clause matches (not '35 where the context says 4')."""
    sample = make(
        "en",
        "",
        ground_truth="Nimbus Notes takes an encrypted snapshot of all customer data every 4 hours, "
        "and backup snapshots are kept for 35 days.",
        contexts=[BACKUPS, OFFICE],
    )
    recall = retrieval(judge, sample)["context_recall"]
    assert recall.score == 1.0, recall.evidence.points[0].reason


def test_recall_still_catches_a_changed_number_in_a_two_sentence_window(
    judge: LocalJudge, make: Make
) -> None:
    sample = make(
        "en",
        "",
        ground_truth="Nimbus Notes takes an encrypted snapshot of all customer data every 4 hours, "
        "and backup snapshots are kept for 30 days.",
        contexts=[BACKUPS, OFFICE],
    )
    (point,) = retrieval(judge, sample)["context_recall"].evidence.points
    assert not point.supported
    assert "30" in point.reason


@pytest.mark.parametrize(
    ("lang", "ground_truth", "contexts"),
    [
        (
            "en",
            "No. Templates can be created only in the web and desktop apps.",
            ["Templates can be created only in the web and desktop apps.", OFFICE],
        ),
        (
            "zh",
            "不能。客服无法从备份中恢复单篇笔记。",
            ["备份只用于灾难恢复。客服无法从备份中恢复单篇笔记。", "食堂中午供应午餐。"],
        ),
    ],
)
def test_a_bare_no_opening_the_reference_is_not_a_point_nor_a_negation(
    judge: LocalJudge, make: Make, lang: str, ground_truth: str, contexts: list[str]
) -> None:
    sample = make(lang, "", ground_truth=ground_truth, contexts=contexts)
    recall = retrieval(judge, sample)["context_recall"]
    assert len(recall.evidence.points) == 1
    assert recall.score == 1.0, recall.evidence.points[0].reason
