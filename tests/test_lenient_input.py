"""Eval sets load as peers load them: other columns kept, headers as people spell them, every
problem of a file in one error."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from typer.testing import CliRunner

import ragmeter
from ragmeter._exceptions import CaseFileError, CaseFileWarning
from ragmeter.cases import load_cases, open_cases
from ragmeter.cli import app

RAGAS_TESTSET_ROW = {
    "user_input": "How long do refunds take?",
    "reference": "Within 14 days.",
    "reference_contexts": ["Refunds are processed within 14 days."],
    "synthesizer_name": "single_hop_specific_query_synthesizer",
    "description": "a question about refunds",
    "source_file": "refunds.md",
}


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


@pytest.mark.parametrize("load", [load_cases, open_cases], ids=["load_cases", "open_cases"])
def test_other_columns_are_kept_under_metadata_with_one_warning(tmp_path, load):
    rows = [RAGAS_TESTSET_ROW, {**RAGAS_TESTSET_ROW, "user_input": "退款需要多久？"}]
    path = write_jsonl(tmp_path / "testset.jsonl", rows)
    with pytest.warns(CaseFileWarning) as caught:
        cases = list(load(path))
    assert len(caught) == 1
    text = str(caught[0].message)
    assert "'description', 'source_file' are not a case field" in text and "testset.jsonl" in text
    assert cases[1].question == "退款需要多久？"
    assert cases[0].metadata == {
        "synthesizer_name": "single_hop_specific_query_synthesizer",
        "description": "a question about refunds",
        "source_file": "refunds.md",
    }


def test_a_dataframe_with_other_columns_loads_with_one_warning():
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame(
        [{**RAGAS_TESTSET_ROW, "retrieved_contexts": ["Refunds: 14 days."], "response": "14 days."}]
    )
    with pytest.warns(CaseFileWarning, match="'description', 'source_file'"):
        run = ragmeter.evaluate(frame, judge="local", metrics="faithfulness")
    assert run.cases[0].metadata["source_file"] == "refunds.md"


def test_a_misspelt_field_the_record_lacks_is_still_an_error(tmp_path):
    path = write_jsonl(tmp_path / "set.jsonl", [{"question": "q?", "ground_truht": "a"}])
    with pytest.raises(CaseFileError, match="did you mean 'ground_truth'"):
        load_cases(path)


def test_a_column_given_twice_with_other_values_is_refused(tmp_path):
    row = {"question": "q?", "note": "a", "metadata": {"note": "b"}}
    with pytest.raises(CaseFileError, match="'note' is given both as a field and under"):
        load_cases(write_jsonl(tmp_path / "set.jsonl", [row]))


@pytest.mark.parametrize(
    "text",
    [
        "Question,Ground Truth,Category\nHow long do refunds take?,14 days,normal\n",
        "question;ground_truth\nHow long do refunds take?;14 days\n",
        "User Input\tReference\nHow long do refunds take?\t14 days\n",
    ],
    ids=["spelled-headers", "semicolons", "tabs"],
)
def test_csv_headers_as_spreadsheets_write_them(tmp_path, text):
    path = tmp_path / "set.csv"
    path.write_text(text, encoding="utf-8")
    [case] = load_cases(path)
    assert (case.question, case.ground_truth) == ("How long do refunds take?", "14 days")


def test_a_csv_without_a_question_column_names_the_columns_it_found(tmp_path):
    path = tmp_path / "set.csv"
    path.write_text("Query Text,Expected\nHow long?,14 days\n", encoding="utf-8")
    with pytest.raises(CaseFileError) as info:
        load_cases(path)
    assert "missing question" in str(info.value)
    assert "the record has 'Query Text', 'Expected'" in str(info.value)


@pytest.mark.parametrize("load", [load_cases, open_cases], ids=["load_cases", "open_cases"])
def test_every_problem_of_a_file_is_reported_in_one_error(tmp_path, load):
    rows = [
        {"id": "a", "question": "fine?"},
        {"id": "b"},
        {"id": "c", "question": "q?", "history": "not a list"},
        {"id": "a", "question": "again?"},
        {"id": "e", "question": "q?", "category": 3},
    ]
    with pytest.raises(CaseFileError) as info:
        load(write_jsonl(tmp_path / "set.jsonl", rows))
    error = info.value
    assert (error.line, error.field) == (2, "question")
    assert error.more_count == 3 and [p.line for p in error.more] == [3, 4, 5]
    text = str(error)
    assert "(and 3 more problems: 3: field 'history'" in text
    assert "4: field 'id': duplicate id 'a'" in text and "5: field 'category'" in text


def test_past_ten_problems_the_rest_are_counted(tmp_path):
    rows = [{"id": str(i)} for i in range(25)]
    with pytest.raises(CaseFileError) as info:
        load_cases(write_jsonl(tmp_path / "set.jsonl", rows))
    assert info.value.more_count == 24 and len(info.value.more) == 10
    assert str(info.value).endswith("; and 14 more)")


def test_the_command_line_prints_the_warning_once_and_runs(tmp_path):
    row = {**RAGAS_TESTSET_ROW, "retrieved_contexts": ["Refunds: 14 days."], "response": "14."}
    cases = write_jsonl(tmp_path / "set.jsonl", [row, {**row, "user_input": "Refunds?"}])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the command shows it; it must not escape as a warning
        result = CliRunner().invoke(app, ["lint", str(cases)], catch_exceptions=False)
    assert result.output.count("warning: ") == 1, result.output
    assert "'description', 'source_file' are not a case field" in result.output


ANSWERED = [
    {"id": "a", "question": "How long do refunds take?", "answer": "Refunds take 14 days."},
    {"id": "b", "question": "退款需要多久？", "answer": "退款需要 14 天。"},
]


@pytest.mark.parametrize("option", ["--cases", "--answers"])
def test_answer_relevancy_alone_needs_no_contexts(tmp_path, option):
    cases = write_jsonl(tmp_path / "set.jsonl", ANSWERED)
    out = tmp_path / "out"
    args = ["run", option, str(cases), "--metrics", "answer_relevancy", "--out", str(out)]
    result = CliRunner().invoke(app, [*args, "--no-progress"])
    assert result.exit_code == 0, result.output
    stored = json.loads((out / "results.json").read_text("utf-8"))
    assert [c["contexts"] for c in stored["cases"]] == [[], []]
    assert stored["summary"]["metrics"]["answer_relevancy"]["n_scored"] == 2


def test_metrics_that_read_contexts_still_need_them(tmp_path):
    run = ragmeter.evaluate(ANSWERED, judge="local", metrics="faithfulness,answer_relevancy")
    reasons = {c.id: c.metrics["faithfulness"].unscored_reason for c in run.cases}
    assert all("no precomputed contexts" in (reason or "") for reason in reasons.values())
    run = ragmeter.evaluate(ANSWERED, judge="local", metrics="answer_relevancy")
    assert run.summary.metrics["answer_relevancy"].n_scored == 2
