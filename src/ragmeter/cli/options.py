"""Options several commands share, declared once (Typer's `Annotated` style).

Each command gives the default in its own signature, e.g. `judge: JudgeOpt = None`.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

JudgeOpt = Annotated[
    str | None, typer.Option("--judge", "-j", help="Judge: local (default), openai or llama.")
]
ModelOpt = Annotated[str | None, typer.Option("--model", "-m", help="Judge model (LLM judges).")]
BaseUrlOpt = Annotated[
    str | None, typer.Option("--base-url", help="OpenAI-compatible endpoint URL.")
]
ApiKeyEnvOpt = Annotated[
    str | None,
    typer.Option("--api-key-env", help="Environment variable with the judge's API key."),
]
ConcurrencyOpt = Annotated[
    int | None,
    typer.Option(
        "--concurrency",
        help="Cases run at the same time (default 4; `concurrency` in ragmeter.toml).",
    ),
]
JudgeConcurrencyOpt = Annotated[
    int | None,
    typer.Option(
        "--judge-concurrency",
        help="Calls in flight to the judge at once (LLM judges; default 8; `concurrency` of the "
        "judge table in ragmeter.toml).",
    ),
]
CacheDirOpt = Annotated[Path | None, typer.Option("--cache-dir", help="LLM call cache location.")]
NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="Do not read or write the cache.")]
ConfigOpt = Annotated[
    Path | None, typer.Option("--config", help="ragmeter.toml (default: found upwards).")
]
ProgressOpt = Annotated[bool, typer.Option("--progress/--no-progress", help="Show a progress bar.")]
ModelPathOpt = Annotated[
    Path | None,
    typer.Option("--model-path", help="llama judge: a GGUF file instead of the bundled model."),
]
ThreadsOpt = Annotated[
    int | None,
    typer.Option("--threads", min=1, help="llama judge: CPU threads (all cores but one)."),
]
CtxSizeOpt = Annotated[
    int | None,
    typer.Option("--ctx-size", min=512, help="llama judge: context tokens per slot (4096)."),
]
ParallelOpt = Annotated[
    int | None,
    typer.Option("--parallel", min=1, help="llama judge: calls decoded at once (1)."),
]


class OutputFormat(StrEnum):
    """What a command prints: the readable text, or JSON for scripts."""

    text = "text"
    json = "json"


FormatOpt = Annotated[
    OutputFormat,
    typer.Option("--format", "-f", help="text (default) or json.", case_sensitive=False),
]
LegacyJsonOpt = Annotated[
    bool, typer.Option("--json", hidden=True, help="The same as --format json.")
]


def wants_json(output_format: OutputFormat, legacy_json: bool) -> bool:
    """Whether to print JSON: `--format json`, or the older `--json` flag."""
    return legacy_json or output_format is OutputFormat.json


FailuresLimitOpt = Annotated[int, typer.Option("--limit", min=0, help="Failed cases to list.")]
"""`--limit N`: at most N listed, the one name every command gives its limit."""

LEGACY_SPELLINGS: dict[str, str] = {"max-failures": "limit", "max-broken": "limit"}
"""Option names that still work, hidden from help, and the name each has now."""


def legacy_spelling(token: str) -> str:
    """The app's token normaliser (click's `token_normalize_func`, which sees an option name
    without its dashes): an older option name is read as the one it has now."""
    return LEGACY_SPELLINGS.get(token, token)
