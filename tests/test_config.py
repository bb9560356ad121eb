"""Settings from a config file with command-line overrides (`resolve_settings`)."""

from __future__ import annotations

import dataclasses

import pytest

from ragmeter._exceptions import ConfigError
from ragmeter.config import SettingsOverrides
from ragmeter.evaluation import resolve_settings


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
