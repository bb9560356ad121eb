"""How the command line and ragmeter.toml choose and set up the judge: no silent switch of
judge, case and judge concurrency apart, `[judge.options]` (issue 14)."""

import json

import pytest
from typer.testing import CliRunner

from ragmeter.cli import app
from ragmeter.clients import forget_output_modes
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
    from ragmeter.api import resolve_settings

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


# --- [judge.options] --------------------------------------------------------------------------


def config_file(tmp_path, text):
    path = tmp_path / "ragmeter.toml"
    path.write_text(text)
    return path


def test_local_judge_options_are_its_thresholds(tmp_path, files):
    config = config_file(tmp_path, "[judge.options]\nsupport_threshold = 0.9\nrefusal_cap = 0.1\n")
    result = run(files, tmp_path / "out", "--config", config)
    assert result.exit_code == 0, result.output
    params = written(tmp_path / "out")["judge"]["params"]
    assert params["support_threshold"] == 0.9 and params["refusal_cap"] == 0.1
    assert params["lexical_weight"] == 0.55  # the rest keep their defaults


def test_an_unknown_local_option_is_one_line_naming_it(tmp_path, files):
    config = config_file(tmp_path, "[judge.options]\nsupport_treshold = 0.9\n")
    out = tmp_path / "out"
    result = run(files, out, "--config", config)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(  # the file named too
        f"error: {config}: [judge.options] 'support_treshold': not an option of the local "
        "judge (did you "
        "mean 'support_threshold'?); it takes support_threshold, lexical_weight, "
    )
    assert not (out / "results.json").exists()


def test_a_bad_option_value_is_one_line_naming_it(tmp_path, files):
    config = config_file(tmp_path, '[judge.options]\nsupport_threshold = "high"\n')
    result = run(files, tmp_path / "out", "--config", config)
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [
        f"error: {config}: [judge.options] 'support_threshold': input should be a valid "
        "number, unable to parse string as a number (the local judge)"
    ]


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (
            "support_threshold = 1.5\n",
            "[judge.options] 'support_threshold': input should be less than or equal "
            "to 1 (the local judge)",
        ),
        (
            "sim_candidates = -1\n",
            "[judge.options] 'sim_candidates': input should be greater than or equal "
            "to 0 (the local judge)",
        ),
        (  # equal bounds divided by zero: every case was unscored as a judge error
            "sim_floor = 0.8\nsim_ceiling = 0.8\n",
            "[judge.options]: sim_ceiling (0.8) must be above sim_floor (0.8) (the local judge)",
        ),
    ],
)
def test_a_local_option_out_of_its_range_is_one_line_before_any_work(
    tmp_path, files, options, expected
):
    config = config_file(tmp_path, "[judge.options]\n" + options)
    out = tmp_path / "out"
    result = run(files, out, "--config", config)
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [f"error: {config}: {expected}"]
    assert not (out / "results.json").exists()


def test_llm_judge_options_reach_the_judge(tmp_path, files):
    config = config_file(
        tmp_path,
        '[judge]\nkind = "openai"\n[judge.options]\nn_questions = 2\nmax_retries = 0\n',
    )
    forget_output_modes()
    with FakeOpenAI(Smart(), keep_bodies=True) as server:
        result = run(files, tmp_path / "out", "--config", config, *llm(server, tmp_path)[2:])
        prompts = [json.dumps(r.body) for r in server.chat_log()]
    assert result.exit_code == 0, result.output
    assert written(tmp_path / "out")["judge"]["params"]["n_questions"] == 2
    asked = [p for p in prompts if "different questions that the ANSWER" in p]
    assert len(asked) == len(ROWS) and all("write 2 different questions" in p for p in asked)


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (  # the table and [judge] are one mapping now: a typo is what it cannot take
            "n_question = 2",
            "[judge.options] 'n_question': not an option of the openai judge (did you "
            "mean 'n_questions'?); it takes model, concurrency, ",
        ),
        (
            "threads = 2",
            "[judge.options] 'threads': not an option of the openai judge; the llama "
            "judge takes it",
        ),
        (
            "n_questions = 0",
            "[judge.options] 'n_questions': input should be greater than or equal to 1 "
            "(the openai judge)",
        ),
    ],
)
def test_llm_judge_options_are_checked(tmp_path, files, server, options, expected):
    config = config_file(tmp_path, f'[judge]\nkind = "openai"\n[judge.options]\n{options}\n')
    result = run(files, tmp_path / "out", "--config", config, *llm(server, tmp_path)[2:])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {config}: {expected}")
    assert server.chat_log() == []


def test_a_plugin_judge_gets_the_options_table_as_written(tmp_path, files, monkeypatch):
    from ragmeter import JudgeBase
    from ragmeter.judges import registry
    from ragmeter.judges.base import JudgeFingerprint, MetricResult

    received = []

    class FixedJudge(JudgeBase):
        name = "fixed"

        def __init__(self, score):
            self.score = score

        def fingerprint(self):
            return JudgeFingerprint(kind="fixed", model="none", prompt_version="1")

        async def judge(self, sample, metrics):
            return {m: MetricResult(metric=m, score=self.score) for m in metrics}

    def create(settings):
        received.append(settings.options)
        return FixedJudge(settings.options["score"])

    class EntryPoint:
        name = "fixed"

        def load(self):
            return create

    monkeypatch.setattr(registry, "entry_points", lambda group: [EntryPoint()])
    config = config_file(
        tmp_path,
        '[judge]\nkind = "fixed"\n[judge.options]\nscore = 0.25\nanything = { a = [1, "b"] }\n',
    )
    result = run(files, tmp_path / "out", "--config", config)
    assert result.exit_code == 0, result.output
    assert received == [{"score": 0.25, "anything": {"a": [1, "b"]}}]
    data = written(tmp_path / "out")
    assert data["summary"]["metrics"]["context_recall"]["mean"] == 0.25


def test_another_judge_on_the_command_line_leaves_the_file_options_out(tmp_path, files, server):
    """The options belong to the judge the file names: `--judge` naming another one does not
    hand them to it (the local judge would refuse the LLM judge's options)."""
    config = config_file(tmp_path, '[judge]\nkind = "openai"\n[judge.options]\nn_questions = 2\n')
    result = run(files, tmp_path / "out", "--config", config, "--judge", "local")
    assert result.exit_code == 0, result.output
    assert written(tmp_path / "out")["judge"]["kind"] == "local"
