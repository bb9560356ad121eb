"""One bar per question: the diagnosis holds a run's mean to the gate's floor unless a target is
set, so the diagnosis and the gate never disagree about the same mean without being told to."""

from __future__ import annotations

from ragmeter.api import run_and_save
from ragmeter.cases import Case
from ragmeter.config import Settings
from ragmeter.pipeline import CallablePipeline
from ragmeter.results.diagnosis import DEFAULT_TARGETS


def test_targets_default_to_the_gate_floors_where_no_target_is_set():
    settings = Settings.model_validate(
        {"targets": {"faithfulness": 0.7}, "gate": {"floors": {"context_recall": 0.9}}}
    )
    assert settings.mean_targets() == {
        "faithfulness": 0.7,  # a target wins over the floor
        "answer_relevancy": 0.8,  # the default floor
        "context_recall": 0.9,  # the floor set
    }
    assert {**DEFAULT_TARGETS, **settings.mean_targets()}["context_precision"] == 0.6


def test_a_run_calls_weak_the_mean_its_gate_floor_would_fail(tmp_path):
    truth = "Refunds are issued within 14 days."
    cases = [
        Case(id=f"q{i}", question=f"How long do refunds take? ({i})", ground_truth=truth)
        for i in range(6)
    ]

    def answer(question: str, history: object = None) -> dict:
        found = "(5)" not in question  # one case in six retrieves nothing useful
        context = truth if found else "Shipping is free over 50 dollars."
        return {"contexts": [context], "answer": truth}

    settings = Settings.model_validate({"gate": {"floors": {"context_recall": 0.9}}})
    run = run_and_save(
        cases,
        CallablePipeline(answer),
        settings,
        out_dir=tmp_path / "run",
        metrics=("context_recall",),
    )
    mean = run.summary.metrics["context_recall"].mean
    assert mean == 5 / 6  # over the default target 0.75, under the floor 0.90
    finding = run.diagnosis.findings[0]
    assert finding.message.startswith("context_recall 0.83 < target 0.90")
    assert run.diagnosis.fix_first == "retrieval"
    assert run.run.targets["context_recall"] == 0.9
