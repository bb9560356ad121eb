"""Fuzzing the loaders (issue 13): damaged and hostile JSONL, JSON, YAML and CSV files either
load, into values that results.json can hold, or are refused with one line naming the file (and
the line and field where there is one): a CaseFileError, never another exception or a hang.
Each file goes through the eval-set loader and the answers-file loader.

A seeded generator (no dependency; the same inputs on every run) mutates valid files: cut
short, random bytes, deleted or repeated spans, syntax characters, BOMs, invalid UTF-8, CR line
ends, and values swapped for wrong types, huge numbers, NaN, lone surrogates, deep nesting,
YAML tags and aliases, long CSV cells. 100 files per format, 400 in all, 800 loads, in about
a second.
"""

from __future__ import annotations

import asyncio
import json
import random
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ragmeter._exceptions import CaseFileError
from ragmeter.cases import Case, load_cases
from ragmeter.pipeline import AnswersFilePipeline

SEED = 20261203
PER_FORMAT = 100
FORMATS = ("jsonl", "json", "yaml", "csv")
SLOWEST_INPUT = 5.0
"""Seconds one input may take before it counts as a hang."""

FIELDS = ("id", "question", "ground_truth", "contexts", "answer", "metadata", "category", "lang")
CSV_JSON = ("contexts", "metadata")


def base_records() -> list[dict[str, Any]]:
    return [
        {
            "id": "q1",
            "question": "How long are deleted notes kept?",
            "ground_truth": "Deleted notes stay 30 days.",
            "contexts": ["Deleted notes stay in the trash for 30 days.", "Export as Markdown."],
            "answer": "30 days.",
            "metadata": {"source": "faq", "tags": ["trash", 1, None, 2.5]},
            "category": "normal",
            "lang": "en",
        },
        {
            "id": "q2",
            "question": "删除的笔记保留多久？",
            "ground_truth": "30天。",
            "contexts": ["删除的笔记保留30天。"],
            "answer": "30天。",
        },
        {
            "id": 3,
            "question": "Can I export?",
            "contexts": [],
            "answer": "",
            "metadata": {"deep": {"er": [{"est": True}]}},
        },
    ]


class Raw(str):
    """Text written into the file as it is (a number, a tag, brackets), not as a string."""


def raw_values(fmt: str, rng: random.Random) -> list[Any]:
    """Values of the wrong type or shape for a field, in the syntax of `fmt`."""
    depth = rng.choice([10, 63, 64, 65, 66, 200, 3000, 100_000])
    values: list[Any] = [
        1,
        -7.5,
        True,
        None,
        [],
        {},
        ["a", 1, None],
        {"a": [1, {"b": "c"}]},
        "x" * rng.choice([1, 5000, 200_000]),
        "\u202e\u0000\x1b[2J",
        Raw("9" * rng.choice([4300, 4301, 20_000])),
        Raw("1e999"),
        Raw("-1e400"),
        Raw("1" + "0" * 400 + ".5"),
        Raw("-0"),
    ]
    if fmt in ("json", "jsonl"):
        values += [
            Raw("NaN"),
            Raw("-Infinity"),
            Raw('"\\ud800"'),
            Raw('"a\\udfffb"'),
            Raw('"\\u0000"'),
            Raw("[" * depth + "]" * depth),
            Raw('{"a":' * depth + "1" + "}" * depth),
            Raw("[" * depth),
        ]
    elif fmt == "yaml":
        values += [
            Raw(".nan"),
            Raw("-.inf"),
            Raw("!!binary aGVsbG8="),
            Raw("!!set {a, b}"),
            Raw("!!python/object/apply:os.system ['true']"),
            Raw("2024-13-45"),
            Raw("2024-01-01"),
            Raw("!!int x"),
            Raw("*nowhere"),
            Raw("&a [1, 2]"),
            Raw("0o777"),
            Raw('"\\ud800"'),
            Raw("[" * depth + "]" * depth),
            Raw("{a: " * min(depth, 2000) + "1" + "}" * min(depth, 2000)),
        ]
    else:  # csv: raw cell text
        values += [
            Raw('"unclosed'),
            Raw('"a"b'),
            Raw("a,b,c"),
            Raw('"' + "x" * 140_000 + '"'),
            Raw("[" * depth + "]" * depth),
            Raw("['a', 'b']"),
            Raw("{'a': (1,)}"),
            Raw("\x00"),
            Raw('"line\nbreak"'),
            Raw("NaN"),
        ]
    return values


def render(fmt: str, records: list[dict[str, Any]]) -> str:
    """`records` as a file of `fmt`, Raw values written as they are."""
    raws: dict[str, str] = {}

    def token(value: Any) -> Any:
        if isinstance(value, Raw):
            key = f"@@RAW{len(raws)}@@"
            raws[key] = str(value)
            return key
        if isinstance(value, list):
            return [token(v) for v in value]
        if isinstance(value, dict):
            return {k: token(v) for k, v in value.items()}
        return value

    def restore(text: str, quote: str) -> str:
        for key, raw in raws.items():
            text = text.replace(f"{quote}{key}{quote}", raw).replace(key, raw)
        return text

    records = [token(r) for r in records]
    if fmt == "jsonl":
        return restore("\n".join(json.dumps(r, ensure_ascii=False) for r in records), '"')
    if fmt == "json":
        return restore(json.dumps({"cases": records}, ensure_ascii=False, indent=1), '"')
    if fmt == "yaml":
        lines = []
        for r in records:
            for i, (k, v) in enumerate(r.items()):
                lead = "- " if i == 0 else "  "
                lines.append(f"{lead}{k}: {json.dumps(v, ensure_ascii=False)}")
            if not r:
                lines.append("- {}")
        return restore("\n".join(lines) + "\n", '"')
    header = sorted({k for r in records for k in r}, key=lambda k: (k not in FIELDS, k))
    rows = [",".join(header)]
    for r in records:
        cells = []
        for name in header:
            v = r.get(name, "")
            if name in CSV_JSON and not isinstance(v, str):
                v = json.dumps(v, ensure_ascii=False)
            elif not isinstance(v, str):
                v = json.dumps(v)
            cells.append(v if v.startswith("@@RAW") else '"' + v.replace('"', '""') + '"')
        rows.append(",".join(cells))
    return restore("\r\n".join(rows) + "\r\n", "")


SYNTAX = {
    "jsonl": '{}[]:,"\\\n',
    "json": '{}[]:,"\\\n',
    "yaml": "-:[]{}&*!|>'\"#%@`\n\t?,",
    "csv": '",\n\r',
}


def mutate_bytes(fmt: str, data: bytes, rng: random.Random) -> bytes:
    """One byte-level damage."""
    n = len(data)
    at = rng.randrange(n + 1)
    kind = rng.randrange(10)
    if kind == 0:  # cut short
        return data[:at]
    if kind == 1:  # random bytes
        return data[:at] + rng.randbytes(rng.randint(1, 8)) + data[at:]
    if kind == 2:  # delete a span
        return data[:at] + data[at + rng.randint(1, 40) :]
    if kind == 3:  # repeat a span
        span = data[at : at + rng.randint(1, 60)]
        return data[:at] + span * rng.randint(2, 4) + data[at:]
    if kind == 4:  # a syntax character
        char = rng.choice(SYNTAX[fmt]).encode()
        return data[:at] + char + data[at + rng.randint(0, 1) :]
    if kind == 5:  # a BOM, or UTF-16 altogether
        return rng.choice(
            [
                b"\xef\xbb\xbf" + data,
                b"\xef\xbb\xbf\xef\xbb\xbf" + data,
                b"\xff\xfe" + data.decode("utf-8", "replace").encode("utf-16-le"),
                data[:at] + b"\xef\xbb\xbf" + data[at:],
            ]
        )
    if kind == 6:  # invalid UTF-8: a stray continuation, a cut sequence, an encoded surrogate
        bad = rng.choice([b"\x80", b"\xc3", b"\xc3\x28", b"\xed\xa0\x80", b"\xf4\x90\x80\x80"])
        return data[:at] + bad + data[at:]
    if kind == 7:  # other line ends
        return data.replace(b"\n", rng.choice([b"\r", b"\r\n", b"\n\n", b"\x0b", b"\xe2\x80\xa8"]))
    if kind == 8:  # NUL bytes and control characters
        return data[:at] + rng.choice([b"\x00", b"\x1b[2J", b"\x7f", b"\x0c"]) + data[at:]
    return data  # left whole: the value mutations alone


def mutate_records(fmt: str, records: list[dict[str, Any]], rng: random.Random) -> None:
    """Swap a field's value for a hostile one, drop a field or a record, or add an odd key."""
    kind = rng.randrange(5)
    record = rng.choice(records)
    if kind <= 1:
        record[rng.choice(FIELDS)] = rng.choice(raw_values(fmt, rng))
    elif kind == 2 and record:
        del record[rng.choice(list(record))]
    elif kind == 3:
        record[rng.choice(["cases", "unknown", "", " id", "ID", "user_input", "reference"])] = (
            rng.choice(raw_values(fmt, rng))
        )
    elif len(records) > 1:
        records.remove(record)


def inputs(seed: int = SEED) -> Iterator[tuple[str, bytes]]:
    """(format, file content) pairs: PER_FORMAT per format, each with 1 to 3 damages."""
    rng = random.Random(seed)
    for fmt in FORMATS:
        for _ in range(PER_FORMAT):
            records = base_records()
            for _ in range(rng.choice([0, 1, 1, 2])):
                mutate_records(fmt, records, rng)
            data = render(fmt, records).encode("utf-8", "surrogatepass")
            for _ in range(rng.choice([0, 1, 1, 2, 3])):
                data = mutate_bytes(fmt, data, rng)
            yield fmt, data


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise TimeoutError in the main thread after `seconds` (a hang becomes a failure)."""

    def expire(_signum: int, _frame: object) -> None:
        raise TimeoutError(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def load_answers(path: Path) -> list[BaseModel]:
    """Every answer of an answers file, as `run --answers` gives them to the runner."""
    pipeline = AnswersFilePipeline(path)

    async def answers() -> list[BaseModel]:
        return [await pipeline.run(Case(id=i, question="?")) for i in sorted(pipeline.ids)]

    return asyncio.run(answers())


LOADERS: dict[str, Callable[[Path], list[Any]]] = {
    "eval set": load_cases,
    "answers": load_answers,
}


def savable(loaded: list[BaseModel]) -> None:
    """What loaded must survive results.json: strict JSON (no NaN), encodable as UTF-8."""
    text = json.dumps(
        [item.model_dump(mode="json") for item in loaded], allow_nan=False, ensure_ascii=False
    )
    text.encode("utf-8")


def check(path: Path, load: Callable[[Path], list[Any]]) -> str:
    """'loaded' or 'refused'; fails on anything else."""
    try:
        with deadline(SLOWEST_INPUT):
            savable(load(path))
    except CaseFileError as exc:
        message = str(exc)
        assert message.startswith(f"{path}"), message[:300]
        assert "\n" not in message and "\r" not in message, message[:300]
        assert len(message) < 2000, message[:300]
        return "refused"
    return "loaded"


def test_fuzzed_files_load_or_are_refused_with_one_located_line(tmp_path):
    """400 files (100 per format), each through both loaders: 800 loads."""
    outcomes = {name: {"loaded": 0, "refused": 0} for name in LOADERS}
    started = time.monotonic()
    tried = 0
    for i, (fmt, data) in enumerate(inputs()):
        path = tmp_path / f"case{i:03d}.{fmt}"
        path.write_bytes(data)
        for name, load in LOADERS.items():
            try:
                outcomes[name][check(path, load)] += 1
            except Exception as exc:  # name the input, to replay it
                raise AssertionError(
                    f"input {i} ({fmt}, {len(data)} bytes, kept at {path}), {name} loader: "
                    f"{type(exc).__name__}: {str(exc)[:300]}"
                ) from exc
        tried += 1
    elapsed = time.monotonic() - started
    summary = f"{tried} files tried, {tried * len(LOADERS)} loads, in {elapsed:.1f} s: {outcomes}"
    print(summary)
    assert tried == len(FORMATS) * PER_FORMAT, summary
    # Both outcomes occur: the mutations neither break everything nor nothing.
    for counts in outcomes.values():
        assert counts["loaded"] >= 20 and counts["refused"] >= 100, summary
