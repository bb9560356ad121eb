"""Hostile or damaged input (issue 13): refused at load with one line naming the file, line and
field, before anything is written; a results file read back must agree with itself."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragmeter._exceptions import CaseFileError
from ragmeter.cases._records import MAX_NESTING
from ragmeter.cli import app

runner = CliRunner()

ANSWERS = '{"id": "a", "contexts": ["Refunds take 30 days."], "answer": "30 days."}\n'


def refused_by_run(tmp_path: Path, name: str, text: str) -> tuple[Path, str]:
    """Lint and run the eval set `text`: both exit 2 with one line and write nothing; returns
    the file and that line."""
    bad = tmp_path / name
    bad.write_text(text, encoding="utf-8")
    answers = tmp_path / "answers.jsonl"
    answers.write_text(ANSWERS)
    out = tmp_path / "out"
    lint = runner.invoke(app, ["lint", str(bad)])
    run = runner.invoke(
        app,
        ["run", "--cases", str(bad), "--answers", str(answers), "--out", str(out), "--no-progress"],
    )
    for result in (lint, run):
        assert result.exit_code == 2, result.output
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert len(lines) == 1, result.output
        assert "Traceback" not in result.output
    assert not out.exists()
    return bad, run.output.strip()


# --- 1. YAML aliases and nesting depth ------------------------------------------------------

ALIAS_BOMB = """\
- id: a
  question: What is the refund window?
  metadata:
    l0: &a [x, x, x, x, x, x, x, x, x]
    l1: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
    l2: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
    l3: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
    l4: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
    l5: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
"""


def test_yaml_alias_bomb_is_refused_at_the_alias(tmp_path: Path) -> None:
    bad, line = refused_by_run(tmp_path, "bomb.yaml", ALIAS_BOMB)
    assert line.startswith(f"error: {bad}:5: field 'metadata.l1.0': YAML alias '*a' refused")


DEEP = 100_000  # far beyond Python's recursion limit: the parsers alone would overflow


@pytest.mark.parametrize(
    ("name", "text", "line", "field"),
    [
        ("deep.json", '[{"id": "a", "question": "q"},\n' + "[" * DEEP + "]" * DEEP + "]", 2, None),
        ("deep.jsonl", '{"id": "a", "question": "q"}\n' + "[" * DEEP + "]" * DEEP, 2, None),
        (
            "deep.yaml",
            "- id: a\n  question: q\n  metadata:\n    x: " + "[" * DEEP,
            4,
            "metadata.x.0.0.0.0.…",
        ),
        (
            "deep.jsonl",
            '{"id": "a", "question": "q", "metadata": '
            + "[" * MAX_NESTING
            + "]" * MAX_NESTING
            + "}",
            1,
            "metadata.0.0.0.0.0.…",
        ),
    ],
)
def test_nesting_beyond_the_limit_is_a_located_error(
    tmp_path: Path, name: str, text: str, line: int, field: str | None
) -> None:
    bad, message = refused_by_run(tmp_path, name, text)
    where = f"{bad}:{line}: " + (f"field '{field}': " if field else "")
    assert message.startswith(f"error: {where}lists and objects are nested more than 64 levels")


def test_nesting_at_the_limit_loads(tmp_path: Path) -> None:
    from ragmeter.cases import load_cases

    lists = MAX_NESTING - 2  # inside the record (level 1) and its metadata (level 2)
    nested: list = []
    for _ in range(lists - 1):
        nested = [nested]
    path = tmp_path / "set.jsonl"
    path.write_text(json.dumps({"id": "a", "question": "q", "metadata": {"x": nested}}))
    assert load_cases(path)[0].metadata["x"] == nested
    nested = [nested]  # one level more
    path.write_text(json.dumps({"id": "a", "question": "q", "metadata": {"x": nested}}))
    with pytest.raises(CaseFileError, match="nested more than 64 levels"):
        load_cases(path)


# --- 2. strict CSV ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "field", "words"),
    [
        # The stray quote used to take in the two rows after it: 3 cases became 1, exit 0.
        (
            'id,question,ground_truth\na,"What is the refund window?,30 days\n'
            "b,And for sale items?,14 days\nc,Gift cards?,None\n",
            2,
            "question",
            "never closed",
        ),
        ('id,question,ground_truth\na,q,g\nb,"5" screens?,g\n', 3, "question", "closing quote"),
        ("id,question,ground_truth\na,q,g\nb,q\n", 3, "ground_truth", "row has 2 cells"),
    ],
)
def test_csv_is_read_strictly(tmp_path: Path, text: str, line: int, field: str, words: str) -> None:
    bad, message = refused_by_run(tmp_path, "set.csv", text)
    assert message.startswith(f"error: {bad}:{line}: field '{field}': ")
    assert words in message


# --- 3. lone surrogates -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ('{"id": "a", "question": "q"}\n{"id": "b", "question": "caf\\ud800"}\n', "question"),
        (
            '{"id": "a", "question": "q"}\n'
            '{"id": "b", "question": "q", "metadata": {"k\\udc00": 1}}\n',
            "metadata",
        ),
    ],
)
def test_lone_surrogates_are_refused_at_load(tmp_path: Path, text: str, field: str) -> None:
    bad, message = refused_by_run(tmp_path, "set.jsonl", text)
    assert message.startswith(f"error: {bad}:2: field '{field}': ")
    assert "lone surrogate" in message


# --- 4. NaN and Infinity ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text", "line", "word"),
    [
        ("set.jsonl", '{"id": "a", "question": "q", "metadata": {"x": NaN}}\n', 1, "NaN"),
        (
            "set.json",
            '[\n{"id": "a", "question": "q",\n "metadata": {"x": -Infinity}}]',
            2,
            "-Infinity",
        ),
        ("set.yaml", "- id: a\n  question: q\n  metadata:\n    x: .inf\n", 1, "Infinity"),
        ("set.csv", 'id,question,metadata\na,q,"{""x"": NaN}"\n', 2, "NaN"),
    ],
)
def test_nan_and_infinity_are_refused_not_turned_into_null(
    tmp_path: Path, name: str, text: str, line: int, word: str
) -> None:
    bad, message = refused_by_run(tmp_path, name, text)
    assert message.startswith(f"error: {bad}:{line}: field 'metadata.x': {word} is not a number")


# --- 5. results.json read back ----------------------------------------------------------------


def _saved_run(tmp_path: Path) -> Path:
    from factories import uniform_run
    from ragmeter.results import save_run
    from ragmeter.results.health import assess_run

    run = uniform_run(20, {"faithfulness": 1.0}, categories=("normal", "typo"))
    run.health = assess_run(run.summary, ("faithfulness",))
    return save_run(run, tmp_path / "run")


def _set(path: tuple[str | int, ...], value: object) -> Callable[[dict], None]:
    def edit(data: dict) -> None:
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return edit


def _drop_scores(data: dict) -> None:
    for case in data["cases"]:
        case["metrics"] = {}


@pytest.mark.parametrize(
    ("edit", "field", "words"),
    [
        (_set(("schema_version",), "2"), "schema_version", "whole number"),
        (
            _set(("summary", "metrics", "faithfulness", "mean"), 7.0),
            "summary.metrics.faithfulness.mean",
            "says 7.0 but its cases give 1.0",
        ),
        (
            _set(("summary", "metrics", "faithfulness", "n_scored"), -3),
            "summary.metrics.faithfulness.n_scored",
            "says -3 but its cases give 20",
        ),
        (
            _set(("summary", "metrics", "faithfulness", "mean"), float("nan")),
            "summary.metrics.faithfulness.mean",
            "NaN is not a number",
        ),
        (_drop_scores, "summary.metrics.faithfulness.n_scored", "says 20 but its cases give 0"),
        (
            _set(("summary", "by_category", "typo", "faithfulness", "n_failed"), 3),
            "summary.by_category.typo.faithfulness.n_failed",
            "says 3",
        ),
        (_set(("summary", "n_cases"), "20"), "summary.n_cases", "valid integer"),
    ],
)
def test_a_tampered_results_file_never_passes_the_gate(
    tmp_path: Path, edit: Callable[[dict], None], field: str, words: str
) -> None:
    path = _saved_run(tmp_path)
    assert runner.invoke(app, ["gate", str(path.parent)]).exit_code == 0
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))
    baseline, html = tmp_path / "baseline.json", tmp_path / "report.html"
    for args in (
        ["gate", str(path.parent)],
        ["report", str(path.parent), "--format", "html", "-o", str(html)],
        ["baseline", str(path.parent), "--to", str(baseline)],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, result.output
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert len(lines) == 1, result.output
        assert lines[0].startswith(f"error: {path}: field '{field}': "), lines[0]
        assert words in lines[0]
    assert not baseline.exists() and not html.exists()


def test_texts_built_from_the_cases_are_rebuilt_not_trusted(tmp_path: Path) -> None:
    from factories import case, run
    from ragmeter.results import load_run, save_run
    from ragmeter.results.health import assess_run

    cases = [
        case(f"c{i}", {"faithfulness": 0.9 if i < 5 else "judge error: timeout"}) for i in range(10)
    ]
    good = run(cases)
    good.health = assess_run(good.summary, ("faithfulness",))
    assert not good.health.ok
    path = save_run(good, tmp_path / "run")
    data = json.loads(path.read_text())
    data["health"].update(ok=True, exit_code=0, problems=[])
    data["summary"]["unscored_groups"] = []
    data["summary"]["metrics"]["faithfulness"]["unscored_reasons"] = {"not applicable": 5}
    path.write_text(json.dumps(data))
    loaded = load_run(path)
    assert loaded.health == good.health
    assert loaded.summary == good.summary
