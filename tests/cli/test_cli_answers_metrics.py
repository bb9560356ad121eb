"""`ragmeter run --answers FILE` alone (a RAGAS-style file is its own eval set), answers matched
to an eval set by id (extra or missing ids are an error), and `--metrics`."""

import json

import pytest
from typer.testing import CliRunner

from factories import RAGAS_INVENTED_FAITHFULNESS, RAGAS_ROWS
from ragmeter.cli import app

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return path


@pytest.fixture
def ragas_file(tmp_path):
    return write_jsonl(tmp_path / "ragas.jsonl", RAGAS_ROWS)


def test_answers_alone_is_the_eval_set(tmp_path, ragas_file):
    out = tmp_path / "out"
    result = invoke("run", "--answers", ragas_file, "--out", out, "--no-progress")
    assert result.exit_code == 0, result.output
    data = json.loads((out / "results.json").read_text())
    assert data["run"]["pipeline"] == "answers:ragas.jsonl"
    assert data["run"]["cases_file"] == str(ragas_file)
    assert [c["id"] for c in data["cases"]] == ["1", "2"]
    assert data["cases"][0]["ground_truth"] == RAGAS_ROWS[0]["reference"]
    assert [c["metrics"]["faithfulness"]["score"] for c in data["cases"]] == [
        1.0,
        RAGAS_INVENTED_FAITHFULNESS,
    ]
    assert data["summary"]["metrics"]["context_recall"]["n_scored"] == 2
    assert "no eval set" not in result.output


def test_answers_alone_in_csv_with_old_ragas_names(tmp_path):
    path = tmp_path / "answers.csv"
    path.write_text(
        "question,contexts,answer,ground_truth\n"
        'How long are deleted notes kept?,"[""Deleted notes stay in the trash for 30 days.""]",'
        "Deleted notes stay in the trash for 30 days.,30 days.\n"
    )
    out = tmp_path / "out"
    result = invoke("run", "--answers", path, "--out", out, "--no-progress")
    assert result.exit_code == 0, result.output
    case = json.loads((out / "results.json").read_text())["cases"][0]
    assert case["metrics"]["faithfulness"]["score"] == 1.0


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (
            [{"id": "a", "contexts": ["x"], "answer": "y"}],
            "answers.jsonl:1: field 'question': missing question: without --cases the answers "
            "file is the eval set",
        ),
        (
            [
                {"question": "q1?", "contexts": ["x"], "answer": "y"},
                {"question": "q2?", "answer": "y"},
            ],
            "answers.jsonl: 1 record without 'contexts' (or 'retrieved_contexts'): '2'",
        ),
        (
            [{"question": "q1?", "retrieved_contexts": ["x"]}],
            "answers.jsonl: 1 record without 'answer' (or 'response'): '1'",
        ),
    ],
)
def test_answers_alone_must_hold_questions_contexts_and_answers(tmp_path, rows, message):
    path = write_jsonl(tmp_path / "answers.jsonl", rows)
    result = invoke("run", "--answers", path, "--out", tmp_path / "out", "--no-progress")
    assert result.exit_code == 2
    assert message in result.output
    assert not (tmp_path / "out").exists()


def test_no_eval_set_and_no_answers_names_both_ways(tmp_path):
    result = invoke("run", "--out", tmp_path / "out", "--no-progress")
    assert result.exit_code == 2
    assert "pass --cases FILE" in result.output
    assert "or --answers FILE holding questions, contexts and answers" in result.output


@pytest.fixture
def cases_file(tmp_path):
    rows = [{"id": i, "question": f"question {i}?", "ground_truth": "x"} for i in "abc"]
    return write_jsonl(tmp_path / "cases.jsonl", rows)


def answers(tmp_path, ids):
    rows = [{"id": i, "contexts": ["x"], "answer": "x"} for i in ids]
    return write_jsonl(tmp_path / "answers.jsonl", rows)


def test_answers_for_unknown_ids_are_an_error_naming_them(tmp_path, cases_file):
    path = answers(tmp_path, ["a", "b", "c", "z", "y"])
    out = tmp_path / "out"
    result = invoke("run", "--cases", cases_file, "--answers", path, "--out", out)
    assert result.exit_code == 2
    assert result.output.startswith(f"error: {path}: 2 answers for ids not in the eval set ")
    assert (
        "cases.jsonl: 'y', 'z'; an answers file must answer exactly the eval set's cases, "
        "matched by id: fix the ids, or remove the extra answers or cases"
    ) in " ".join(result.output.split())
    assert not out.exists()


def test_cases_without_answers_are_an_error_naming_them(tmp_path, cases_file):
    path = answers(tmp_path, ["b"])
    result = invoke("run", "--cases", cases_file, "--answers", path, "--out", tmp_path / "out")
    assert result.exit_code == 2
    assert "2 eval cases without an answer: 'a', 'c'" in result.output


def test_many_ids_are_cut_to_the_first_few_and_counted(tmp_path):
    cases = write_jsonl(
        tmp_path / "cases.jsonl", [{"question": f"question {i}?"} for i in range(1, 4)]
    )
    path = answers(tmp_path, [f"q{i}" for i in range(1, 9)] + ["1", "2", "3"])
    result = invoke("run", "--cases", cases, "--answers", path, "--out", tmp_path / "out")
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert (
        "8 answers for ids not in the eval set cases.jsonl: "
        "'q1', 'q2', 'q3', 'q4', 'q5', … (8 in all)" in text
    )
    assert "records without an id are numbered 1, 2, … by position" in text


def test_metrics_computes_only_those_named(tmp_path, ragas_file):
    out = tmp_path / "out"
    result = invoke(
        "run", "--answers", ragas_file, "--metrics", "faithfulness", "--out", out, "--no-progress"
    )
    assert result.exit_code == 0, result.output
    data = json.loads((out / "results.json").read_text())
    assert list(data["summary"]["metrics"]) == ["faithfulness"]
    assert all(list(c["metrics"]) == ["faithfulness"] for c in data["cases"])
    assert [m["metric"] for m in data["health"]["metrics"]] == ["faithfulness"]
    assert invoke("report", out).exit_code == 0


def test_metrics_comma_separated_and_repeated(tmp_path, ragas_file):
    out = tmp_path / "out"
    result = invoke(
        "run",
        "--answers",
        ragas_file,
        "--metrics",
        "answer_relevancy,context_recall",
        "--metrics",
        "faithfulness",
        "--out",
        out,
        "--no-progress",
    )
    assert result.exit_code == 0, result.output
    data = json.loads((out / "results.json").read_text())
    assert list(data["summary"]["metrics"]) == [
        "context_recall",
        "faithfulness",
        "answer_relevancy",
    ]


def test_unknown_metric_is_a_clear_error(tmp_path, ragas_file):
    out = tmp_path / "out"
    result = invoke("run", "--answers", ragas_file, "--metrics", "faithfulnes", "--out", out)
    assert result.exit_code == 2
    assert (
        "error: --metrics: unknown metric 'faithfulnes' (did you mean 'faithfulness'?); choose "
        "from context_recall, context_precision, faithfulness, answer_relevancy"
    ) in " ".join(result.output.split())
    assert not out.exists()
