"""`run --shard I/N` and `ragmeter merge`: N shards give exactly the unsharded run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragmeter.cli import app
from ragmeter.demo import demo_cases_path
from ragmeter.results import load_run
from ragmeter.run.shard import parse_shard, select_shard

runner = CliRunner()
PIPELINE = "ragmeter.demo.pipeline:answer"


def invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def run_shard(tmp_path: Path, cases: Path, spec: str) -> Path:
    """Shard `spec` ("1/2") of `cases`, faithfulness only, run into tmp_path/1of2."""
    out = tmp_path / spec.replace("/", "of")
    args = ["--shard", spec, "-o", out, "--no-progress", "--metrics", "faithfulness"]
    result = invoke("run", "--cases", cases, "--pipeline", PIPELINE, *args)
    assert result.exit_code == 0, result.output
    return out


def test_every_case_is_in_exactly_one_shard() -> None:
    items = list(range(10))
    shards = [select_shard(items, i, 3) for i in (1, 2, 3)]
    assert shards == [[0, 3, 6, 9], [1, 4, 7], [2, 5, 8]]
    assert sorted(x for s in shards for x in s) == items
    assert select_shard(items, 1, 1) == items
    assert select_shard(items[:2], 3, 3) == []  # more shards than cases: an empty one


@pytest.mark.parametrize("text", ["0/3", "4/3", "2", "a/b", "1/0", "-1/2"])
def test_a_bad_shard_is_refused_in_one_line(text: str) -> None:
    from ragmeter._exceptions import ConfigError

    with pytest.raises(ConfigError, match=f"--shard {text}"):
        parse_shard(text)


@pytest.fixture
def cases(tmp_path: Path) -> Path:
    """The demo set's first 24 cases (English and Chinese, every category)."""
    lines = demo_cases_path().read_text(encoding="utf-8").splitlines()
    chosen = lines[:12] + lines[-12:]
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(chosen) + "\n", encoding="utf-8")
    return path


def comparable(path: Path) -> dict:
    run = load_run(path)
    cases = [c.model_dump(mode="json", exclude={"pipeline_seconds"}) for c in run.cases]
    return {
        "judge": run.judge.model_dump(),
        "summary": run.summary.model_dump(mode="json"),
        "diagnosis": run.diagnosis.model_dump(mode="json"),
        "health": run.health.model_dump(mode="json") if run.health else None,
        "cases": cases,
        "thresholds": run.run.thresholds,
        "cases_file": run.run.cases_file,
    }


def test_three_shards_merge_into_the_unsharded_run(tmp_path: Path, cases: Path) -> None:
    whole = invoke(
        "run", "--cases", cases, "--pipeline", PIPELINE, "-o", tmp_path / "whole", "--no-progress"
    )
    assert whole.exit_code == 0, whole.output
    shard_dirs = []
    for index in (3, 1, 2):  # any order
        out = tmp_path / f"shard{index}"
        result = invoke(
            "run",
            "--cases",
            cases,
            "--pipeline",
            PIPELINE,
            "--shard",
            f"{index}/3",
            "-o",
            out,
            "--no-progress",
        )
        assert result.exit_code == 0, result.output
        assert load_run(out).run.shard == f"{index}/3"
        shard_dirs.append(out)
    sizes = [len(load_run(d).cases) for d in shard_dirs]
    assert sum(sizes) == len(load_run(tmp_path / "whole").cases)
    merged = invoke("merge", *shard_dirs, "-o", tmp_path / "merged")
    assert merged.exit_code == 0, merged.output
    assert "results written to" in merged.output
    assert comparable(tmp_path / "merged") == comparable(tmp_path / "whole")
    run = load_run(tmp_path / "merged")
    assert run.run.shard is None
    # every shard records the whole eval set's digest: the merged run's is the unsharded one's
    digest = load_run(tmp_path / "whole").run.cases_digest
    assert digest is not None and digest.startswith("sha256:")
    assert {load_run(d).run.cases_digest for d in shard_dirs} == {digest}
    assert run.run.cases_digest == digest
    assert run.run.seconds == max(load_run(d).run.seconds or 0 for d in shard_dirs)
    # the merged run gates and reports like any other
    gate = invoke("gate", tmp_path / "merged")
    assert gate.exit_code in (0, 1), gate.output


def test_shards_of_different_runs_or_missing_ones_are_refused(tmp_path: Path, cases: Path) -> None:
    for spec in ("1/2", "2/2", "1/3"):
        run_shard(tmp_path, cases, spec)
    one, two, other = tmp_path / "1of2", tmp_path / "2of2", tmp_path / "1of3"

    missing = invoke("merge", one, "-o", tmp_path / "m1")
    assert missing.exit_code == 2 and "shard 2 of 2 missing" in missing.output
    twice = invoke("merge", one, one, two, "-o", tmp_path / "m2")
    assert twice.exit_code == 2 and "shard 1/2 again" in twice.output
    mixed = invoke("merge", one, two, other, "-o", tmp_path / "m3")
    assert mixed.exit_code == 2 and "split in" in mixed.output
    # the same shard judged with other thresholds is another run
    data = json.loads((two / "results.json").read_text())
    data["judge"]["params"]["support_threshold"] = 0.7
    (two / "results.json").write_text(json.dumps(data))
    foreign = invoke("merge", one, two, "-o", tmp_path / "m4")
    assert foreign.exit_code == 2 and "field 'judge'" in foreign.output
    unsharded = invoke(
        "run",
        "--cases",
        cases,
        "--pipeline",
        PIPELINE,
        "-o",
        tmp_path / "u",
        "--no-progress",
        "--metrics",
        "faithfulness",
    )
    assert unsharded.exit_code == 0
    plain = invoke("merge", one, tmp_path / "u", "-o", tmp_path / "m5")
    assert plain.exit_code == 2 and "not a shard" in plain.output
    for name in ("m1", "m2", "m3", "m4", "m5"):
        assert not (tmp_path / name / "results.json").exists()  # nothing half-written


def test_shards_of_another_eval_set_under_the_same_file_name_are_refused(
    tmp_path: Path, cases: Path
) -> None:
    one = run_shard(tmp_path, cases, "1/2")
    lines = cases.read_text(encoding="utf-8").splitlines()
    edited = json.loads(lines[0])  # a case of shard 1, judged before the edit
    edited["question"] = "另一个问题：退款需要多久？"
    cases.write_text(
        "\n".join([json.dumps(edited, ensure_ascii=False), *lines[1:]]) + "\n", encoding="utf-8"
    )
    two = run_shard(tmp_path, cases, "2/2")
    assert load_run(one).run.cases_file == load_run(two).run.cases_file
    mixed = invoke("merge", one, two, "-o", tmp_path / "mixed")
    assert mixed.exit_code == 2, mixed.output
    assert "a shard of another eval set: its contents' digest is " in mixed.output
    assert not (tmp_path / "mixed" / "results.json").exists()
    # shards written before the digest still merge, on the file name, and the run says so
    for path in (one, two):
        data = json.loads((path / "results.json").read_text(encoding="utf-8"))
        del data["run"]["cases_digest"]
        (path / "results.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    assert load_run(one).run.cases_digest is None
    old = invoke("merge", one, two, "-o", tmp_path / "old")
    assert old.exit_code == 0, old.output
    merged = load_run(tmp_path / "old")
    assert merged.run.cases_digest is None
    assert any("no eval-set digest" in w for w in merged.run.warnings)
