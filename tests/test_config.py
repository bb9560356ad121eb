"""Settings from a config file with command-line overrides (`resolve_settings`)."""

from __future__ import annotations

import dataclasses

import pytest

from ragmeter._exceptions import ConfigError
from ragmeter.api import resolve_settings
from ragmeter.config import SettingsOverrides
from ragmeter.judges.registry import check_judge_settings


@pytest.fixture
def config(tmp_path):
    path = tmp_path / "ragmeter.toml"
    path.write_text(
        "concurrency = 3\n"
        "min_scored_share = 0.8\n"
        "[judge]\n"
        'kind = "openai"\n'
        'model = "file-model"\n'
        'base_url = "http://file.example/v1"\n'
        "max_cost = 1.5\n"
        'cache_dir = "from-file"\n'
    )
    return path


def test_given_options_win_and_the_rest_come_from_the_file(config):
    settings = resolve_settings(config, SettingsOverrides(model="cli-model", max_cost=9.0))
    assert settings.judge.model == "cli-model" and settings.judge.max_cost == 9.0
    assert settings.judge.kind == "openai"
    assert settings.judge.base_url == "http://file.example/v1"
    assert settings.judge.cache_dir == "from-file"
    assert settings.concurrency == 3 and settings.min_scored_share == 0.8


def test_no_overrides_is_the_file_as_it_is(config):
    assert resolve_settings(config) == resolve_settings(config, SettingsOverrides())


def test_the_overrides_are_typed_and_frozen():
    with pytest.raises(TypeError):
        SettingsOverrides(modle="m")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        SettingsOverrides("openai")  # type: ignore[misc]
    overrides = SettingsOverrides(model="m")
    with pytest.raises(dataclasses.FrozenInstanceError):
        overrides.model = "n"  # type: ignore[misc]


def test_no_cache_wins_over_a_cache_dir(config):
    settings = resolve_settings(config, SettingsOverrides(cache_dir="elsewhere", no_cache=True))
    assert settings.judge.cache_dir == ""


def test_keys_not_given_stay_unset(tmp_path):
    """The llama judge keeps its own defaults for `timeout` and `concurrency` unless they are
    set (`model_fields_set`); an override must not mark the other keys as set."""
    path = tmp_path / "ragmeter.toml"
    path.write_text('[judge]\nkind = "llama"\nthreads = 1\n')
    judge = resolve_settings(path, SettingsOverrides(parallel=2)).judge
    assert judge.model_fields_set == {"kind", "threads", "parallel"}


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (SettingsOverrides(concurrency=0), "--concurrency 0: must be at least 1"),
        (SettingsOverrides(min_scored_share=1.5), "--min-scored 1.5: must be at most 1.0"),
        (SettingsOverrides(min_scored_share=-1.0), "--min-scored -1.0: must be at least 0.0"),
    ],
)
def test_a_bad_value_is_one_line_naming_the_option(config, overrides, message):
    with pytest.raises(ConfigError) as caught:
        resolve_settings(config, overrides)
    assert str(caught.value) == message


# --- no silent judge switch -------------------------------------------------------------------


def _toml(tmp_path, text, name="ragmeter.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_llm_keys_in_the_file_with_no_kind_are_an_error_saying_what_to_add(tmp_path):
    path = _toml(tmp_path, '[judge]\nmodel = "m"\nbase_url = "http://127.0.0.1:9/v1"\n')
    with pytest.raises(ConfigError) as caught:
        resolve_settings(path)
    assert str(caught.value) == (
        "[judge] model and [judge] base_url are set but no judge kind is: the default judge, "
        f'local, would ignore them; add kind = "openai" under [judge] in {path}, or pass '
        "--judge openai (--judge local keeps the local judge)"
    )


def test_in_pyproject_the_table_is_named_as_written_there(tmp_path):
    path = _toml(tmp_path, '[tool.ragmeter.judge]\nmodel = "m"\n', name="pyproject.toml")
    with pytest.raises(
        ConfigError,
        match=r"^\[tool\.ragmeter\.judge\] model is set .* would "
        r'ignore it; add kind = "openai" under \[tool\.ragmeter\.judge\] in ',
    ):
        resolve_settings(path)


def test_llm_options_with_no_judge_are_an_error_naming_the_options(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no config file
    with pytest.raises(ConfigError) as caught:
        resolve_settings(None, SettingsOverrides(model="m", base_url="http://127.0.0.1:9/v1"))
    assert str(caught.value) == (
        "--model and --base-url are set but no judge kind is: the default judge, local, would "
        "ignore them; pass --judge openai (--judge local keeps the local judge)"
    )


def test_a_model_file_points_to_the_llama_judge(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=r"^--model-path is set .*; pass --judge llama "):
        resolve_settings(None, SettingsOverrides(model_path="judge.gguf"))


def test_an_option_on_top_of_a_file_without_kind_names_both(tmp_path):
    path = _toml(tmp_path, '[judge]\nmodel = "m"\n')
    with pytest.raises(ConfigError, match=r"^\[judge\] model and --base-url are set .* add kind"):
        resolve_settings(path, SettingsOverrides(base_url="http://127.0.0.1:9/v1"))


def test_a_kind_named_anywhere_is_used_as_named(tmp_path):
    no_kind = _toml(tmp_path, '[judge]\nmodel = "m"\nbase_url = "http://127.0.0.1:9/v1"\n')
    assert resolve_settings(no_kind, SettingsOverrides(judge="openai")).judge.kind == "openai"
    # --judge local over an LLM judge's file: the local judge, as asked, not a switch
    assert resolve_settings(no_kind, SettingsOverrides(judge="local")).judge.kind == "local"
    local = _toml(tmp_path, '[judge]\nkind = "local"\nmodel = "m"\n', name="local.toml")
    assert resolve_settings(local).judge.kind == "local"


def test_python_judge_settings_with_no_kind_are_refused_too():
    import ragmeter
    from ragmeter.config import JudgeSettings

    rows = [{"question": "q?", "contexts": ["c"], "answer": "a", "ground_truth": "g"}]
    with pytest.raises(
        ConfigError, match=r"^JudgeSettings sets model but no kind: .*kind='openai'"
    ):
        ragmeter.evaluate(rows, judge=JudgeSettings(model="m"))


# --- case and judge concurrency ------------------------------------------------------------------


def test_concurrency_is_the_cases_and_judge_concurrency_the_calls(config):
    cases = resolve_settings(config, SettingsOverrides(concurrency=2))
    assert cases.concurrency == 2
    assert "concurrency" not in cases.judge.model_fields_set
    assert check_judge_settings(cases.judge).concurrency == 8  # the openai judge's default
    calls = resolve_settings(config, SettingsOverrides(judge_concurrency=5))
    assert calls.judge.concurrency == 5 and calls.concurrency == 3  # 3: the file's


def test_a_bad_judge_concurrency_names_its_own_option(config):
    with pytest.raises(ConfigError) as caught:
        resolve_settings(config, SettingsOverrides(judge_concurrency=0))
    assert str(caught.value) == "--judge-concurrency 0: must be at least 1"


# --- [judge.options] --------------------------------------------------------------------------


def test_the_options_table_is_kept_for_its_own_judge_only(tmp_path):
    path = _toml(
        tmp_path, '[judge]\nkind = "openai"\nmodel = "m"\n[judge.options]\nn_questions = 2\n'
    )
    assert resolve_settings(path).judge.options == {"n_questions": 2}
    same = resolve_settings(path, SettingsOverrides(judge="openai"))
    assert same.judge.options == {"n_questions": 2}
    other = resolve_settings(path, SettingsOverrides(judge="local"))
    assert other.judge.options == {} and "options" not in other.judge.model_fields_set


def test_python_judges_take_options_too():
    import ragmeter

    local = ragmeter.judge("local", options={"support_threshold": 0.9})
    assert local.fingerprint().params["support_threshold"] == 0.9
    with pytest.raises(ConfigError, match=r"^\[judge\.options\] 'nope': not an option of the lo"):
        ragmeter.judge("local", options={"nope": 1})


LLAMA_KEYS = (
    "model", "concurrency", "timeout", "patience", "temperature", "cache_dir", "max_cost",
    "prices", "generator_model", "faithfulness_mode", "context_recall_mode",
    "context_precision_mode", "answer_relevancy_mode", "graded", "n_questions", "output_mode",
    "max_retries", "backoff_base", "model_path", "threads", "ctx_size", "parallel", "max_tokens",
)  # fmt: skip
"""Every key the llama judge reads, `[judge]` and `[judge.options]` alike (one mapping)."""


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"max_token": 64},
            "[judge.options] 'max_token': not an option of the llama judge (did you mean "
            f"'max_tokens'?); it takes {', '.join(LLAMA_KEYS)}",
        ),
        (
            {"max_tokens": 8},
            "[judge.options] 'max_tokens': input should be greater than or equal to 16 "
            "(the llama judge)",
        ),
        (
            {"output_mode": "xml"},
            "[judge.options] 'output_mode': input should be 'json_schema', 'json_object' or "
            "'prompt' (the llama judge)",
        ),
    ],
)
def test_llama_options_are_checked_before_any_server_starts(options, message):
    import ragmeter

    with pytest.raises(ConfigError) as caught:
        ragmeter.judge("llama", options=options)
    assert str(caught.value) == message


def test_the_readme_configuration_example_loads_as_documented(tmp_path):
    from pathlib import Path

    page = Path(__file__).resolve().parents[1] / "docs" / "configuration.md"
    section = page.read_text(encoding="utf-8")
    assert section.startswith("# Configuration\n")
    block = section[section.index("```toml\n") + 8 : section.index("```\n", 10)]
    settings = resolve_settings(_toml(tmp_path, block))
    assert settings.judge.kind == "openai" and settings.judge.model == "deepseek-chat"
    assert (settings.concurrency, settings.judge.concurrency) == (4, 8)
    assert settings.judge.options == {"n_questions": 3}
    without_kind = block.replace('kind = "openai"', "")
    with pytest.raises(ConfigError, match=r'add kind = "openai" under \[judge\]'):
        resolve_settings(_toml(tmp_path, without_kind, name="no-kind.toml"))


def test_llama_options_reach_the_server_and_the_judge(monkeypatch):
    """The wiring, without a model: `max_tokens` goes to the server, the LLM options to the
    judge's config, and keys not set stay the llama judge's own defaults."""
    import ragmeter.judges.llama
    import ragmeter.judges.llama.judge as llama_judge
    from ragmeter.config import JudgeSettings
    from ragmeter.judges import factories

    started = {}

    def start(server, **config):
        started.update(server=server, config=config)
        return "judge"

    monkeypatch.setattr(ragmeter.judges.llama, "resolve_model", lambda model, path: "model-file")
    monkeypatch.setattr(llama_judge, "start_llama_judge", start)
    settings = JudgeSettings(
        kind="llama", threads=1, options={"max_tokens": 64, "n_questions": 2, "max_retries": 1}
    )
    assert factories.llama(settings) == "judge"
    server = started["server"]
    assert server.model == "model-file"
    assert (server.options.max_tokens, server.options.threads) == (64, 1)
    config = started["config"]
    assert config["n_questions"] == 2 and config["max_retries"] == 1
    assert "max_tokens" not in config and "timeout" not in config and "concurrency" not in config
