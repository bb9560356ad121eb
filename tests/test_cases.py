"""Loading eval sets: every format, RAGAS aliases, and located errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragmeter._exceptions import CaseFileError
from ragmeter.cases import Case, assigned_ids, load_cases, read_records


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def load_error(path: Path) -> CaseFileError:
    with pytest.raises(CaseFileError) as info:
        load_cases(path)
    return info.value


# --- valid files, one per format ----------------------------------------------------------

JSONL = """\
{"id": "q1", "question": "What is the refund window?", "ground_truth": "30 days.", "category": "normal"}

{"id": "q2", "question": "and for sale items?", "ground_truth": "14 days.", "category": "multi_turn", "history": [{"role": "user", "content": "Refund window?"}, {"role": "assistant", "content": "30 days."}], "lang": "en"}
"""  # noqa: E501

JSON = """\
{
  "cases": [
    {"id": "q1", "question": "What is the refund window?", "ground_truth": "30 days."},
    {
      "id": "q2",
      "question": "and for sale items?",
      "ground_truth": "14 days.",
      "category": "multi_turn",
      "history": ["Refund window?", "30 days."],
      "metadata": {"source": "faq", "tags": ["refund"]}
    }
  ]
}
"""

YAML = """\
# refund questions
- id: q1
  question: What is the refund window?
  ground_truth: 30 days.
- id: q2
  question: and for sale items?
  ground_truth: 14 days.
  category: multi_turn
  history:
    - role: user
      content: Refund window?
    - role: assistant
      content: 30 days.
  reference_contexts: [Sale items can be refunded within 14 days.]
"""

CSV = """\
id,question,ground_truth,category,history,reference_contexts,metadata
q1,What is the refund window?,30 days.,normal,,,
q2,and for sale items?,"14 days,
not 30.",multi_turn,"[""Refund window?"", ""30 days.""]","[""Sale: 14 days.""]","{""s"": ""faq""}"
"""


@pytest.mark.parametrize(
    ("name", "text"),
    [("set.jsonl", JSONL), ("set.json", JSON), ("set.yaml", YAML), ("set.csv", CSV)],
)
def test_every_format_loads_the_same_cases(tmp_path: Path, name: str, text: str) -> None:
    cases = load_cases(write(tmp_path, name, text))
    assert [c.id for c in cases] == ["q1", "q2"]
    assert cases[0].question == "What is the refund window?"
    assert cases[0].category == "normal"
    assert cases[0].history == []
    second = cases[1]
    assert second.category == "multi_turn"
    assert [(t.role, t.content) for t in second.history] == [
        ("user", "Refund window?"),
        ("assistant", "30 days."),
    ]
    assert second.ground_truth.startswith("14 days")
    assert assigned_ids(cases) == []


def test_csv_cells_keep_newlines_and_parse_json_columns(tmp_path: Path) -> None:
    cases = load_cases(write(tmp_path, "set.csv", CSV))
    assert cases[1].ground_truth == "14 days,\nnot 30."
    assert cases[1].reference_contexts == ["Sale: 14 days."]
    assert cases[1].metadata == {"s": "faq"}
    assert cases[0].reference_contexts == []  # empty cell = absent


def test_yml_extension_and_top_level_cases_mapping(tmp_path: Path) -> None:
    text = "cases:\n  - question: 退货期限是多久？\n    ground_truth: 30天。\n    lang: zh\n"
    cases = load_cases(write(tmp_path, "set.yml", text))
    assert cases[0].question == "退货期限是多久？"
    assert cases[0].lang == "zh"


def test_utf8_bom_is_ignored(tmp_path: Path) -> None:
    path = write(tmp_path, "set.csv", "\ufeffid,question\nq1,hello\n".encode())
    assert [c.id for c in load_cases(path)] == ["q1"]


def test_numeric_ids_become_strings(tmp_path: Path) -> None:
    cases = load_cases(write(tmp_path, "set.jsonl", '{"id": 7, "question": "q"}\n'))
    assert cases[0].id == "7"


def test_null_means_absent(tmp_path: Path) -> None:
    text = '{"id": "a", "question": "q", "metadata": null, "reference_contexts": null}\n'
    case = load_cases(write(tmp_path, "set.jsonl", text))[0]
    assert case.metadata == {}
    assert case.reference_contexts == []


# --- RAGAS names and assigned ids ---------------------------------------------------------


def test_ragas_columns_are_aliases(tmp_path: Path) -> None:
    rows = [
        {
            "user_input": "When was the company founded?",
            "retrieved_contexts": ["Founded in 1999 in Oslo."],
            "response": "In 1999.",
            "reference": "1999.",
            "reference_contexts": ["Founded in 1999 in Oslo."],
        },
        {"user_input": "Who is the CEO?", "response": "Ada.", "reference": "Ada Lovelace."},
    ]
    path = write(tmp_path, "ragas.jsonl", "\n".join(json.dumps(r) for r in rows))
    cases = load_cases(path)
    assert [c.id for c in cases] == ["1", "2"]
    assert cases[0].question == "When was the company founded?"
    assert cases[0].ground_truth == "1999."
    assert cases[0].contexts == ["Founded in 1999 in Oslo."]
    assert cases[0].answer == "In 1999."
    assert cases[1].contexts is None
    assert assigned_ids(cases) == ["1", "2"]


def test_ragas_csv_with_pandas_list_cells(tmp_path: Path) -> None:
    text = "user_input,retrieved_contexts,response,reference\nWhy?,\"['a', 'b']\",Because.,B.\n"
    case = load_cases(write(tmp_path, "ragas.csv", text))[0]
    assert case.contexts == ["a", "b"]
    assert case.answer == "Because."


def test_assigned_ids_only_for_records_without_id(tmp_path: Path) -> None:
    text = '{"id": "a", "question": "q1"}\n{"question": "q2"}\n'
    cases = load_cases(write(tmp_path, "set.jsonl", text))
    assert [c.id for c in cases] == ["a", "2"]
    assert assigned_ids(cases) == ["2"]
    assert assigned_ids([c.model_copy() for c in cases]) == []
    assert assigned_ids([Case(id="2", question="q2")]) == []


def test_name_and_alias_together_is_an_error(tmp_path: Path) -> None:
    text = '{"id": "a", "question": "q"}\n{"id": "b", "question": "q", "user_input": "q"}\n'
    err = load_error(write(tmp_path, "set.jsonl", text))
    assert err.line == 2
    assert err.field == "user_input"
    assert "both 'question' and 'user_input'" in err.message


def test_assigned_id_colliding_with_a_given_id(tmp_path: Path) -> None:
    text = '{"id": "2", "question": "q1"}\n{"question": "q2"}\n'
    err = load_error(write(tmp_path, "set.jsonl", text))
    assert (err.line, err.field) == (2, "id")
    assert "first used at line 1" in err.message
    assert "no id" in err.message
    text = '{"question": "q1"}\n{"id": "1", "question": "q2"}\n'
    err = load_error(write(tmp_path, "set.jsonl", text))
    assert (err.line, err.field) == (2, "id")
    assert "first used at line 1); that record has no id" in err.message


# --- errors: file level -------------------------------------------------------------------


def test_file_not_found(tmp_path: Path) -> None:
    err = load_error(tmp_path / "missing.jsonl")
    assert "file not found" in err.message
    assert err.line is None


def test_unsupported_extension(tmp_path: Path) -> None:
    err = load_error(write(tmp_path, "set.txt", "hello"))
    assert "unsupported file type '.txt'" in err.message
    assert ".jsonl" in err.message


def test_invalid_utf8_names_the_line(tmp_path: Path) -> None:
    data = b'{"id": "a", "question": "ok"}\n{"id": "b", "question": "caf\xe9"}\n'
    err = load_error(write(tmp_path, "set.jsonl", data))
    assert err.line == 2
    assert "not valid UTF-8" in err.message
    assert "0xe9" in err.message


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("e.jsonl", "\n\n"),
        ("e.json", "  \n"),
        ("e.json", "[]"),
        ("e.json", '{"cases": []}'),
        ("e.yaml", "# nothing\n"),
        ("e.csv", "id,question\n"),
        ("e.csv", ""),
    ],
)
def test_empty_file(tmp_path: Path, name: str, text: str) -> None:
    err = load_error(write(tmp_path, name, text))
    assert "no cases" in err.message


# --- errors: syntax, with the real line ---------------------------------------------------


def test_invalid_jsonl_line(tmp_path: Path) -> None:
    text = '{"id": "a", "question": "q"}\n\n{"id": "b", "question": "q",}\n'
    err = load_error(write(tmp_path, "set.jsonl", text))
    assert err.line == 3
    assert "invalid JSON" in err.message
    assert str(err).startswith(f"{tmp_path / 'set.jsonl'}:3: ")


def test_invalid_json_line(tmp_path: Path) -> None:
    text = '[\n  {"id": "a", "question": "q"},\n  {"id": "b" "question": "q"}\n]\n'
    err = load_error(write(tmp_path, "set.json", text))
    assert err.line == 3
    assert "invalid JSON" in err.message


def test_json_trailing_comma(tmp_path: Path) -> None:
    text = '[\n  {"id": "a", "question": "q"},\n]\n'
    err = load_error(write(tmp_path, "set.json", text))
    assert err.line == 3


def test_json_wrong_top_level(tmp_path: Path) -> None:
    err = load_error(write(tmp_path, "set.json", '{"items": []}'))
    assert 'no "cases" key (keys: items)' in err.message
    err = load_error(write(tmp_path, "set.json", '"just text"'))
    assert "top level must be a list" in err.message


def test_invalid_yaml_line(tmp_path: Path) -> None:
    text = "- id: a\n  question: q\n- id: b\n  question: [unclosed\n  ground_truth: x\n"
    err = load_error(write(tmp_path, "set.yaml", text))
    assert "invalid YAML" in err.message
    assert err.line == 5  # where the parser notices the list never closed
    text = "- id: a\n  question: q\n   bad: indentation\n"
    err = load_error(write(tmp_path, "set.yaml", text))
    assert err.line == 3


def test_duplicate_keys_are_errors(tmp_path: Path) -> None:
    err = load_error(write(tmp_path, "set.jsonl", '{"id": "a", "question": "q", "id": "b"}\n'))
    assert (err.line, err.field) == (1, "id")
    text = (
        '[\n  {"id": "a", "question": "q"},\n'
        '  {"id": "b",\n   "question": "x",\n   "question": "y"}\n]'
    )
    err = load_error(write(tmp_path, "set.json", text))
    assert (err.line, err.field) == (3, "question")
    err = load_error(write(tmp_path, "set.yaml", "- id: a\n  question: q\n  question: r\n"))
    assert (err.line, err.field) == (3, "question")
    err = load_error(write(tmp_path, "set.csv", "id,question,id\na,q,b\n"))
    assert (err.line, err.field) == (1, "id")


def test_csv_row_with_too_many_cells(tmp_path: Path) -> None:
    text = 'id,question\na,"multi\nline"\nb,what is 1,000?\n'
    err = load_error(write(tmp_path, "set.csv", text))
    assert err.line == 4
    assert "3 cells but the header has 2 columns" in err.message


def test_csv_bad_json_cell(tmp_path: Path) -> None:
    text = 'id,question,history\na,"two\nlines",\nb,q,[not json\n'
    err = load_error(write(tmp_path, "set.csv", text))
    assert (err.line, err.field) == (4, "history")
    assert "not valid JSON" in err.message


def test_record_that_is_not_an_object(tmp_path: Path) -> None:
    err = load_error(write(tmp_path, "set.jsonl", '{"id": "a", "question": "q"}\n["q2"]\n'))
    assert err.line == 2
    assert "record 2 is a list, not an object" in err.message
    err = load_error(write(tmp_path, "set.yaml", "- id: a\n  question: q\n- just text\n"))
    assert err.line == 3


# --- errors: fields, same mistake in every format -----------------------------------------

# The third record lacks a question; it starts on the given line in each file.
MISSING_QUESTION = {
    "m.jsonl": ('{"id": "a", "question": "q"}\n{"id": "b", "question": "q"}\n{"id": "c"}\n', 3),
    "m.json": (
        '[\n  {"id": "a", "question": "q"},\n  {\n    "id": "b",\n    "question": "q"\n  },\n'
        '  {\n    "id": "c",\n    "ground_truth": "g"\n  }\n]\n',
        7,
    ),
    "m.yaml": ("- id: a\n  question: q\n\n- id: b\n  question: q\n- id: c\n  ground_truth: g\n", 6),
    "m.csv": ('id,question,ground_truth\na,q,"x\ny"\nb,q,\n\nc,,g\n', 6),
}


@pytest.mark.parametrize("name", sorted(MISSING_QUESTION))
def test_missing_question_line_in_every_format(tmp_path: Path, name: str) -> None:
    text, line = MISSING_QUESTION[name]
    err = load_error(write(tmp_path, name, text))
    assert (err.line, err.field) == (line, "question")
    assert "missing question" in err.message
    assert str(err) == f"{tmp_path / name}:{line}: field 'question': {err.message}"


# The second record has a history that is not a list.
BAD_HISTORY = {
    "h.jsonl": ('{"id": "a", "question": "q"}\n{"id": "b", "question": "q", "history": "hi"}\n', 2),
    "h.json": (
        '{"cases": [\n  {"id": "a", "question": "q"},\n\n  {"id": "b", "question": "q",\n'
        '   "history": {"role": "user"}}\n]}\n',
        4,
    ),
    "h.yaml": ("- id: a\n  question: q\n- id: b\n  question: q\n  history: hello\n", 3),
    "h.csv": ('id,question,history\na,q,\nb,q,"""hello"""\n', 3),
}


@pytest.mark.parametrize("name", sorted(BAD_HISTORY))
def test_history_not_a_list_in_every_format(tmp_path: Path, name: str) -> None:
    text, line = BAD_HISTORY[name]
    err = load_error(write(tmp_path, name, text))
    assert (err.line, err.field) == (line, "history")
    assert "valid list" in err.message
    assert "alternating user, assistant" in err.message


def test_empty_question(tmp_path: Path) -> None:
    err = load_error(write(tmp_path, "set.jsonl", '{"id": "a", "question": "   "}\n'))
    assert (err.line, err.field) == (1, "question")
    assert "empty question" in err.message


def test_missing_question_names_the_ragas_alias(tmp_path: Path) -> None:
    err = load_error(write(tmp_path, "set.jsonl", '{"user_input": ""}\n'))
    assert err.field == "user_input"


def test_nested_field_path(tmp_path: Path) -> None:
    text = '{"id": "a", "question": "q", "history": [{"role": "user", "content": "x"}, {"role": "bot", "content": "y"}]}\n'  # noqa: E501
    err = load_error(write(tmp_path, "set.jsonl", text))
    assert (err.line, err.field) == (1, "history.1.role")
    assert "'user' or 'assistant'" in err.message


def test_category_not_a_string(tmp_path: Path) -> None:
    err = load_error(write(tmp_path, "set.yaml", "- id: a\n  question: q\n  category: 3\n"))
    assert (err.line, err.field) == (1, "category")
    assert "got a number 3" in err.message
    assert "quote the value" in err.message


def test_yaml_boolean_where_text_is_expected(tmp_path: Path) -> None:
    err = load_error(
        write(tmp_path, "set.yaml", "- id: a\n  question: Is it open?\n  ground_truth: yes\n")
    )
    assert err.field == "ground_truth"
    assert "got a boolean True" in err.message


def test_bad_lang(tmp_path: Path) -> None:
    err = load_error(write(tmp_path, "set.jsonl", '{"id": "a", "question": "q", "lang": "fr"}\n'))
    assert err.field == "lang"
    assert "'en' or 'zh'" in err.message


def test_unknown_field_lists_allowed_fields(tmp_path: Path) -> None:
    text = '{"id": "a", "question": "q"}\n{"id": "b", "question": "q", "groundtruth": "x"}\n'
    err = load_error(write(tmp_path, "set.jsonl", text))
    assert (err.line, err.field) == (2, "groundtruth")
    assert "did you mean 'ground_truth'?" in err.message
    assert "allowed fields: id, question, ground_truth, category, history" in err.message
    assert "user_input for question" in err.message


def test_duplicate_ids_name_both_lines(tmp_path: Path) -> None:
    text = "- id: a\n  question: q1\n- id: b\n  question: q2\n- id: a\n  question: q3\n"
    err = load_error(write(tmp_path, "set.yaml", text))
    assert (err.line, err.field) == (5, "id")
    assert "duplicate id 'a' (first used at line 1)" in err.message


def test_read_records_reports_lines(tmp_path: Path) -> None:
    path = write(tmp_path, "r.csv", 'id,answer\n\na,"x\ny"\nb,z\n')
    records = read_records(path)
    assert [(r.number, r.line, r.data) for r in records] == [
        (1, 3, {"id": "a", "answer": "x\ny"}),
        (2, 5, {"id": "b", "answer": "z"}),
    ]
