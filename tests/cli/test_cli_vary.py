"""`ragmeter vary` (write a varied eval set) and `ragmeter vary check RUN` through the CLI."""

import json
from pathlib import Path

from typer.testing import CliRunner

from factories import case as result_case
from factories import run as make_run
from ragmeter.cases import load_cases
from ragmeter.cli import app
from ragmeter.results import save_run
from ragmeter.vary import case_record
from test_vary import DEMO_SET, answered_set, hand_made_run

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_vary_writes_a_lint_clean_set_and_says_what_it_skipped(tmp_path: Path) -> None:
    out = tmp_path / "varied.jsonl"
    result = invoke("vary", "--cases", DEMO_SET, "-o", out, "--kinds", "typo,out-of-scope")
    assert result.exit_code == 0, result.output
    assert f"wrote 277 cases to {out}: 99 originals and 178 variants" in result.output
    assert "typo 98, out_of_scope 80" in result.output
    assert "typo: 1 case, no word to misspell (en-040)" in result.output
    assert "out_of_scope: 14 cases, out of scope already" in result.output
    assert "--pipeline MODULE:FUNCTION" in result.output  # the set needs a pipeline
    cases = load_cases(out)
    assert cases[1].id == "en-001~typo"
    lint = invoke("lint", out)
    assert lint.exit_code == 0 and "1 info" in lint.output, lint.output

    again = tmp_path / "again.jsonl"
    invoke("vary", "--cases", DEMO_SET, "-o", again, "--kinds", "typo,out_of_scope")
    assert again.read_bytes() == out.read_bytes()
    other = tmp_path / "other.jsonl"
    invoke("vary", "--cases", DEMO_SET, "-o", other, "--kinds", "typo", "--seed", "7")
    assert load_cases(other)[1].question != cases[1].question


def test_vary_with_answers_from_a_run_makes_distractor_and_shuffle(tmp_path: Path) -> None:
    cases_file = tmp_path / "cases.jsonl"
    rows = [case_record(c) for c in answered_set()]
    answers = {r["id"]: (r.pop("contexts"), r.pop("answer")) for r in rows}
    cases_file.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    results = [
        result_case(cid, {"faithfulness": 1.0}, contexts=ctx, answer=answer)
        for cid, (ctx, answer) in answers.items()
    ]
    save_run(make_run(results), tmp_path / "run")
    out = tmp_path / "varied.jsonl"
    result = invoke("vary", "-c", cases_file, "-a", tmp_path / "run", "-o", out)
    assert result.exit_code == 0, result.output
    assert "distractor 4, shuffle 3, out_of_scope 0" in result.output
    assert f"next: ragmeter run --cases {out} --out DIR" in result.output
    shuffled = next(c for c in load_cases(out) if c.id == "b~shuffle")
    assert shuffled.answer == answers["b"][1]
    assert sorted(shuffled.contexts or []) == sorted(answers["b"][0])


def test_vary_refuses_bad_options(tmp_path: Path) -> None:
    out = tmp_path / "varied.jsonl"
    only_cases = invoke("vary", "--cases", DEMO_SET)
    assert only_cases.exit_code == 2 and "give both --cases" in only_cases.output
    bad_kind = invoke("vary", "--cases", DEMO_SET, "-o", out, "--kinds", "typos")
    assert bad_kind.exit_code == 2 and "unknown kind 'typos'" in bad_kind.output
    not_jsonl = invoke("vary", "--cases", DEMO_SET, "-o", tmp_path / "varied.json")
    assert not_jsonl.exit_code == 2 and "*.jsonl" in not_jsonl.output
    copy = tmp_path / "cases.jsonl"
    copy.write_bytes(DEMO_SET.read_bytes())
    itself = invoke("vary", "--cases", copy, "-o", copy)
    assert itself.exit_code == 2 and "the eval set itself" in itself.output
    missing = invoke("vary", "--cases", tmp_path / "none.jsonl", "-o", out)
    assert missing.exit_code == 2
    assert not out.exists()
    mixed = invoke("vary", "--cases", DEMO_SET, "check", tmp_path)
    assert mixed.exit_code == 2 and "give them after it" in mixed.output
    bare = invoke("vary")
    assert bare.exit_code == 0 and "check" in bare.output


def test_check_prints_the_table_and_the_broken_pairs(tmp_path: Path) -> None:
    save_run(hand_made_run(), tmp_path / "run")
    result = invoke("vary", "check", tmp_path / "run")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    rows, kind = {}, None
    for line in lines[lines.index(next(x for x in lines if x.startswith("kind / metric"))) + 2 :]:
        if not line.strip():
            break
        if not line.startswith("  "):
            kind = line.strip()
        else:
            metric, *cells = line.split()
            rows[(kind, metric)] = cells
    # expected, pairs, held, broke, unscored, not checked
    assert rows[("typo", "faithfulness")] == ["same", "1", "0", "1", "0", "0"]
    assert rows[("shuffle", "context_precision")][:3] == ["follows", "the", "chunks"]
    assert "follows the chunks" in result.output and "abstains" in result.output
    assert "broken (3)" in result.output
    assert "o~typo faithfulness: expected same, 0.90 → 0.50 [origin o]" in result.output
    assert "o~out_of_scope answer_relevancy: expected abstains, scored 0.00" in result.output
    assert "1 pair: variant unscored: judge error: x (o~typo)" in result.output

    failing = invoke("vary", "check", tmp_path / "run", "--fail-on-broken")
    assert failing.exit_code == 1
    lenient = invoke("vary", "check", tmp_path / "run", "--tolerance", "0.5", "--json")
    data = json.loads(lenient.output)
    assert data["tolerance"] == 0.5
    assert {o["status"] for o in data["outcomes"] if o["variant"] == "o~typo"} == {
        "held",
        "unscored",
    }


def test_check_refuses_a_run_without_variants(tmp_path: Path) -> None:
    save_run(make_run([result_case("a", {"faithfulness": 1.0})]), tmp_path / "run")
    result = invoke("vary", "check", tmp_path / "run")
    assert result.exit_code == 2 and "no variants" in result.output
    assert invoke("vary", "check", tmp_path / "nothing").exit_code == 2
