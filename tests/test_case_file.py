"""A .jsonl eval set read lazily (open_cases, CaseFile, issue 16): the same cases and the same
errors as load_cases, in memory that does not grow with the file."""

from __future__ import annotations

import json
import random
import threading
import tracemalloc
from pathlib import Path

import pytest

from ragmeter._exceptions import CaseFileError
from ragmeter.cases import Case, CaseFile, assigned_ids, load_cases, open_cases
from ragmeter.cases import _file as case_file
from test_fuzz_loaders import SEED, inputs


def write(tmp_path: Path, name: str, data: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
    return path


def outcome(load: object, path: Path) -> list[Case] | str:
    """The cases loaded (as a list), or the text of the CaseFileError."""
    try:
        return list(load(path))  # type: ignore[operator]
    except CaseFileError as exc:
        return str(exc)


def assert_same(path: Path) -> list[Case] | str:
    """load_cases and open_cases agree on `path`: equal cases, or the same error."""
    expected = outcome(load_cases, path)
    assert outcome(open_cases, path) == expected, path.read_bytes()[:300]
    if not isinstance(expected, str):
        assert assigned_ids(open_cases(path)) == assigned_ids(load_cases(path))
    return expected


VALID = (
    "\ufeff"  # a BOM
    '{"id": "q1", "question": "Refund window?", "ground_truth": "30 days.", '
    '"contexts": ["Refunds within 30 days.", "Ship in 2 days."], "answer": "30 days."}\r\n'
    "\n"
    '   \t\n{"question": "no id: numbered 2", "metadata": {"tags": ["a", 1, null, 2.5]}}\n'
    '{"user_input": "RAGAS names", "reference": "r", "retrieved_contexts": ["c"], '
    '"response": "a", "rubrics": {"x": 1}, "id": 7}\n'
    '{"id": "q4", "question": "and sale items?", "category": "multi_turn", '
    '"history": ["Refund window?", "30 days."], "lang": "en"}'  # no final line break
)


def test_cases_equal_those_of_load_cases(tmp_path: Path) -> None:
    path = write(tmp_path, "set.jsonl", VALID)
    expected = load_cases(path)
    cases = open_cases(path)
    assert isinstance(cases, CaseFile)
    with cases:
        assert len(cases) == len(expected) == 4
        assert [cases[i] for i in range(4)] == expected
        assert list(cases) == expected
        assert cases == expected
        assert cases[-1] == expected[-1]
        assert cases[1:3] == expected[1:3]
        assert cases[::-1] == expected[::-1]
        assert assigned_ids(cases) == ["2"]
        assert assigned_ids([cases[1]]) == ["2"]
        assert assigned_ids([cases[0], cases[2]]) == []
        assert repr(cases) == f"CaseFile('{path}', 4 cases)"
        with pytest.raises(IndexError):
            cases[4]
        with pytest.raises(IndexError):
            cases[-5]


def test_each_access_reads_a_new_case(tmp_path: Path) -> None:
    cases = open_cases(write(tmp_path, "set.jsonl", VALID))
    first, again = cases[0], cases[0]
    assert first == again and first is not again
    first.contexts.append("changed")  # type: ignore[union-attr]
    assert cases[0] == again


def test_open_cases_reads_other_formats_whole(tmp_path: Path) -> None:
    text = '[{"id": "a", "question": "q"}]'
    assert open_cases(write(tmp_path, "set.json", text)) == [Case(id="a", question="q")]
    assert type(open_cases(write(tmp_path, "set.json", text))) is list
    assert type(open_cases(write(tmp_path, "set.csv", "id,question\na,q\n"))) is list
    upper = write(tmp_path, "SET.JSONL", '{"id": "a", "question": "q"}\n')
    assert isinstance(open_cases(upper), CaseFile)


def test_a_path_from_the_home_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    write(tmp_path, "set.jsonl", '{"id": "a", "question": "q"}\n')
    cases = open_cases("~/set.jsonl")
    assert isinstance(cases, CaseFile) and cases.path == tmp_path / "set.jsonl"
    assert cases == [Case(id="a", question="q")]


# --- the same errors -------------------------------------------------------------------------

BAD = {
    "empty": "",
    "blank lines only": "\n \n\t\n",
    "a BOM only": "\ufeff\n",
    "invalid JSON": '{"id": "a", "question": "q"}\n\n{"id": "b", "question": "q",}\n',
    "unterminated string": '{"id": "a", "question": "q\n',
    "trailing text": '{"id": "a", "question": "q"} x\n',
    "a second BOM": "\ufeff\ufeff" + '{"id": "a", "question": "q"}\n',
    "a BOM on line 2": '{"id": "a", "question": "q"}\n\ufeff{"id": "b", "question": "q"}\n',
    "key twice": '{"id": "a", "question": "q", "id": "b"}\n',
    "too deep": '{"id": "a", "question": "q", "metadata": ' + "[" * 70 + "]" * 70 + "}\n",
    "too deep for the parser": '{"metadata": ' + "[" * 100_000 + "\n",
    "a huge number": '{"id": "a", "question": "q", "metadata": {"n": ' + "9" * 5000 + "}}\n",
    "not an object": '{"id": "a", "question": "q"}\n["q2"]\n',
    "NaN": '{"id": "a", "question": "q", "metadata": {"x": [1, NaN]}}\n',
    "a lone surrogate": '{"id": "a", "question": "\\ud800"}\n',
    "a lone surrogate in a key": '{"id": "a", "question": "q", "metadata": {"\\udfff": 1}}\n',
    "missing question": '{"id": "a", "question": "q"}\n{"id": "b"}\n',
    "empty question": '{"id": "a", "question": "   "}\n',
    "empty RAGAS question": '{"user_input": ""}\n',
    "empty id": '{"id": " ", "question": "q"}\n',
    "name and alias": '{"id": "a", "question": "q", "user_input": "q"}\n',
    "unknown field": '{"id": "a", "question": "q", "contxts": []}\n',
    "wrong type": '{"id": "a", "question": "q", "contexts": "one"}\n',
    "bad lang": '{"id": "a", "question": "q", "lang": "fr"}\n',
    "boolean id": '{"id": true, "question": "q"}\n',
    "duplicate ids": '{"id": "a", "question": "q"}\n{"id": "b", "question": "q"}\n'
    '{"id": "a", "question": "q"}\n',
    "numbered id taken": '{"id": "2", "question": "q"}\n{"question": "q"}\n',
    "id of a numbered record": '{"question": "q"}\n{"id": "1", "question": "q"}\n',
    # More than one problem: load_cases reports the earliest kind (encoding, JSON, values,
    # case), the first of that kind; a single pass must keep looking to report the same one.
    "case then JSON": '{"id": "a"}\n{"id": "b", "question": "q"\n',
    "values then JSON": '{"question": NaN}\n{"id": "b", "question": "q"\n',
    "case then values": '{"id": "a"}\n{"id": "b", "question": "q", "metadata": {"x": NaN}}\n',
    "duplicate then not an object": '{"id": "a", "question": "q"}\n{"id": "a", "question": "q"}'
    "\n3\n",
    "JSON then another JSON": '{"id": "a",\n{"id": "b",\n',
    "case then another case": '{"id": "a"}\n{"id": "b", "question": 1}\n',
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_files_give_the_error_of_load_cases(tmp_path: Path, name: str) -> None:
    error = assert_same(write(tmp_path, "set.jsonl", BAD[name]))
    assert isinstance(error, str), "expected a CaseFileError"
    assert error.startswith(f"{tmp_path / 'set.jsonl'}")


def test_load_cases_finds_a_repeated_id_on_the_line_of_its_first_use(tmp_path: Path) -> None:
    """The duplicate-id check shared with load_cases: two records of a JSON file can start on
    one line."""
    text = '[{"id": "a", "question": "q"}, {"id": "a", "question": "q"}]'
    with pytest.raises(CaseFileError, match="duplicate id 'a' \\(first used at line 1\\)"):
        load_cases(write(tmp_path, "set.json", text))


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("invalid UTF-8", b'{"id": "a", "question": "ok"}\n{"id": "b", "question": "caf\xe9"}\n'),
        ("a cut sequence at a line end", b'{"id": "a", "question": "\xe4\xb8\n"}\n'),
        ("an encoded surrogate", b'{"id": "a", "question": "\xed\xa0\x80"}\n'),
        ("a cut sequence at the end", b'{"id": "a", "question": "q"}\n\xf0\x9f'),
        ("UTF-16", '{"id": "a", "question": "q"}\n'.encode("utf-16")),
        ("JSON then UTF-8", b'{"id": "a",\n{"id": "b", "question": "\xff"}\n'),
        ("case then UTF-8", b'{"id": "a"}\n{"id": "b", "question": "q"}\n\x80\n'),
    ],
)
def test_encoding_errors_are_those_of_load_cases(tmp_path: Path, name: str, data: bytes) -> None:
    error = assert_same(write(tmp_path, "set.jsonl", data))
    assert isinstance(error, str) and "not valid UTF-8" in error


def test_unreadable_paths_give_the_error_of_load_cases(tmp_path: Path) -> None:
    assert "file not found" in str(assert_same(tmp_path / "missing.jsonl"))
    (tmp_path / "folder.jsonl").mkdir()
    assert "is a directory" in str(assert_same(tmp_path / "folder.jsonl"))
    assert "unsupported file type" in str(assert_same(write(tmp_path, "set.txt", "{}")))


def test_fuzzed_files_give_the_outcome_of_load_cases(tmp_path: Path) -> None:
    """The damaged and hostile JSONL files of the loader fuzz test (issue 13), 500 of them."""
    tried = refused = 0
    for seed in range(SEED, SEED + 5):
        for i, (fmt, data) in enumerate(inputs(seed)):
            if fmt != "jsonl":
                continue
            refused += isinstance(assert_same(write(tmp_path, f"f{seed}-{i}.jsonl", data)), str)
            tried += 1
    assert tried == 500 and 100 < refused < 500


def test_mixed_lines_give_the_outcome_of_load_cases(tmp_path: Path) -> None:
    """Files of good and bad lines of every kind, shuffled: several problems in one file."""
    lines = [
        b'{"id": "a", "question": "q"}',
        b'{"id": "b", "question": "q", "contexts": ["c"], "answer": "x"}',
        b'{"question": "numbered"}',
        b'{"id": "1", "question": "q"}',
        b"",
        b"  \r",
        b'{"id": "a", "question": "q",}',
        b'{"id": "c", "question": "q", "id": "d"}',
        b"[1, 2]",
        b'{"id": "e", "question": NaN}',
        b'{"id": "f"}',
        b'{"id": "g", "question": "q", "lang": "xx"}',
        b'{"id": "h", "question": "caf\xe9"}',
        b'\xef\xbb\xbf{"id": "i", "question": "q"}',
    ]
    rng = random.Random(SEED)
    loaded = 0
    for n in range(300):
        chosen = rng.choices(lines, weights=[8, 8, 4, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1], k=6)
        data = b"\n".join(chosen[: rng.randint(1, 6)])
        loaded += not isinstance(assert_same(write(tmp_path, f"m{n}.jsonl", data)), str)
    assert 10 < loaded < 290


# --- reading from the file -------------------------------------------------------------------


def test_a_record_changed_after_loading_is_an_error(tmp_path: Path) -> None:
    path = write(
        tmp_path, "set.jsonl", '{"id": "a", "question": "q"}\n{"id": "b", "question": "q"}\n'
    )
    cases = open_cases(path)
    with path.open("r+b") as file:  # the same length, other bytes
        file.seek(len(b'{"id": "a", "question": "q"}\n{"id": "'))
        file.write(b"c")
    assert cases[0].id == "a"
    with pytest.raises(CaseFileError) as info:
        cases[1]
    assert info.value.line == 2 and "changed after it was loaded" in info.value.message
    path.write_text("", encoding="utf-8")  # cut short
    with pytest.raises(CaseFileError, match=r"set\.jsonl:1: the file changed"):
        cases[0]


def test_close_and_the_with_block(tmp_path: Path) -> None:
    path = write(tmp_path, "set.jsonl", VALID)
    with CaseFile(path) as cases:
        assert cases[0].id == "q1"
    with pytest.raises(ValueError, match="is closed"):
        cases[0]
    cases.close()  # twice is fine
    assert len(cases) == 4  # what was learnt while loading stays


def test_a_bad_file_is_closed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened = []
    real_open = Path.open

    def spy(self: Path, *args: object, **kwargs: object) -> object:
        file = real_open(self, *args, **kwargs)  # type: ignore[call-overload]
        opened.append(file)
        return file

    path = write(tmp_path, "set.jsonl", '{"id": "a"}\n')
    monkeypatch.setattr(Path, "open", spy)
    with pytest.raises(CaseFileError):
        CaseFile(path)
    assert len(opened) == 1 and opened[0].closed


def test_concurrent_reads_give_the_right_cases(tmp_path: Path) -> None:
    rows = [{"id": f"c{i}", "question": f"q{i}", "contexts": ["x" * (i % 50)]} for i in range(400)]
    path = write(tmp_path, "set.jsonl", "\n".join(json.dumps(r) for r in rows))
    cases = open_cases(path)
    wrong: list[str] = []

    def reader(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(300):
            i = rng.randrange(len(rows))
            case = cases[i]
            if case.id != f"c{i}" or case.contexts != rows[i]["contexts"]:
                wrong.append(f"{i}: {case.id}")

    threads = [threading.Thread(target=reader, args=(seed,)) for seed in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []


def test_memory_does_not_grow_with_the_file(tmp_path: Path) -> None:
    """Loading keeps four integers a case (and ids while it checks them), not the text."""
    context = "Deleted notes stay in the trash for 30 days, then they are removed for good. " * 5
    rows = (
        {
            "id": f"case-{i:05d}",
            "question": f"How long are notes kept? ({i})",
            "contexts": [context] * 5,
            "answer": "30 days.",
        }
        for i in range(3000)
    )
    path = write(tmp_path, "big.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    size = path.stat().st_size
    assert size > 5_000_000
    tracemalloc.start()
    try:
        cases = open_cases(path)
        for case in cases:
            assert case.answer == "30 days."
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(cases) == 3000
    assert peak < size / 10, f"peak {peak:,} bytes for a file of {size:,}"


def test_ids_with_equal_hashes_are_told_apart_in_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Loading keeps the ids' hashes only: when every id hashes alike, each repeat of a hash
    is looked up in the file, and the outcome is still load_cases's."""
    monkeypatch.setattr(case_file, "hash", lambda _: 0, raising=False)
    looked_up: list[str] = []
    first_use = CaseFile._first_use

    def spy(self: CaseFile, case_id: str) -> tuple[int, bool] | None:
        looked_up.append(case_id)
        return first_use(self, case_id)

    monkeypatch.setattr(CaseFile, "_first_use", spy)
    assert len(assert_same(write(tmp_path, "set.jsonl", VALID))) == 4
    for name in ("duplicate ids", "numbered id taken", "id of a numbered record", "case then JSON"):
        assert isinstance(assert_same(write(tmp_path, "bad.jsonl", BAD[name])), str)
    rows = "".join(json.dumps({"id": f"c{i}", "question": "q"}) + "\n" for i in range(50))
    cases = open_cases(write(tmp_path, "many.jsonl", rows + '{"question": "q"}\n'))
    assert [case.id for case in cases] == [f"c{i}" for i in range(50)] + ["51"]
    assert looked_up[-50:] == [f"c{i}" for i in range(1, 50)] + ["51"]


def test_hash_set() -> None:
    seen = case_file._HashSet()
    values = [0, 1, -1, 2**63 - 1, -(2**63), *range(2, 5000, 3), *range(-9000, -2, 7)]
    assert all(seen.add(value) for value in values[1:])  # 0 stands for 1: already there
    assert not seen.add(0)
    assert not any(seen.add(value) for value in values)
    assert len(seen._slots) >= 2 * len(values) - 2
