"""The Python API: :func:`evaluate` (and :func:`aevaluate`) on data in any usual shape, and
:func:`judge`, which builds a judge by name.

`data` may be a list of dicts (ragmeter or RAGAS names), a pandas DataFrame, a Hugging Face
`datasets.Dataset` or a RAGAS `EvaluationDataset` (anything with `to_list()`), a dict of
columns, :class:`Case` objects, or the path of an eval file. Neither pandas nor `datasets` is
imported unless the data is one.
"""

from __future__ import annotations

import difflib
import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._exceptions import CaseFileError, ConfigError, describe_validation_error
from ._sync import run_sync
from .cases import Case, cases_from_rows, load_cases
from .health import DEFAULT_MIN_SCORED_SHARE
from .judges.base import Judge, MinimalJudge, ensure_judge
from .pipeline import DEFAULT_TIMEOUT, MinimalPipeline, Pipeline, ensure_pipeline
from .vocabulary import METRICS, Lang, MetricName, needs_contexts

if TYPE_CHECKING:
    from .config import JudgeSettings
    from .results import CaseResult, RunInfo, RunResult

_LIST_COLUMNS = frozenset(
    {"contexts", "retrieved_contexts", "reference_contexts", "history", "metadata"}
)
"""Columns that hold lists or objects: a DataFrame read from CSV has them as text."""


def judge(
    kind: str = "local",
    *,
    model: str | None = None,
    base_url: str | None = None,
    api_key_env: str | None = None,
    **settings: Any,
) -> Judge:
    """A judge by name: `"local"` (offline, the default), `"openai"` (any OpenAI-compatible
    endpoint: OpenAI, DeepSeek, Ollama, vLLM, a llama.cpp server), `"llama"` (a bundled model
    served in this process; the `llama` extra) or an installed plugin's name.

    `settings` are the `[judge]` keys of ragmeter.toml (`concurrency`, `max_cost`, `prices`,
    `cache_dir`, `timeout`, `graded`, ...). The API key is read from the environment variable
    `api_key_env` names (default `OPENAI_API_KEY`; local servers need none). A judge holds
    connections (`llama`: a server process): `await judge.aclose()` when done with it;
    :func:`evaluate` closes the judges it builds itself.
    """
    from pydantic import ValidationError

    from .config import JudgeSettings

    if kind == "openai" and not model and not settings.get("model"):
        raise ConfigError(
            "the openai judge needs a model: ragmeter.judge('openai', model='gpt-4o-mini') "
            "(base_url=... for another OpenAI-compatible endpoint)"
        )
    given = {"model": model, "base_url": base_url, "api_key_env": api_key_env}
    fields = {key: value for key, value in given.items() if value is not None}
    try:
        config = JudgeSettings.model_validate({"kind": kind, **fields, **settings})
    except ValidationError as exc:
        raise ConfigError(f"judge '{kind}': {describe_validation_error(exc)}") from None
    return _create_judge(config)


_judge_named = judge  # `evaluate`'s own `judge` argument hides the function's name


def _create_judge(config: JudgeSettings) -> Judge:
    from .judges.registry import create_judge

    keys = config.llm_keys_without_kind()
    if keys:
        kind = "llama" if "model_path" in keys else "openai"
        raise ConfigError(
            f"JudgeSettings sets {' and '.join(keys)} but no kind: the default judge, local, "
            f"would ignore {'it' if len(keys) == 1 else 'them'}; give kind={kind!r} "
            "(or kind='local' to keep the local judge)"
        )
    return create_judge(config)


def parse_metrics(
    metrics: str | Iterable[str] | None, *, option: str = "metrics"
) -> tuple[MetricName, ...]:
    """The metrics named (one name, comma-separated names, or a list of either), in pipeline
    order; None means all four. An unknown name is a :class:`ConfigError` naming the four."""
    if metrics is None:
        return METRICS
    values = [metrics] if isinstance(metrics, str) else list(metrics)
    names = []
    for value in values:
        if not isinstance(value, str):
            raise ConfigError(f"{option}: {value!r} is not a metric name; {_choices()}")
        names += [_normal(part) for part in value.split(",") if part.strip()]
    if not names:
        raise ConfigError(f"{option}: no metric named; {_choices()}")
    for name in names:
        if name not in METRICS:
            close = difflib.get_close_matches(name, METRICS, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise ConfigError(f"{option}: unknown metric '{name}'{hint}; {_choices()}")
    return tuple(m for m in METRICS if m in names)


def _normal(name: str) -> str:
    return name.strip().lower().replace("-", "_").replace(" ", "_")


def _choices() -> str:
    return f"choose from {', '.join(METRICS)}"


def cases_from(data: Any) -> list[Case]:
    """The cases `data` holds, validated as eval files are (errors name `data[i]` and the
    field); see the module doc for the shapes accepted."""
    if isinstance(data, str | os.PathLike):
        return load_cases(Path(data))
    if isinstance(data, Case):
        raise ConfigError("data is one Case; pass a list of cases: [case]")
    if _is_dataframe(data):
        rows: list[Any] = [_from_pandas(row) for row in data.to_dict(orient="records")]
        return cases_from_rows([_parse_text_lists(i, row) for i, row in enumerate(rows)])
    for method in ("to_list", "to_dicts"):  # datasets.Dataset, EvaluationDataset; polars
        to_list = getattr(data, method, None)
        if callable(to_list):
            rows = [_row(item) for item in to_list()]
            return cases_from_rows([_from_pandas(row) for row in rows])
    if isinstance(data, Mapping):
        return cases_from_rows(_columns_to_rows(data))
    if isinstance(data, Iterable) and not isinstance(data, bytes):
        return cases_from_rows([_row(item) for item in data])
    raise ConfigError(
        f"data is a {type(data).__name__}; give a list of dicts, a pandas DataFrame, a "
        "datasets.Dataset, a dict of columns or the path of an eval file"
    )


def _is_dataframe(data: Any) -> bool:
    return all(hasattr(data, attr) for attr in ("to_dict", "columns", "iterrows"))


def _row(item: Any) -> Any:
    """A dict for a RAGAS sample or other pydantic model; dicts and Cases as they are."""
    if isinstance(item, Case | Mapping):
        return item
    dump = getattr(item, "model_dump", None)
    if callable(dump):  # ragas.SingleTurnSample
        return dump(exclude_none=True)
    return item  # cases_from_rows names what it is


def _from_pandas(value: Any) -> Any:
    """Plain Python for what pandas and numpy hand out: NaN, NA and NaT (missing cells) as
    None, arrays as lists, numpy scalars as numbers."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if type(value).__name__ in ("NAType", "NaTType"):
        return None
    if isinstance(value, dict):
        return {key: _from_pandas(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_from_pandas(item) for item in value]
    tolist = getattr(value, "tolist", None)
    if callable(tolist) and not isinstance(value, str | bytes):
        return _from_pandas(tolist())
    return value


def _parse_text_lists(index: int, row: Any) -> Any:
    """In a DataFrame row, list and object columns given as text (a DataFrame read from CSV:
    JSON, or Python's `['a', 'b']`) parsed as ragmeter's CSV reader parses them."""
    if not isinstance(row, dict):
        return row
    from .records import _json_cell

    parsed = dict(row)
    for name, value in row.items():
        if name in _LIST_COLUMNS and isinstance(value, str) and value.strip()[:1] in ("[", "{"):
            try:
                parsed[name] = _json_cell(Path(f"data[{index}]"), value, 0, name)
            except CaseFileError as exc:
                raise CaseFileError(f"data[{index}]", exc.message, field=name) from None
    return parsed


def _columns_to_rows(columns: Mapping[Any, Any]) -> list[dict[str, Any]]:
    """`{"question": [...], "answer": [...]}` (as `Dataset.from_dict` takes) as rows."""
    lists = {str(k): v for k, v in columns.items() if isinstance(v, list | tuple)}
    if not columns or len(lists) != len(columns):
        raise ConfigError(
            "data is a dict but not of columns (every value a list); for one case pass "
            "[{'question': ..., ...}], for columns {'question': [...], 'answer': [...], ...}"
        )
    lengths = {name: len(values) for name, values in lists.items()}
    if len(set(lengths.values())) > 1:
        sizes = ", ".join(f"{name} {n}" for name, n in lengths.items())
        raise ConfigError(f"data columns differ in length ({sizes}); give one value per case")
    count = next(iter(lengths.values()))
    return [{name: values[i] for name, values in lists.items()} for i in range(count)]


def _pipeline(
    pipeline: Any, cases: list[Case], timeout: float | None, metrics: Sequence[MetricName]
) -> tuple[Pipeline, bool]:
    """The pipeline adapter for `pipeline`, and whether it was built here (so closed here)."""
    from .frameworks import framework_of, python_pipeline
    from .pipeline import HttpPipeline, PrecomputedPipeline, load_target

    if pipeline is None:
        lacking = [case.id for case in cases if case.answer is None]
        if lacking:
            from .answers import few_ids

            raise ConfigError(
                f"no pipeline, and {len(lacking)} of {len(cases)} cases have no answer "
                f"({few_ids(lacking)}): pass pipeline=your_rag, a function (question, history) "
                "returning {'contexts': [...], 'answer': '...'}, or give every case its "
                "'response' and 'retrieved_contexts'"
            )
        return PrecomputedPipeline(needs_contexts=needs_contexts(metrics)), True
    if framework_of(pipeline) is not None:  # before the duck-typed check: a chain has `.run`
        return python_pipeline(pipeline, timeout=timeout), True
    if isinstance(pipeline, MinimalPipeline):  # the user's own, perhaps without timeout or aclose
        return ensure_pipeline(pipeline), False
    if isinstance(pipeline, str):
        if pipeline.startswith(("http://", "https://")):
            return HttpPipeline(pipeline, timeout=timeout), True
        return python_pipeline(load_target(pipeline), name=pipeline, timeout=timeout), True
    if callable(pipeline):
        return python_pipeline(pipeline, timeout=timeout), True
    raise ConfigError(
        f"pipeline is a {type(pipeline).__name__}; give a function (question, history) -> "
        "{'contexts': [...], 'answer': '...'}, a LangChain runnable, a LlamaIndex query or "
        "chat engine, 'module:function', an http(s) URL, or None when the data carries "
        "contexts and answers"
    )


def _describe(data: Any, cases: list[Case]) -> str:
    if isinstance(data, str | os.PathLike):
        return str(data)
    return f"(in memory: {type(data).__name__}, {len(cases)} cases)"


async def aevaluate(
    data: Any,
    pipeline: Any = None,
    judge: Judge | MinimalJudge | str | JudgeSettings = "local",
    metrics: str | Iterable[str] | None = None,
    *,
    concurrency: int = 4,
    lang: Lang | None = None,
    timeout: float | None = DEFAULT_TIMEOUT,
    thresholds: Mapping[MetricName, float] | None = None,
    targets: Mapping[MetricName, float] | None = None,
    repeats: int = 1,
    min_scored_share: float = DEFAULT_MIN_SCORED_SHARE,
    info: RunInfo | None = None,
    on_case: Callable[[CaseResult], None] | None = None,
) -> RunResult:
    """Async twin of :func:`evaluate` (same arguments), for code already in an event loop."""
    from .config import JudgeSettings
    from .results import RunInfo
    from .runner import evaluate_async

    chosen = parse_metrics(metrics)
    if concurrency < 1:
        raise ConfigError(f"concurrency {concurrency}: must be at least 1")
    if repeats < 1:
        raise ConfigError(f"repeats {repeats}: must be at least 1")
    cases = cases_from(data)
    source, own_pipeline = _pipeline(pipeline, cases, timeout, chosen)
    if isinstance(judge, str):
        the_judge, own_judge = _judge_named(judge), True
    elif isinstance(judge, JudgeSettings):
        the_judge, own_judge = _create_judge(judge), True
    else:
        the_judge, own_judge = ensure_judge(judge), False
    if info is None:
        info = RunInfo(cases_file=_describe(data, cases), pipeline=source.name)
    try:
        result = await evaluate_async(
            cases,
            source,
            the_judge,
            metrics=chosen,
            concurrency=concurrency,
            lang=lang,
            thresholds=dict(thresholds or {}),
            targets=dict(targets or {}),
            info=info,
            on_case=on_case,
            repeats=repeats,
            min_scored_share=min_scored_share,
        )
    finally:
        if own_pipeline:
            await source.aclose()
        if own_judge:
            await the_judge.aclose()
    return result


def evaluate(
    data: Any,
    pipeline: Any = None,
    judge: Judge | MinimalJudge | str | JudgeSettings = "local",
    metrics: str | Iterable[str] | None = None,
    *,
    concurrency: int = 4,
    lang: Lang | None = None,
    timeout: float | None = DEFAULT_TIMEOUT,
    thresholds: Mapping[MetricName, float] | None = None,
    targets: Mapping[MetricName, float] | None = None,
    repeats: int = 1,
    min_scored_share: float = DEFAULT_MIN_SCORED_SHARE,
    info: RunInfo | None = None,
    on_case: Callable[[CaseResult], None] | None = None,
) -> RunResult:
    """Evaluate `data` and return the run (the same record `ragmeter run` writes).

    - `data`: a list of dicts (ragmeter or RAGAS names: `question`/`user_input`,
      `contexts`/`retrieved_contexts`, `answer`/`response`, `ground_truth`/`reference`), a
      pandas DataFrame, a `datasets.Dataset`, a dict of columns, a list of :class:`Case`, or
      the path of an eval file (.jsonl, .json, .yaml, .csv).
    - `pipeline`: None when the data carries contexts and answers; else a function
      `(question, history)` (sync or async) returning `{"contexts": [...], "answer": "..."}`,
      a `"module:function"` string, an `http(s)://` endpoint, or a :class:`Pipeline`.
    - `judge`: a name (`"local"`, `"openai"`, `"llama"`) or a judge from :func:`judge`.
    - `metrics`: None for all four, or some of `context_recall`, `context_precision`,
      `faithfulness`, `answer_relevancy` (a list, or one comma-separated string).

    The rest are as in `ragmeter run`: `concurrency` cases at once, `lang` to judge every case
    in, the pipeline's `timeout` per case, failure `thresholds`, diagnosis `targets`,
    `repeats`, `min_scored_share`; `on_case` is called with each finished case.

    Works inside a running event loop too (a notebook): the run then goes on in a thread of
    its own. The result has `.to_pandas()`, `.to_csv(path)`, `.summary_dict()`, `.cases`,
    `.health` and `.diagnosis`; :func:`ragmeter.save_run` writes it for `ragmeter report`.
    """
    coroutine = aevaluate(
        data,
        pipeline,
        judge,
        metrics,
        concurrency=concurrency,
        lang=lang,
        timeout=timeout,
        thresholds=thresholds,
        targets=targets,
        repeats=repeats,
        min_scored_share=min_scored_share,
        info=info,
        on_case=on_case,
    )
    return run_sync(coroutine)  # aevaluate closes the pipeline and judge it made


__all__ = ["aevaluate", "cases_from", "evaluate", "judge", "parse_metrics"]
