"""The local judge's published agreement with people, quoted by reports of uncalibrated runs."""

from __future__ import annotations

from typing import Any

import pytest

from ragmeter.api import run_and_save
from ragmeter.cases import Case
from ragmeter.cases.labels import LabelledCase
from ragmeter.config import Settings
from ragmeter.judges.local import LocalJudge, LocalSettings
from ragmeter.judges.local.reference import load_reference, reference_headline
from ragmeter.pipeline import PrecomputedPipeline
from ragmeter.report.html import render_html
from ragmeter.report.inputs import ReportInputs
from ragmeter.report.markdown import render_markdown
from ragmeter.report.terminal import render_text
from ragmeter.results.calibration import store_calibration
from ragmeter.run.calibrate import calibrate, calibration_notes

CONTEXT = "The Eiffel Tower is 330 metres tall. It opened in 1889 in Paris."
STALE = "the local judge changed since its reference was measured: rerun " + (
    "`python bench/meta/convert.py && python bench/meta/run.py --write-reference`"
)


@pytest.fixture
def embedded(minilm: Any) -> LocalJudge:
    if minilm is None:
        pytest.skip("MiniLM embeddings are not installed")
    return LocalJudge(embedder=minilm)


def test_shipped_reference_was_measured_with_this_judge(embedded: LocalJudge, tmp_path) -> None:
    assert reference_headline(embedded.fingerprint())
    notes = calibration_notes(embedded.fingerprint(), root=tmp_path)
    assert notes, STALE
    assert [n.metric for n in notes] == ["faithfulness", "answer_relevancy"]
    for note in notes:
        assert note.reference == "MTRAG" and note.measure == "Spearman"
        assert note.n >= 250 and note.value is not None and -1 <= note.value <= 1
    faithfulness = notes[0]
    rows = load_reference()["rows"]  # type: ignore[index]
    measured = next(
        r
        for r in rows
        if r["set"] == "mtrag" and r["metric"] == "faithfulness" and r["measure"] == "Spearman"
    )
    # nothing in the judge is fitted to these labels: the headline is the measured figure
    assert faithfulness.value == pytest.approx(measured["value"], abs=1e-3)
    assert faithfulness.n == measured["n"]


def test_reference_is_not_quoted_for_another_configuration(embedded: LocalJudge) -> None:
    assert reference_headline(LocalJudge(embedder=None).fingerprint()) == []
    tuned = LocalJudge(LocalSettings(support_threshold=0.7), embedder=embedded.store.embedder)
    assert reference_headline(tuned.fingerprint()) == []


def test_own_calibration_replaces_the_reference(embedded, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("RAGMETER_CACHE_DIR", str(tmp_path / "cache"))
    labelled = [
        LabelledCase(
            id=f"c{i}",
            question="How tall is the Eiffel Tower?",
            contexts=[CONTEXT],
            answer=answer,
            labels={"faithfulness": label},
        )
        for i, (answer, label) in enumerate(
            [
                ("The Eiffel Tower is 330 metres tall.", 1.0),
                ("It opened in 1889 in Paris.", 1.0),
                ("The Eiffel Tower is 512 metres tall.", 0.0),
                ("It opened in 1925 in Lyon.", 0.0),
            ]
        )
    ]
    before = calibration_notes(embedded.fingerprint())
    assert {n.reference for n in before} == {"MTRAG"}
    store_calibration(calibrate(labelled, embedded, resamples=50))
    after = calibration_notes(embedded.fingerprint())
    assert [(n.metric, n.reference, n.n) for n in after] == [("faithfulness", "", 4)]


def test_every_report_quotes_the_reference(embedded, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("RAGMETER_CACHE_DIR", str(tmp_path / "cache"))
    cases = [Case(id="a", question="How tall?", contexts=[CONTEXT], answer="It is 330 m tall.")]
    run = run_and_save(
        cases, PrecomputedPipeline(), Settings(), out_dir=tmp_path / "r", judge=embedded
    )
    assert [n.reference for n in run.run.calibration] == ["MTRAG", "MTRAG"]
    report = ReportInputs(run)
    for text in (render_text(report), render_markdown(report), render_html(report)):
        assert "faithfulness judge: Spearman" in text
        assert "MTRAG cases (public set)" in text
        assert "measured on public data, not yours" in text
        assert "context_recall judge: uncalibrated" in text
