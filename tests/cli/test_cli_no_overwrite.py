"""No command replaces a run or a baseline unless told (`--overwrite`); a run is told by its
content, not its name (issue 30)."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from factories import case, run
from ragmeter._exceptions import ConfigError, ResultsError
from ragmeter.cli import app
from ragmeter.results import load_run, save_run

runner = CliRunner()


def is_run(path: Path) -> bool:
    try:
        load_run(path)
    except ResultsError:
        return False
    return True


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    save_run(
        run([case("a", {"faithfulness": 0.9}), case("b", {"faithfulness": 0.2})]), tmp_path / "old"
    )
    save_run(
        run([case("a", {"faithfulness": 0.5}), case("b", {"faithfulness": 0.6})]), tmp_path / "new"
    )
    return tmp_path


def test_report_refuses_to_write_over_a_run_or_a_baseline(runs: Path) -> None:
    results = runs / "old" / "results.json"
    before = results.read_bytes()
    for fmt in ("md", "json", "html", "junit"):
        refused = invoke("report", runs / "new", "--format", fmt, "-o", results)
        assert refused.exit_code == 2, refused.output
        assert "holds a ragmeter run" in refused.output and "--overwrite" in refused.output
    assert results.read_bytes() == before
    assert load_run(runs / "old").summary.n_cases == 2

    promoted = invoke("baseline", runs / "old", "--to", runs / "evals" / "main.json")
    assert promoted.exit_code == 0, promoted.output
    baseline = runs / "evals" / "main.json"
    kept = baseline.read_bytes()
    refused = invoke("report", runs / "new", "--format", "md", "-o", baseline)
    assert refused.exit_code == 2 and baseline.read_bytes() == kept  # told by content

    told = invoke("report", runs / "new", "--format", "md", "-o", results, "--overwrite")
    assert told.exit_code == 0, told.output
    assert results.read_text().startswith("## ragmeter report")


def test_report_replaces_a_file_that_is_no_run_whatever_its_name(runs: Path) -> None:
    named_like_a_run = runs / "out" / "results.json"
    for _ in range(2):  # the second time, the file is the first time's JSON report
        written = invoke("report", runs / "new", "--format", "json", "-o", named_like_a_run)
        assert written.exit_code == 0, written.output
    assert json.loads(named_like_a_run.read_text())["n_cases"] == 2
    assert not is_run(named_like_a_run)


def test_baseline_promotes_over_a_baseline_but_not_over_another_run(runs: Path) -> None:
    target = runs / "evals" / "baseline.json"
    for source in ("old", "new"):  # promotion replaces the baseline: that is its job
        assert invoke("baseline", runs / source, "--to", target).exit_code == 0
    assert load_run(target).cases[0].score("faithfulness") == 0.5

    before = (runs / "old" / "results.json").read_bytes()
    for to in (runs / "old", runs / "old" / "results.json"):
        refused = invoke("baseline", runs / "new", "--to", to)
        assert refused.exit_code == 2 and "--overwrite" in refused.output, refused.output
    assert (runs / "old" / "results.json").read_bytes() == before
    assert invoke("baseline", runs / "old", "--to", runs / "old").exit_code == 0  # itself
    told = invoke("baseline", runs / "new", "--to", runs / "old", "--overwrite")
    assert told.exit_code == 0
    assert load_run(runs / "old").cases[0].score("faithfulness") == 0.5


def test_vary_generate_and_to_csv_refuse_a_run_under_any_name(runs: Path) -> None:
    disguised = runs / "run.jsonl"
    disguised.write_bytes((runs / "old" / "results.json").read_bytes())
    cases_file = runs / "cases.jsonl"
    cases_file.write_text(
        json.dumps({"id": "q1", "question": "退款需要多久？", "ground_truth": "14天。"}) + "\n"
    )
    vary = invoke("vary", "--cases", cases_file, "-o", disguised)
    assert vary.exit_code == 2 and "holds a ragmeter run" in vary.output, vary.output
    docs = runs / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("Refunds are issued within 14 days of the request.\n")
    generate = invoke("generate", docs, "-o", disguised)
    assert generate.exit_code == 2 and "holds a ragmeter run" in generate.output
    with pytest.raises(ConfigError, match="holds a ragmeter run"):
        load_run(runs / "new").to_csv(disguised)
    assert is_run(disguised)
    assert invoke("vary", "--cases", cases_file, "-o", disguised, "--overwrite").exit_code == 0
    assert not is_run(disguised)
