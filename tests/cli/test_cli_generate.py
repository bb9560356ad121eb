"""`ragmeter generate DOCS_DIR -o OUT.jsonl` through the CLI (extractive mode)."""

from pathlib import Path

from typer.testing import CliRunner

from ragmeter.cases import load_cases
from ragmeter.cli import app
from ragmeter.demo.corpus import DATA_DIR

runner = CliRunner()
CORPUS = DATA_DIR / "corpus"


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_generate_writes_a_set_that_loads_and_lints_and_says_what_it_made(tmp_path: Path) -> None:
    out = tmp_path / "gen.jsonl"
    result = invoke("generate", CORPUS, "-o", out, "--n", "30", "--seed", "3")
    assert result.exit_code == 0, result.output
    assert f"wrote 30 cases to {out} (normal " in result.output
    assert "from 73 documents" in result.output and "extractive mode" in result.output
    assert f"next: review {out}, then ragmeter lint {out}" in result.output
    cases = load_cases(out)
    assert {c.category for c in cases} == {"normal", "typo", "multi_turn", "out_of_scope"}
    assert {c.lang for c in cases} == {"en", "zh"}
    lint = invoke("lint", out)
    assert lint.exit_code == 0, lint.output
    again = tmp_path / "again.jsonl"
    invoke("generate", CORPUS, "-o", again, "--n", "30", "--seed", "3")
    assert again.read_bytes() == out.read_bytes()


def test_generate_with_a_forced_language_and_the_files_it_skips(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "trash.md").write_text(
        "# Trash\n\nDeleted notes are kept in the trash for 30 days on every plan.\n",
        encoding="utf-8",
    )
    (docs / "manual.pdf").write_bytes(b"%PDF-1.4")
    out = tmp_path / "gen.jsonl"
    result = invoke("generate", docs, "-o", out, "--n", "4", "--lang", "en")
    assert result.exit_code == 0, result.output
    assert "skipped manual.pdf: not a readable PDF" in result.output
    cases = load_cases(out)
    assert (
        cases[0].question == "For how many days are deleted notes kept in the trash on every plan?"
    )
    assert cases[0].metadata["generate"]["chunk_id"] == "trash.md#0"


def test_generate_refuses_what_it_cannot_do(tmp_path: Path) -> None:
    out = tmp_path / "gen.jsonl"
    assert invoke("generate", CORPUS).exit_code == 2  # no --out
    bad_lang = invoke("generate", CORPUS, "-o", out, "--lang", "fr")
    assert bad_lang.exit_code == 2 and "--lang fr" in bad_lang.output
    not_jsonl = invoke("generate", CORPUS, "-o", tmp_path / "gen.csv")
    assert not_jsonl.exit_code == 2 and "JSONL" in not_jsonl.output
    missing = invoke("generate", tmp_path / "nope", "-o", out)
    assert missing.exit_code == 2 and "not a folder" in missing.output
    (tmp_path / "empty").mkdir()
    empty = invoke("generate", tmp_path / "empty", "-o", out)
    assert empty.exit_code == 2 and "no documents" in empty.output
    assert not out.exists()
