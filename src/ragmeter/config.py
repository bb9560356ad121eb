"""Configuration from `ragmeter.toml` or `[tool.ragmeter]` in `pyproject.toml`.

Command-line options override the file; the file overrides the defaults. API keys are never
read from the file: it names the environment variable that holds them.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
)
from pydantic_core import ErrorDetails

from ._exceptions import ConfigError, describe_validation_error
from .vocabulary import MetricName


class JudgeSettings(BaseModel):
    """`[judge]`: which judge (`kind`) and its settings, as given. The keys belong to the
    judge `kind` names, which checks them: a built-in judge (or a plugin that declares its
    options) against its own options model, once, when it is built (`ragmeter.judges.options`;
    the local judge's are `judges/local/settings.py`, the openai judge's
    `judges/llm/options.py`, the llama judge's `judges/llama/options.py`). So this model keeps
    them as given (:meth:`table`), with where each came from, for the messages."""

    model_config = ConfigDict(extra="allow")

    kind: str = "local"
    """`local` (offline, default), `openai` (any OpenAI-compatible endpoint) or `llama` (a
    llama.cpp server started in-process; the `llama` extra), or a plugin's name."""
    options: dict[str, Any] = Field(default_factory=dict)
    """`[judge.options]`: more settings of the judge `kind` names. A built-in judge reads
    them as it reads the table's keys (one mapping; a key set in both is an error); a plugin
    judge gets the table as written, to check itself, unless it declares its options."""

    _source: Path | None = PrivateAttr(default=None)
    _given: dict[str, str] = PrivateAttr(default_factory=dict)
    _borrowed: frozenset[str] = PrivateAttr(default=frozenset())

    def table(self) -> dict[str, Any]:
        """The keys besides `kind` and `options`, as given."""
        return dict(self.model_extra or {})

    def mark(
        self,
        *,
        source: Path | None = None,
        given: dict[str, str] | None = None,
        borrowed: frozenset[str] = frozenset(),
    ) -> JudgeSettings:
        """Record where the keys came from: the config file `source`, the command-line
        options that `given` maps keys to, and the file's keys `borrowed` from a table written
        for another judge (one `--judge` replaced), which the judge named may leave aside."""
        self._source = source
        self._given = dict(given or {})
        self._borrowed = borrowed
        return self

    def option_of(self, key: str) -> str | None:
        """The command-line option that gave `key`, None when it was not one."""
        return self._given.get(key)

    def borrowed(self) -> frozenset[str]:
        """Keys of a config table written for another judge than `kind`."""
        return self._borrowed

    def table_name(self) -> str:
        """`[judge]`, or `[tool.ragmeter.judge]` in pyproject.toml."""
        pyproject = self._source is not None and self._source.name == "pyproject.toml"
        return "[tool.ragmeter.judge]" if pyproject else "[judge]"

    def where_table(self) -> str:
        """The table, with its file when it came from one."""
        return f"{self._source}: {self.table_name()}" if self._source else self.table_name()

    def where(self, key: str) -> str:
        """How `key` was given: its command-line option, else the table's key (and file)."""
        return self.option_of(key) or f"{self.where_table()} '{key}'"

    def where_options(self, key: str | None = None) -> str:
        """`[judge.options]` (with its file when it came from one), or a key of it."""
        table = self.table_name().removesuffix("]") + ".options]"
        where = f"{self._source}: {table}" if self._source else table
        return f"{where} '{key}'" if key else where

    def llm_keys_without_kind(self) -> list[str]:
        """The keys only an LLM judge reads (`model`, `base_url`, `model_path`) that are set
        while `kind` is not: the default judge, local, would ignore them."""
        if "kind" in self.model_fields_set:
            return []
        table = self.table()
        return [key for key in LLM_JUDGE_KEYS if table.get(key) is not None]

    def batch_problem(self) -> str | None:
        """Why `batch` cannot be on with this judge kind, None when it can."""
        if not self.table().get("batch") or self.kind == "openai":
            return None
        why = {
            "local": "the local judge makes no paid calls",
            "llama": "the llama judge's own server has no batch API",
        }.get(self.kind, f"the {self.kind} judge does not send OpenAI chat calls")
        return (
            "--batch sends the judge's calls through an OpenAI-compatible batch API: it needs "
            f"--judge openai ({why})"
        )


LLM_JUDGE_KEYS = ("model", "base_url", "model_path")
"""`[judge]` keys that only an LLM judge reads and that name which judge is meant."""


DEFAULT_FLOORS: dict[MetricName, float] = {"faithfulness": 0.85, "answer_relevancy": 0.80}


class GateSettings(BaseModel):
    """The gate's bars: floors (noise-aware or literal) and the margin against a baseline."""

    model_config = ConfigDict(extra="forbid")

    floors: dict[MetricName, float] = Field(default_factory=lambda: dict(DEFAULT_FLOORS))
    """Absolute floors per metric, added to the defaults (faithfulness 0.85, answer relevancy
    0.80; none for retrieval metrics); a floor of 0 turns a default off."""
    margin: float = 0.05
    """Non-inferiority margin against the baseline."""
    alpha: float = Field(default=0.05, gt=0.0, lt=1.0)
    """Family-wise error rate across the metrics tested together (between 0 and 1)."""
    baseline: str | None = None
    """Path of the baseline results file."""
    allow_unchecked: bool = False
    """Let a floor or baseline check with fewer than 2 cases to test be skipped (with a
    warning) instead of failing the gate (`gate --allow-unchecked`)."""
    literal: bool = False
    """Literal floors: a mean under its floor fails, even when that is within noise (as
    DeepEval's and promptfoo's thresholds do; `ragmeter gate --literal`). By default floors are
    noise-aware: a mean fails only when it is significantly under its floor."""
    enforce_indicative: bool = False
    """Fail on the floor of a metric whose judge agrees with people near chance (indicative
    only, :mod:`ragmeter.results.indicative`) as on any other; by default it only warns
    (`ragmeter gate --enforce-indicative`). Regressions against the baseline fail either way."""

    @field_validator("floors", mode="after")
    @classmethod
    def _keep_default_floors(cls, floors: dict[MetricName, float]) -> dict[MetricName, float]:
        merged = {**DEFAULT_FLOORS, **floors}
        return {metric: floor for metric, floor in merged.items() if floor > 0}


class Settings(BaseModel):
    """Everything configurable, as read from the config file."""

    model_config = ConfigDict(extra="forbid")

    cases: str | None = None
    """Default eval set."""
    out: str | None = None
    """Default output directory."""
    concurrency: int = Field(default=4, ge=1)
    """Cases in the pipeline at the same time (`--concurrency`); how many calls they make to
    the judge is `judge.concurrency`."""
    min_scored_share: float = Field(default=0.9, ge=0.0, le=1.0)
    """Share of the cases a metric applies to that must be scored; below it `run` exits 3
    and `gate` fails the metric."""
    thresholds: dict[MetricName, float] = Field(default_factory=dict)
    """Per-case failure thresholds (a case below fails the metric)."""
    targets: dict[MetricName, float] = Field(default_factory=dict)
    """Mean below which the diagnosis calls a metric weak (default: the metric's gate floor,
    else `diagnosis.DEFAULT_TARGETS`; see `mean_targets`)."""
    judge: JudgeSettings = Field(default_factory=JudgeSettings)
    gate: GateSettings = Field(default_factory=GateSettings)

    def mean_targets(self) -> dict[MetricName, float]:
        """The diagnosis targets a run uses: `targets`, and for a metric with none there, its
        gate floor, so that the diagnosis and the gate hold a mean to one bar unless both are
        set (the metrics with neither keep the diagnosis's defaults)."""
        return {**self.gate.floors, **self.targets}


def find_config(start: Path | None = None) -> Path | None:
    """The nearest ragmeter.toml, or pyproject.toml with [tool.ragmeter], from `start` up."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / "ragmeter.toml"
        if candidate.is_file():
            return candidate
        pyproject = folder / "pyproject.toml"
        if (
            pyproject.is_file()
            and "tool" in _read_toml(pyproject)
            and "ragmeter" in _read_toml(pyproject)["tool"]
        ):
            return pyproject
    return None


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read configuration: {exc}") from exc


def load_settings(path: str | Path | None = None) -> Settings:
    """Settings from `path`, or from the nearest config file, or the defaults."""
    file = Path(path) if path is not None else find_config()
    if file is None:
        return Settings()
    if not file.is_file():
        raise ConfigError(f"{file}: configuration file not found")
    data = _read_toml(file)
    if file.name == "pyproject.toml":
        data = data.get("tool", {}).get("ragmeter", {})
    try:
        settings = Settings.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"{file}: {describe_validation_error(exc)}") from exc
    settings.judge.mark(source=file)
    return settings


@dataclass(frozen=True, kw_only=True)
class SettingsOverrides:
    """Command-line options that override the config file; None (False for `no_cache`) is
    "not given", so the file or the default stands."""

    judge: str | None = None
    """`--judge`: the judge kind (`[judge] kind`)."""
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    cache_dir: str | None = None
    no_cache: bool = False
    """`--no-cache`: neither read nor write the LLM call cache (wins over `cache_dir`)."""
    max_cost: float | None = None
    patience: float | None = None
    """`--patience`: seconds to wait on HTTP 429 before stopping (`[judge] patience`)."""
    generator_model: str | None = None
    model_path: str | None = None
    threads: int | None = None
    ctx_size: int | None = None
    parallel: int | None = None
    concurrency: int | None = None
    """`--concurrency`: cases in the pipeline at once (top-level `concurrency`)."""
    judge_concurrency: int | None = None
    """`--judge-concurrency`: calls in flight to the judge (`[judge] concurrency`)."""
    min_scored_share: float | None = None
    """`--min-scored` (top-level `min_scored_share`)."""
    batch: bool | None = None
    """`--batch`: judge calls through the endpoint's batch API (`[judge] batch`)."""


_OPTION_NAMES = {"judge": "--judge", "min_scored_share": "--min-scored"}
"""Options whose name is not the field's with dashes."""

_TOP_LEVEL = ("concurrency", "min_scored_share")
"""Overrides of `Settings` itself; the others are `[judge]` keys."""

_JUDGE_KEYS = {"judge": "kind", "judge_concurrency": "concurrency"}
"""Overrides of a `[judge]` key of another name; the others have the key's name."""


def option_name(field: str) -> str:
    """The command-line option of an override field: `base_url` → `--base-url`."""
    return _OPTION_NAMES.get(field, "--" + field.replace("_", "-"))


def apply_overrides(
    settings: Settings, overrides: SettingsOverrides, *, source: Path | None = None
) -> Settings:
    """`settings` (read from `source`, if from a file) with the options given in `overrides`;
    a bad value of a top-level one is a one-line :class:`ConfigError` naming the option. The
    judge's keys are its own to check (`ragmeter.judges.options`): the `[judge]` settings
    returned record which option gave each one, and, when `--judge` names another judge than
    the file's `kind`, that the file's keys were written for another judge (its `[judge.options]`
    are left out). An LLM judge's key (`model`, `base_url`, `model_path`) set with no judge
    kind chosen, by `--judge` or `[judge] kind`, is an error: the local judge would ignore it."""
    given = {
        f.name: value
        for f in fields(overrides)
        if (value := getattr(overrides, f.name)) is not None and f.name != "no_cache"
    }
    by_key = {_JUDGE_KEYS.get(name, name): name for name in given if name not in _TOP_LEVEL}
    judge_updates = {key: given[name] for key, name in by_key.items()}
    options = {key: option_name(name) for key, name in by_key.items() if key != "kind"}
    file_judge = settings.judge.model_dump(exclude_unset=True)
    file_kind = file_judge.get("kind")
    switched = overrides.judge is not None and overrides.judge != file_kind
    if overrides.judge is not None and overrides.judge != settings.judge.kind:
        file_judge.pop("options", None)  # the file's options are its own judge's, not this one's
    if overrides.no_cache:
        judge_updates["cache_dir"] = ""  # an empty cache_dir is how --no-cache is spelled
        options["cache_dir"] = "--no-cache"
    try:
        judge = JudgeSettings.model_validate({**file_judge, **judge_updates})
    except ValidationError as exc:
        raise _option_error(exc, given, by_key) from None
    judge.mark(
        source=source,
        given=options,
        borrowed=frozenset(settings.judge.table()) - set(options) if switched else frozenset(),
    )
    try:
        resolved = Settings.model_validate(
            {
                **settings.model_dump(exclude_unset=True, exclude={"judge", "gate"}),
                **{name: given[name] for name in _TOP_LEVEL if name in given},
                "judge": judge,  # instances are kept as they are, not validated again
                "gate": settings.gate,
            }
        )
    except ValidationError as exc:
        raise _option_error(exc, given, {}) from None
    _refuse_ignored_llm_keys(resolved.judge, overrides, source)
    if problem := resolved.judge.batch_problem():
        where = "" if overrides.batch else f"{source}: [judge] batch = true: " if source else ""
        raise ConfigError(where + problem)
    return resolved


def _option_error(
    exc: ValidationError, given: dict[str, Any], by_key: dict[str, str]
) -> ConfigError:
    """The first problem of an override as one line naming the option and the value given."""
    error = exc.errors()[0]
    key = str(error["loc"][0])
    name = by_key.get(key, key)
    return ConfigError(f"{option_name(name)} {given.get(name)}: {plain_error(error)}")


def _refuse_ignored_llm_keys(
    judge: JudgeSettings, overrides: SettingsOverrides, source: Path | None
) -> None:
    """No judge is chosen for the user: keys only an LLM judge reads, with no kind named, are
    an error that says what to add, not a silent switch away from the default judge."""
    keys = judge.llm_keys_without_kind()
    if not keys:
        return
    kind = "llama" if "model_path" in keys else "openai"
    table = "[tool.ragmeter.judge]" if source and source.name == "pyproject.toml" else "[judge]"
    from_cli = [key for key in keys if getattr(overrides, key) is not None]
    named = [option_name(key) if key in from_cli else f"{table} {key}" for key in keys]
    them = "it" if len(keys) == 1 else "them"
    if source is not None and len(from_cli) < len(keys):
        fix = f'add kind = "{kind}" under {table} in {source}, or pass --judge {kind}'
    else:
        fix = f"pass --judge {kind}"
    raise ConfigError(
        f"{' and '.join(named)} {'is' if len(keys) == 1 else 'are'} set but no judge kind is: "
        f"the default judge, local, would ignore {them}; {fix} "
        "(--judge local keeps the local judge)"
    )


def plain_error(error: ErrorDetails) -> str:
    """A pydantic error as a short phrase: `must be at least 1`."""
    bounds = {
        "greater_than_equal": ("ge", "must be at least {}"),
        "greater_than": ("gt", "must be more than {}"),
        "less_than_equal": ("le", "must be at most {}"),
        "less_than": ("lt", "must be less than {}"),
    }
    if error["type"] in bounds and "ctx" in error:
        key, phrase = bounds[error["type"]]
        return phrase.format(error["ctx"][key])
    message = error["msg"]
    return message[:1].lower() + message[1:]
