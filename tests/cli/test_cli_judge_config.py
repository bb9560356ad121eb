"""How the command line and ragmeter.toml choose and set up the judge: no silent switch of
judge, case and judge concurrency apart, `[judge.options]` (issue 14)."""

import json

import pytest
from typer.testing import CliRunner

from ragmeter.cli import app
from ragmeter.llm import forget_output_modes
from ragmeter.testing import FakeOpenAI, Smart

runner = CliRunner()
ROWS = [
    (f"q{i}", f"How long are deleted notes kept, case {i}?", "Deleted notes stay 30 days.")
    for i in range(4)
]


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def files(tmp_path):
    cases = tmp_path / "cases.jsonl"
    answers = tmp_path / "answers.jsonl"
    cases.write_text(
        "\n".join(json.dumps({"id": i, "question": q, "ground_truth": g}) for i, q, g in ROWS)
    )
    answers.write_text(
        "\n".join(
            json.dumps({"id": i, "contexts": [g, "Unrelated text."], "answer": g})
            for i, _q, g in ROWS
        )
    )
    return cases, answers


@pytest.fixture
def server():
    forget_output_modes()
    with FakeOpenAI(Smart()) as fake:
        yield fake


def run(files, out, *args):
    """`ragmeter run` on the eval set and its precomputed answers, into `out`."""
    cases, answers = files
    return invoke(
        "run", "--cases", cases, "--answers", answers, "--out", out, "--no-progress", *args
    )


def written(out):
    return json.loads((out / "results.json").read_text())


# --- no silent judge switch -------------------------------------------------------------------


def test_a_config_with_an_endpoint_but_no_kind_stops_with_what_to_add(tmp_path, files, server):
    config = tmp_path / "ragmeter.toml"
    config.write_text(f'[judge]\nmodel = "judge-model"\nbase_url = "{server.base_url}"\n')
    out = tmp_path / "out"
    result = run(files, out, "--config", config)
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [
        "error: [judge] model and [judge] base_url are set but no judge kind is: the default "
        f'judge, local, would ignore them; add kind = "openai" under [judge] in {config}, or '
        "pass --judge openai (--judge local keeps the local judge)"
    ]
    assert not out.exists() and server.chat_log() == []


def test_options_for_an_endpoint_without_judge_stop_too(tmp_path, files, server):
    out = tmp_path / "out"
    result = run(files, out, "--model", "judge-model", "--base-url", server.base_url)
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [
        "error: --model and --base-url are set but no judge kind is: the default judge, local, "
        "would ignore them; pass --judge openai (--judge local keeps the local judge)"
    ]
    assert not out.exists() and server.chat_log() == []


def test_the_judge_named_is_the_judge_used(tmp_path, files, server):
    config = tmp_path / "ragmeter.toml"
    config.write_text(
        f'[judge]\nmodel = "judge-model"\nbase_url = "{server.base_url}"\n'
        f'cache_dir = "{tmp_path / "cache"}"\n'
    )
    llm = run(files, tmp_path / "llm", "--config", config, "--judge", "openai")
    assert llm.exit_code == 0, llm.output
    assert written(tmp_path / "llm")["judge"]["kind"] == "openai"
    assert server.chat_log()

    local = run(files, tmp_path / "local", "--config", config, "--judge", "local")
    assert local.exit_code == 0, local.output
    assert written(tmp_path / "local")["judge"]["kind"] == "local"


# --- case and judge concurrency -----------------------------------------------------------------


def llm(server, tmp_path):
    return [
        "--judge", "openai", "--model", "judge-model", "--base-url", server.base_url,
        "--cache-dir", tmp_path / "cache",
    ]  # fmt: skip


def test_judge_concurrency_caps_the_calls_in_flight_whatever_the_cases(tmp_path, files):
    forget_output_modes()
    with FakeOpenAI(Smart(), latency=0.05) as server:
        result = run(
            files, tmp_path / "out", *llm(server, tmp_path),
            "--concurrency", "4", "--judge-concurrency", "1",
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        assert server.max_in_flight == 1


def test_one_case_at_a_time_still_lets_the_judge_overlap_calls(tmp_path, files):
    """`--concurrency` no longer caps the judge: cases go through the pipeline one by one,
    and the judge keeps calls of several cases in flight (it used to be held to one)."""
    forget_output_modes()
    with FakeOpenAI(Smart(), latency=0.05) as server:
        result = run(
            files, tmp_path / "out", *llm(server, tmp_path),
            "--concurrency", "1", "--judge-concurrency", "8",
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        assert server.max_in_flight > 1


def test_the_two_limits_come_from_their_own_config_keys(tmp_path, files):
    from ragmeter.evaluation import resolve_settings

    config = tmp_path / "ragmeter.toml"
    config.write_text("concurrency = 2\n[judge]\nconcurrency = 5\n")
    settings = resolve_settings(config)
    assert (settings.concurrency, settings.judge.concurrency) == (2, 5)
    forget_output_modes()
    with FakeOpenAI(Smart(), latency=0.05) as server:
        result = run(
            files, tmp_path / "out", "--config", config, *llm(server, tmp_path),
            "--judge-concurrency", "1",
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        assert server.max_in_flight == 1  # the option wins over [judge] concurrency
