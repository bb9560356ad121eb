"""Judge kinds that own their settings, and the one check of them.

A :class:`JudgeKind` is what a `ragmeter.judges` entry point names when the judge declares its
settings: `options()`, the pydantic model of every key the judge reads, and `build(options)`,
the one translation from those to the judge. Calling the kind with the `[judge]` settings
(:class:`~ragmeter.config.JudgeSettings`: the table's keys, `[judge.options]`, command-line
options, :func:`ragmeter.judge` keywords, one mapping) checks them once, here, and builds.

The check names the key as the user gave it (`--threads`, `[judge] 'threads'` of a file,
`[judge.options] 'threads'`) and the judge; a key no judge takes gets a "did you mean" from
the judge's own keys; a key of another built-in judge is an error naming that judge, except
where it was written for another judge (a file table whose `kind` `--judge` replaced) or the
judge leaves such keys aside (the local judge: the LLM judges' settings change nothing for it).
"""

from __future__ import annotations

import difflib
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from .._exceptions import ConfigError
from ..config import JudgeSettings, plain_error

if TYPE_CHECKING:
    from .base import Judge

Options = TypeVar("Options", bound=BaseModel)
"""A judge's options model."""


class JudgeKind(ABC, Generic[Options]):
    """A judge that declares its settings. Subclass it, set `name`, and write `options()`
    (the model: import it there, so that finding the judges imports none of them) and
    `build(options)`; an instance is a factory `create(settings) -> Judge` too."""

    name: ClassVar[str]
    """The judge's name, as `kind` and `--judge` give it."""
    refused: ClassVar[Mapping[str, str]] = {}
    """Keys this judge refuses whoever set them, with the reason (a key that would be taken
    for something it is not: the llama judge's `base_url`)."""
    leaves_aside_other_judges: ClassVar[bool] = False
    """True: a key another built-in judge takes is left aside wherever it was set (the local
    judge: `--judge local` runs it whatever else the config sets)."""

    @abstractmethod
    def options(self) -> type[Options]:
        """The model of every key this judge reads (`extra="forbid"`)."""

    @abstractmethod
    def build(self, options: Options) -> Judge:
        """The judge, from its checked options."""

    def check(self, settings: JudgeSettings) -> Options:
        """`settings` checked against :meth:`options`, once; a problem is a one-line
        :class:`ConfigError` naming the key and the judge."""
        return check_options(self, settings)

    def __call__(self, settings: JudgeSettings) -> Judge:
        return self.build(self.check(settings))


def check_options(kind: JudgeKind[Options], settings: JudgeSettings) -> Options:
    """The keys of `settings` (its table's and `[judge.options]`, one mapping) as `kind`'s
    options: see the module's docstring for which keys are errors and which are left aside."""
    if problem := settings.batch_problem():
        raise ConfigError(problem)
    model = kind.options()
    given = {key: value for key, value in settings.table().items() if value is not None}
    for key in settings.options:
        if key in given:
            raise ConfigError(
                f"{settings.where(key)} and [judge.options] '{key}' are both set: keep one"
            )
    chosen: dict[str, Any] = {}
    for key, value in {**given, **settings.options}.items():
        in_options = key in settings.options
        if key in model.model_fields:
            chosen[key] = value
            continue
        where = settings.where_options(key) if in_options else settings.where(key)
        if key in kind.refused:
            raise ConfigError(kind.refused[key])
        takers = other_judges_taking(key, kind.name)
        set_aside = kind.leaves_aside_other_judges or key in settings.borrowed()
        if takers and not in_options and set_aside:
            continue  # written for another judge
        raise ConfigError(_not_an_option(where, key, kind.name, list(model.model_fields), takers))
    try:
        return model.model_validate(chosen)
    except ValidationError as exc:
        raise _value_error(exc, settings, kind.name) from None


def other_judges_taking(key: str, name: str) -> list[str]:
    """The built-in judges other than `name` that take `key`. Their options models are
    imported only here, when a key is not the judge's own: a local run given an LLM judge's key
    (`--no-cache`, `--max-cost`, a table written for the openai judge) imports the LLM
    judge's modules to know it is one (about 0.15 s), where a run without one does not."""
    from .factories import BUILTIN

    return [k.name for k in BUILTIN if k.name != name and key in k.options().model_fields]


def _not_an_option(
    where: str, key: str, name: str, known: list[str], takers: list[str]
) -> ConfigError:
    if takers:
        judges = " and ".join(f"the {taker}" for taker in takers)
        return ConfigError(
            f"{where}: not an option of the {name} judge; {judges} judge"
            f"{'s take' if len(takers) > 1 else ' takes'} it"
        )
    close = difflib.get_close_matches(key, known, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    return ConfigError(
        f"{where}: not an option of the {name} judge{hint}; it takes {', '.join(known)}"
    )


def _value_error(exc: ValidationError, settings: JudgeSettings, name: str) -> ConfigError:
    """The first problem of a value as one line naming where it was set: a command-line
    option as `--judge-concurrency 0: must be at least 1`, a key as `[judge.options]
    'n_questions': input should be ... (the openai judge)`."""
    first = exc.errors()[0]
    key = str(first["loc"][0]) if first["loc"] else ""
    option = settings.option_of(key) if key else None
    if option is not None:
        return ConfigError(f"{option} {settings.table().get(key)}: {plain_error(first)}")
    message = first["msg"].removeprefix("Value error, ")  # a check across keys
    message = message[:1].lower() + message[1:]
    if not key:
        where = settings.where_options() if settings.options else settings.where_table()
    elif key in settings.options:
        where = settings.where_options(key)
    else:
        where = settings.where(key)
    return ConfigError(f"{where}: {message} (the {name} judge)")
