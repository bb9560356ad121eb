"""Every way into an evaluation (ragmeter.evaluate, ragmeter.evaluate_async on Case objects,
`api.run_and_save` that the pytest plugin uses, `ragmeter run`) goes through `ragmeter.api` and
records the same calibration notes: the judge's agreement with people for the metrics that
ran, never for ones that did not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import ragmeter
from ragmeter import api
from ragmeter._util.sync import run_sync
from ragmeter.cli import app
from ragmeter.config import Settings
from ragmeter.judges.local import reference as local_reference
from ragmeter.pipeline import PrecomputedPipeline
from ragmeter.results import load_run
from ragmeter.vocabulary import METRICS

ROWS = [
    {
        "id": "a",
        "question": "How tall is the Eiffel Tower?",
        "contexts": ["The Eiffel Tower is 330 metres tall. It opened in 1889."],
        "answer": "It is 330 metres tall.",
        "ground_truth": "330 metres.",
    },
    {
        "id": "b",
        "question": "埃菲尔铁塔有多高？",
        "contexts": ["埃菲尔铁塔高330米，于1889年开放。"],
        "answer": "它高330米。",
        "ground_truth": "330米。",
    },
]


def _shipped() -> set[str]:
    reference = local_reference.load_reference()
    assert reference is not None
    return {row["metric"] for row in reference["headline"]}


@pytest.fixture
def cases_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RAGMETER_CACHE_DIR", str(tmp_path / "cache"))  # no stored calibration
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in ROWS), encoding="utf-8")
    return path


@pytest.mark.parametrize("metrics", [("faithfulness", "answer_relevancy"), METRICS])
def test_every_door_keeps_the_notes_of_the_metrics_that_ran(
    cases_file: Path, tmp_path: Path, metrics: tuple[str, ...]
) -> None:
    expected = _shipped() & set(metrics)
    assert expected  # the shipped reference covers some of them, so the test can fail

    from_python = ragmeter.evaluate(str(cases_file), metrics=list(metrics))

    cases = api.load_cases(cases_file)
    judge = ragmeter.judge("local")
    from_cases = run_sync(
        ragmeter.evaluate_async(cases, PrecomputedPipeline(), judge, metrics=metrics),
        closing=(judge,),
    )
    from_files = api.run_and_save(
        cases,
        api.build_pipeline(cases),
        Settings(),
        out_dir=tmp_path / "files",
        metrics=api.parse_metrics(metrics),
    )

    out = tmp_path / "cli"
    args = ["run", "--cases", str(cases_file), "--out", str(out), "--no-progress"]
    result = CliRunner().invoke(app, [*args, "--metrics", ",".join(metrics)])
    assert result.exit_code in (0, 3), result.output
    from_cli = load_run(out)

    for run in (from_python, from_cases, from_files, load_run(tmp_path / "files"), from_cli):
        assert {note.metric for note in run.run.calibration} == expected
