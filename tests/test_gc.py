"""The collector's setting while a run judges (`ragmeter.run._gc`)."""

import gc

import pytest

from ragmeter.cases import Case
from ragmeter.judges.base import METRICS
from ragmeter.run._gc import RUN_THRESHOLD, fewer_collections
from ragmeter.run._runner import evaluate
from test_runner import CountingJudge, EchoPipeline


@pytest.fixture(autouse=True)
def _default_collector():
    before, enabled = gc.get_threshold(), gc.isenabled()
    gc.set_threshold(700, 10, 10)
    gc.enable()
    yield
    gc.set_threshold(*before)
    if not enabled:
        gc.disable()


def test_a_block_raises_the_first_threshold_and_restores_the_setting():
    with fewer_collections():
        assert gc.get_threshold() == (RUN_THRESHOLD, 10, 10)
    assert gc.get_threshold() == (700, 10, 10)


def test_nested_blocks_restore_only_when_the_last_one_ends():
    with fewer_collections():
        with fewer_collections():
            pass
        assert gc.get_threshold()[0] == RUN_THRESHOLD
    assert gc.get_threshold() == (700, 10, 10)


def test_the_setting_is_restored_when_the_block_raises():
    with pytest.raises(KeyError), fewer_collections():
        raise KeyError("x")
    assert gc.get_threshold() == (700, 10, 10)


def test_a_higher_threshold_or_a_collector_turned_off_is_left_alone():
    gc.set_threshold(50_000, 5, 5)
    with fewer_collections():
        assert gc.get_threshold() == (50_000, 5, 5)
    gc.set_threshold(700, 10, 10)
    gc.disable()
    with fewer_collections():
        assert gc.get_threshold() == (700, 10, 10)
    assert gc.get_threshold() == (700, 10, 10)


class ThresholdJudge(CountingJudge):
    """Notes the collector's first threshold whenever it judges."""

    def __init__(self):
        super().__init__()
        self.thresholds: list[int] = []

    async def judge(self, sample, metrics=METRICS):
        self.thresholds.append(gc.get_threshold()[0])
        return await super().judge(sample, metrics)


def test_a_run_judges_under_the_raised_threshold_and_gives_it_back():
    judge = ThresholdJudge()
    cases = [Case(id=f"c{i}", question=f"question {i}?", ground_truth="gt") for i in range(5)]
    run = evaluate(cases, EchoPipeline(), judge)
    assert len(run.cases) == 5
    assert judge.thresholds == [RUN_THRESHOLD] * 5
    assert gc.get_threshold() == (700, 10, 10)
