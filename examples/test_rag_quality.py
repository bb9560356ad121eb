"""A team's "RAG quality must not regress" test, run against the bundled demo pipeline.

    pytest examples/test_rag_quality.py                      # means and floors only
    ragmeter baseline <results dir> --to examples/baseline.json
    pytest examples/test_rag_quality.py --ragmeter-baseline examples/baseline.json

With your own pipeline, drop the `ragmeter_options` override below and configure
`--ragmeter-cases`, `--ragmeter-pipeline` (or the `ragmeter_*` ini keys) instead.
"""

from __future__ import annotations

import pytest

from ragmeter.demo import demo_cases_path
from ragmeter.pytest_plugin import RagmeterOptions


@pytest.fixture(scope="session")
def ragmeter_options(pytestconfig: pytest.Config) -> RagmeterOptions:
    baseline = pytestconfig.getoption("ragmeter_baseline")
    return RagmeterOptions(
        cases=str(demo_cases_path()),
        pipeline="ragmeter.demo.pipeline:answer",
        baseline=baseline,
        results=pytestconfig.getoption("ragmeter_results"),
    )


def test_answers_stay_faithful(ragmeter_run):
    ragmeter_run.assert_mean("faithfulness", ">=", 0.85)  # the mean, read literally


def test_answers_stay_relevant(ragmeter_run):
    ragmeter_run.assert_mean("answer_relevancy", ">=", 0.80)


def test_the_gate_floors(ragmeter_run):
    ragmeter_run.assert_gate()  # as `ragmeter gate`: every metric measured, the [gate] floors


def test_no_regression_against_the_baseline(ragmeter_run, ragmeter_baseline):
    ragmeter_run.assert_no_regression(ragmeter_baseline)  # regressions only, no floor
