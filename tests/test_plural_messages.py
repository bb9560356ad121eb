"""Counted nouns in the core's messages (issue 15): `1 case`, `2 cases`, never `case(s)`."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from factories import case, uniform_run
from factories import run as make_run
from ragmeter._exceptions import CaseFileError, ConfigError, ResultsError
from ragmeter.cases import Case, load_cases
from ragmeter.compare.gate import _baseline_check, _floor_check
from ragmeter.results import save_run
from ragmeter.run.calibrate import calibrate_run
from ragmeter.vary import META_KEY, attach_outputs, load_outputs, vary_cases

SRC = Path(__file__).resolve().parents[1] / "src" / "ragmeter"

# String constants holding "(s)" that are not a counted noun: a URL scheme, a docstring.
NOT_COUNTED = (
    "http(s)",
    "never `case(s)`",
)


def test_no_string_in_the_package_writes_a_noun_as_noun_s():
    found = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            if "(s)" in node.value and not any(ok in node.value for ok in NOT_COUNTED):
                found.append(f"{path.relative_to(SRC)}:{node.lineno}: {node.value!r}")
    assert not found, "use ragmeter._util.plural.counted:\n" + "\n".join(found)


def _raised(kind: type[Exception], call) -> str:
    with pytest.raises(kind) as info:
        call()
    return str(info.value)


def _floor_reason(n: int) -> str:
    run = uniform_run(n, {"faithfulness": 0.9})
    check, _ = _floor_check(run, "faithfulness", 0.5, None, False, False)
    return check.reason or ""


def _baseline_reason(n: int) -> str:
    scores: list[float | str] = [0.9] * n + ["judge error: x"] * (3 - n)
    base = uniform_run(3, {"faithfulness": scores})  # type: ignore[dict-item]
    new = uniform_run(3, {"faithfulness": 0.9})
    ids = {case.id for case in new.cases}
    check, _ = _baseline_check(base, new, "faithfulness", 0.05, (None, None), False, ids, False)
    return check.reason or ""


def _variants_refused(n: int) -> str:
    cases = [
        Case(id=f"v{i}", question="q?", ground_truth="t.", metadata={META_KEY: {}})
        for i in range(n)
    ]
    return _raised(CaseFileError, lambda: vary_cases(cases, seed=0))


def _failed_pipeline(n: int, tmp_path: Path) -> str:
    cases = [case(f"c{i}", {"faithfulness": 1.0}) for i in range(3)]
    cases = [
        c.model_copy(update={"pipeline_error": "boom"}) if i < n else c for i, c in enumerate(cases)
    ]
    save_run(make_run(cases), tmp_path / "run")
    return _raised(ResultsError, lambda: load_outputs(tmp_path / "run"))


def _cases_without_output(n: int) -> str:
    cases = [Case(id=f"c{i}", question="q?", ground_truth="t.") for i in range(3)]
    outputs = {c.id: (["context"], "answer") for c in cases[n:]}
    return _raised(CaseFileError, lambda: attach_outputs(cases, outputs, source="x"))


def _unknown_labels(n: int) -> str:
    labels = {f"nope{i}": {"faithfulness": 1.0} for i in range(n)}
    result = uniform_run(3, {"faithfulness": 0.9})
    return _raised(ConfigError, lambda: calibrate_run(result, labels))  # type: ignore[arg-type]


def _more_problems(n: int, tmp_path: Path) -> str:
    record = {"id": "a", "question": 1, "ground_truth": 2, "category": 3}
    record = dict(list(record.items())[: 2 + n])  # the question's problem and n more
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps(record) + "\n")
    return _raised(CaseFileError, lambda: load_cases(path))


@pytest.mark.parametrize(
    ("message", "n", "expected"),
    [
        (_floor_reason, 1, "only 1 scored case"),
        (_floor_reason, 0, "only 0 scored cases"),
        (_baseline_reason, 1, "only 1 case scored in both runs"),
        (_baseline_reason, 0, "only 0 cases scored in both runs"),
        (_variants_refused, 1, "1 case is a variant already (metadata 'vary')"),
        (_variants_refused, 2, "2 cases are variants already (metadata 'vary')"),
        (_failed_pipeline, 1, "the pipeline failed on 1 case ('c0')"),
        (_failed_pipeline, 2, "the pipeline failed on 2 cases ('c0', 'c1')"),
        (_cases_without_output, 1, "1 eval case without one: 'c0'"),
        (_cases_without_output, 2, "2 eval cases without one: 'c0', 'c1'"),
        (_unknown_labels, 1, "1 labelled id is not a case of the run (first: 'nope0')"),
        (_unknown_labels, 2, "2 labelled ids are not cases of the run (first: 'nope0')"),
        (_more_problems, 1, "(and 1 more problem in this record)"),
        (_more_problems, 2, "(and 2 more problems in this record)"),
    ],
    ids=lambda v: v.__name__.strip("_") if callable(v) else str(v),
)
def test_counted_nouns_in_messages(message, n, expected, tmp_path):
    needs_dir = message in (_failed_pipeline, _more_problems)
    text = message(n, tmp_path) if needs_dir else message(n)
    assert expected in text
    assert "(s)" not in text
