"""CaseSpool: judged cases on disk, read back in eval-set order."""

from __future__ import annotations

import pytest

import ragmeter
from ragmeter._exceptions import JudgeUnavailable
from ragmeter.api import run_and_save
from ragmeter.cases import Case
from ragmeter.config import Settings
from ragmeter.judges.base import JudgeFingerprint, MetricResult
from ragmeter.judges.local import LocalJudge
from ragmeter.pipeline import PrecomputedPipeline
from ragmeter.results import PARTIAL_FILE, CaseResult, load_run
from ragmeter.results.spool import CaseSpool


def _case(i: int) -> CaseResult:
    return CaseResult(
        id=f"c{i}",
        question=f"问题 {i}?\nsecond line",
        contexts=[f"context {i}", "}"],
        metrics={
            "faithfulness": MetricResult(metric="faithfulness", score=i / 10),
            "context_recall": MetricResult.unscored("context_recall", "no ground truth"),
        },
    )


def test_cases_put_in_any_order_read_back_in_order(tmp_path):
    spool = CaseSpool(4, directory=tmp_path)
    assert not spool.complete
    for i in (2, 0, 3, 1):
        spool.put(i, _case(i))
    assert spool.complete and len(spool) == 4
    assert list(spool) == [_case(i) for i in range(4)]
    assert spool[-1] == _case(3) and spool[1:3] == [_case(1), _case(2)]
    assert spool == [_case(i) for i in range(4)] and spool != [_case(0)]
    assert list(tmp_path.iterdir()) == []  # the file has no name: nothing left behind
    spool.close()


def test_the_journal_holds_each_case_as_it_is_put_until_discarded(tmp_path):
    journal = tmp_path / PARTIAL_FILE
    spool = CaseSpool(3, directory=tmp_path, journal=journal)
    for i in (2, 0):
        spool.put(i, _case(i))
    # On disk already, not in a buffer: a process ended by os._exit or SIGKILL keeps them.
    assert [CaseResult.model_validate_json(line) for line in journal.read_bytes().splitlines()] == [
        _case(2),
        _case(0),
    ]
    spool.discard_journal()
    assert not journal.exists()
    spool.put(1, _case(1))  # the run's own copy goes on
    assert list(spool) == [_case(i) for i in range(3)] and not journal.exists()
    spool.close()


def test_a_run_that_stops_leaves_no_journal(tmp_path):
    class Unavailable:
        name = "unavailable"

        def fingerprint(self) -> JudgeFingerprint:
            return JudgeFingerprint(kind="unavailable", model="none", prompt_version="1")

        async def judge(self, sample, metrics):
            raise JudgeUnavailable("the judge refused the key")

    with pytest.raises(JudgeUnavailable):
        run_and_save(
            CASES, PrecomputedPipeline(), Settings(), out_dir=tmp_path, judge=Unavailable()
        )
    assert list(tmp_path.iterdir()) == []


def test_a_position_not_yet_judged_or_out_of_range_is_named(tmp_path):
    spool = CaseSpool(2, directory=tmp_path)
    spool.put(1, _case(1))
    with pytest.raises(IndexError, match="case 0 has not been judged yet"):
        spool[0]
    with pytest.raises(IndexError, match="case 2 of 2: out of range"):
        spool[2]


CASES = [
    Case(
        id=f"q{i}",
        question=question,
        ground_truth=truth,
        contexts=[truth, "Unrelated text about the weather."],
        answer=answer,
    )
    for i, (question, truth, answer) in enumerate(
        [
            ("How long is the warranty?", "The warranty lasts two years.", "Two years."),
            ("退款要多久？", "退款在五个工作日内到账。", "五个工作日内到账。"),
            ("Who signs the form?", "The manager signs the form.", "The intern signs it."),
            ("What colour is the logo?", "The logo is green.", ""),
        ]
        * 3
    )
]


def test_a_spooled_run_equals_the_same_run_in_memory(tmp_path):
    in_memory = ragmeter.evaluate(CASES, PrecomputedPipeline(), LocalJudge())  # the same door
    spooled = run_and_save(
        CASES, PrecomputedPipeline(), Settings(), out_dir=tmp_path, judge=LocalJudge()
    )
    assert isinstance(spooled.cases, CaseSpool)
    assert list(spooled.cases) == [
        c.model_copy(update={"pipeline_seconds": s.pipeline_seconds})
        for c, s in zip(in_memory.cases, spooled.cases, strict=True)
    ]
    assert spooled.summary == in_memory.summary
    assert spooled.diagnosis == in_memory.diagnosis
    assert load_run(tmp_path) == spooled  # results.json holds every spooled case
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]
