"""The one door to an evaluation: :func:`evaluate` (and :func:`aevaluate`) on data in any
usual shape, :func:`judge`, which builds a judge by name, and the file-and-settings entries the
command line and the pytest plugin call (:func:`run_and_save`, :func:`estimate_run`,
:func:`calibrate_labels`, :func:`run_demo`). Every one resolves its pipeline with
:func:`resolve_pipeline`, builds its judge with :func:`build_judge` and looks up the judge's
calibration notes, then hands all three to the runner (`ragmeter.run`, internal), which keeps
the notes of the metrics that ran.

A judge or pipeline object from outside (the user's, or a plugin's factory's) needs only the
:class:`~ragmeter.judges.base.Judge` or :class:`~ragmeter.pipeline.Pipeline` protocol; one that
does not subclass :class:`~ragmeter.judges.base.JudgeBase` or
:class:`~ragmeter.pipeline.PipelineBase` is adapted here, once (:func:`as_judge`,
:func:`as_pipeline`), and everything behind the door takes the base classes.

`data` may be in any usual shape (:func:`ragmeter.cases.cases_from`): a list of dicts, a pandas
DataFrame, a `datasets.Dataset`, a dict of columns, :class:`Case` objects, or an eval file.
"""

from __future__ import annotations

import asyncio
import difflib
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from ._exceptions import (
    ConfigError,
    ResultsError,
    RunInterrupted,
    describe_validation_error,
)
from ._util.sync import run_sync
from .cases import Case, case_lang, cases_from, load_cases
from .config import JudgeSettings, Settings, SettingsOverrides, apply_overrides, find_config
from .config import load_settings as _load_settings
from .demo import DemoConfig, DemoPipeline, demo_cases_path
from .frameworks import framework_of, python_pipeline
from .judges.base import Judge, JudgeBase
from .judges.registry import check_judge_settings, create_judge
from .pipeline import (
    DEFAULT_TIMEOUT,
    AnswersFilePipeline,
    CallablePipeline,
    HttpPipeline,
    Pipeline,
    PipelineBase,
    PipelineOutput,
    PrecomputedPipeline,
    check_timeout,
    load_target,
    run_case,
)
from .pipeline.answers import few_ids
from .results import (
    PARTIAL_FILE,
    RESULTS_FILE,
    CaseResult,
    RunInfo,
    RunResult,
    load_run,
    prepare_out_dir,
    save_run,
)
from .results.calibration import Calibration
from .results.health import DEFAULT_MIN_SCORED_SHARE
from .results.spool import CaseSpool
from .run import build_sample, judge_cases
from .run.calibrate import calibrate_async, calibration_notes
from .vocabulary import (
    METRICS,
    JudgeFingerprint,
    Lang,
    MetricName,
    MetricResult,
    Sample,
    needs_contexts,
)

if TYPE_CHECKING:
    from .cases.labels import LabelledCase

ProgressDisplay = Callable[[int, JudgeBase], AbstractContextManager[Callable[[CaseResult], None]]]
"""Shows a run's progress: called with the number of cases and the judge, it yields the
callback each finished case is passed to (the CLI passes its progress bar)."""


def judge(
    kind: str = "local",
    *,
    model: str | None = None,
    base_url: str | None = None,
    api_key_env: str | None = None,
    **settings: Any,
) -> JudgeBase:
    """A judge by name: `"local"` (offline, the default), `"openai"` (any OpenAI-compatible
    endpoint: OpenAI, DeepSeek, Ollama, vLLM, a llama.cpp server), `"llama"` (a bundled model
    served in this process; the `llama` extra) or an installed plugin's name.

    `settings` are the `[judge]` keys of ragmeter.toml (`concurrency`, `max_cost`, `prices`,
    `cache_dir`, `timeout`, `graded`, ...). The API key is read from the environment variable
    `api_key_env` names (default `OPENAI_API_KEY`; local servers need none). A judge holds
    connections (`llama`: a server process): `await judge.aclose()` when done with it;
    :func:`evaluate` closes the judges it builds itself.
    """
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
    return build_judge(config)


_judge_named = judge  # `evaluate`'s own `judge` argument hides the function's name


def build_judge(settings: Settings | JudgeSettings) -> JudgeBase:
    """The judge the settings (or their `[judge]` table) name, through the entry-point
    registry: the one place every door builds a judge. Keys only an LLM judge reads, set with
    no kind, are an error rather than a silent local judge."""
    config = settings.judge if isinstance(settings, Settings) else settings
    keys = config.llm_keys_without_kind()
    if keys:
        kind = "llama" if "model_path" in keys else "openai"
        raise ConfigError(
            f"JudgeSettings sets {' and '.join(keys)} but no kind: the default judge, local, "
            f"would ignore {'it' if len(keys) == 1 else 'them'}; give kind={kind!r} "
            "(or kind='local' to keep the local judge)"
        )
    return as_judge(create_judge(config))  # a plugin's factory may return a bare Judge


def as_judge(judge: Judge) -> JudgeBase:
    """`judge` as everything behind the door takes it: itself when it subclasses
    :class:`JudgeBase`, else wrapped once so that the members the :class:`Judge` protocol
    leaves out default (those it has of its own are used)."""
    return judge if isinstance(judge, JudgeBase) else _ProtocolJudge(judge)


def as_pipeline(pipeline: Pipeline) -> PipelineBase:
    """`pipeline` as everything behind the door takes it: itself when it subclasses
    :class:`PipelineBase`, else wrapped once so that `timeout` and `aclose` default (its own
    are used when it has them)."""
    return pipeline if isinstance(pipeline, PipelineBase) else _ProtocolPipeline(pipeline)


class _ProtocolJudge(JudgeBase):
    """A judge that satisfies :class:`Judge` without subclassing :class:`JudgeBase`: the
    optional members it has are used, the rest default (a plugin judge with only `name`,
    `fingerprint` and `judge` keeps working)."""

    def __init__(self, inner: Judge) -> None:
        self.inner = inner
        name = getattr(inner, "name", None)  # nothing read it before: it may be missing
        self.name = name if isinstance(name, str) else type(inner).__name__

    @property
    def warning(self) -> str | None:
        value = getattr(self.inner, "warning", None)
        return value if isinstance(value, str) and value else None

    @property
    def decision_thresholds(self) -> dict[MetricName, float]:  # type: ignore[override]
        value = getattr(self.inner, "decision_thresholds", None)
        return value if isinstance(value, dict) else {}

    @property
    def in_rounds(self) -> bool:
        return getattr(self.inner, "in_rounds", False) is True

    def fingerprint(self) -> JudgeFingerprint:
        return self.inner.fingerprint()

    async def judge(
        self, sample: Sample, metrics: tuple[MetricName, ...] = METRICS
    ) -> dict[MetricName, MetricResult]:
        return await self.inner.judge(sample, metrics)

    def stats(self) -> dict[str, Any]:
        stats = getattr(self.inner, "stats", None)
        return stats() if callable(stats) else {}

    def estimate(self, samples: Sequence[Sample], metrics: tuple[MetricName, ...] = METRICS) -> Any:
        estimate = getattr(self.inner, "estimate", None)
        return estimate(samples, metrics) if callable(estimate) else None

    async def aclose(self) -> None:
        close = getattr(self.inner, "aclose", None)
        if callable(close):
            await close()


class _ProtocolPipeline(PipelineBase):
    """A pipeline that satisfies :class:`Pipeline` without subclassing :class:`PipelineBase`:
    its own `timeout` and `aclose` when it has them, else the defaults."""

    def __init__(self, inner: Pipeline) -> None:
        self.inner = inner
        name = getattr(inner, "name", "")  # a duck-typed pipeline may lack it
        self.name = name if isinstance(name, str) else ""
        seconds = getattr(inner, "timeout", DEFAULT_TIMEOUT)
        if seconds is not None and (
            isinstance(seconds, bool) or not isinstance(seconds, int | float)
        ):
            seconds = DEFAULT_TIMEOUT  # a `timeout` attribute that means something else
        self.timeout = seconds

    async def run(self, case: Case) -> PipelineOutput:
        return await self.inner.run(case)

    async def aclose(self) -> None:
        close = getattr(self.inner, "aclose", None)
        if callable(close):
            await close()


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


def resolve_pipeline(
    pipeline: Any,
    cases: Sequence[Case],
    *,
    timeout: float | None = DEFAULT_TIMEOUT,
    metrics: Sequence[MetricName] | None = None,
    answers: Path | str | None = None,
    missing: Callable[[list[str], int], str] | None = None,
) -> tuple[PipelineBase, bool]:
    """The pipeline adapter for `pipeline`, and whether it was built here (so closed by the
    caller that asked): a framework object, a :class:`Pipeline`, a `"module:function"` or
    `http(s)://` string, a callable, an answers file (`answers`), or None when every case
    carries its answer (then the cases' contexts are needed only for the `metrics` that read
    them). A `"module:name"` naming a framework object, a pipeline or a callable is taken as
    that object would be. `missing(ids, n)` words the error when nothing answers the cases."""
    if answers:
        return AnswersFilePipeline(answers), True
    if pipeline is None:
        lacking = [case.id for case in cases if case.answer is None]
        if lacking or not cases:
            raise ConfigError((missing or _missing_pipeline)(lacking, len(cases)))
        return PrecomputedPipeline(needs_contexts=needs_contexts(metrics)), True
    if isinstance(pipeline, str) and pipeline.startswith(("http://", "https://")):
        return HttpPipeline(pipeline, timeout=timeout), True
    named = pipeline if isinstance(pipeline, str) else None  # a "module:name" is built here
    target = pipeline if named is None else load_target(named)
    framework = framework_of(target) is not None  # before the protocol: a chain has `.run`
    if not framework and isinstance(target, Pipeline):
        return as_pipeline(target), named is not None  # the user's own, perhaps without timeout
    if framework or named is not None or callable(target):
        return python_pipeline(target, name=named, timeout=timeout), True
    raise ConfigError(
        f"pipeline is a {type(pipeline).__name__}; give a function (question, history) -> "
        "{'contexts': [...], 'answer': '...'}, a LangChain runnable, a LlamaIndex query or "
        "chat engine, 'module:function', an http(s) URL, or None when the data carries "
        "contexts and answers"
    )


def _missing_pipeline(lacking: list[str], total: int) -> str:
    return (
        f"no pipeline, and {len(lacking)} of {total} cases have no answer "
        f"({few_ids(lacking)}): pass pipeline=your_rag, a function (question, history) "
        "returning {'contexts': [...], 'answer': '...'}, or give every case its "
        "'response' and 'retrieved_contexts'"
    )


def _describe(data: Any, cases: list[Case]) -> str:
    if isinstance(data, str | os.PathLike):
        return str(data)
    return f"(in memory: {type(data).__name__}, {len(cases)} cases)"


async def aevaluate(
    data: Any,
    pipeline: Any = None,
    judge: Judge | str | JudgeSettings = "local",
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
    chosen = parse_metrics(metrics)
    if concurrency < 1:
        raise ConfigError(f"concurrency {concurrency}: must be at least 1")
    if repeats < 1:
        raise ConfigError(f"repeats {repeats}: must be at least 1")
    cases = cases_from(data)
    source, own_pipeline = resolve_pipeline(pipeline, cases, timeout=timeout, metrics=chosen)
    if isinstance(judge, str):
        the_judge, own_judge = _judge_named(judge), True
    elif isinstance(judge, JudgeSettings):
        the_judge, own_judge = build_judge(judge), True
    else:
        the_judge, own_judge = as_judge(judge), False
    if info is None:
        info = RunInfo(cases_file=_describe(data, cases), pipeline=source.name)
    try:
        result = await judge_cases(
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
            calibration=calibration_notes(the_judge.fingerprint()),
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
    judge: Judge | str | JudgeSettings = "local",
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


async def evaluate_async(
    cases: Sequence[Case],
    pipeline: Pipeline,
    judge: Judge,
    **options: Any,
) -> RunResult:
    """Evaluate :class:`Case` objects with a pipeline and judge you built (the older form of
    :func:`aevaluate`): the same run, with the judge's calibration notes for the metrics that
    ran; `options` are the runner's (`metrics` as a tuple, `concurrency`, `lang`, `thresholds`,
    `targets`, `info`, `on_case`, `repeats`, `min_scored_share`). The pipeline and judge stay
    open, the caller's to close."""
    the_judge = as_judge(judge)
    options.setdefault("calibration", calibration_notes(the_judge.fingerprint()))
    return await judge_cases(cases, as_pipeline(pipeline), the_judge, **options)


def resolve_settings(
    config: Path | str | None = None, overrides: SettingsOverrides | None = None
) -> Settings:
    """Settings from the config file (`config`, or the nearest one) with the command-line
    `overrides` applied (see :func:`~ragmeter.config.apply_overrides`), the judge's checked as
    building it will check them, so a bad key stops the command before any work."""
    source = Path(config) if config is not None else find_config()
    settings = _load_settings(source) if source is not None else Settings()
    resolved = apply_overrides(settings, overrides or SettingsOverrides(), source=source)
    check_judge_settings(resolved.judge)
    return resolved


load_settings = _load_settings
"""The settings of one config file as written (no overrides): the pytest plugin's gate."""


def results_path(out: Path | str) -> Path:
    """Where a run given `--out out` (a directory or its results.json) is written."""
    path = Path(out)
    return path if path.name == RESULTS_FILE else path / RESULTS_FILE


def build_pipeline(
    cases: Sequence[Case],
    *,
    pipeline: str | None = None,
    answers: Path | str | None = None,
    endpoint: str | None = None,
    timeout: float | None = None,
    metrics: Sequence[MetricName] | None = None,
) -> PipelineBase:
    """The command line's pipeline: exactly one of `--pipeline`, `--answers`, `--endpoint`,
    or the cases' own answers, resolved by :func:`resolve_pipeline`; `timeout` is the seconds
    one case may take (default `pipeline.DEFAULT_TIMEOUT`)."""
    timeout = DEFAULT_TIMEOUT if timeout is None else check_timeout(timeout)
    given = [
        name
        for name, value in (
            ("--pipeline", pipeline),
            ("--answers", answers),
            ("--endpoint", endpoint),
        )
        if value
    ]
    if len(given) > 1:
        raise ConfigError(f"give only one of {', '.join(given)}")
    source, _ = resolve_pipeline(
        endpoint or pipeline or None,
        cases,
        timeout=timeout,
        metrics=metrics,
        answers=answers,
        missing=_missing_cli_pipeline,
    )
    return source


def _missing_cli_pipeline(_lacking: list[str], _total: int) -> str:
    return (
        "no pipeline: pass --pipeline module:function, --answers FILE or --endpoint URL "
        "(or use an eval set whose cases carry contexts and answers)"
    )


def run_and_save(
    cases: Sequence[Case],
    pipeline: Pipeline,
    settings: Settings,
    *,
    out_dir: Path | str,
    cases_file: str = "",
    pipeline_name: str | None = None,
    judge: Judge | None = None,
    lang: Lang | None = None,
    repeats: int = 1,
    progress: ProgressDisplay | None = None,
    metrics: tuple[MetricName, ...] = METRICS,
    overwrite: bool = False,
    shard: str | None = None,
    cases_digest: str | None = None,
) -> RunResult:
    """Run, judge and write `out_dir/results.json` atomically; return the run (`shard`:
    the `I/N` the cases are, recorded for `ragmeter merge` with `cases_digest`, the whole
    eval set's :func:`~ragmeter.cases.digest.eval_set_digest`; without it the digest is that
    of `cases`).

    `out_dir` (or its results.json) is checked before any work; an existing run there is
    replaced only with `overwrite`. Ctrl-C raises RunInterrupted and writes nothing; so does a
    judge that can judge nothing (JudgeUnavailable).
    """
    out_dir = prepare_out_dir(out_dir, overwrite=overwrite)
    judge = build_judge(settings) if judge is None else as_judge(judge)
    pipeline = as_pipeline(pipeline)  # a bare one gets the default timeout, name and aclose
    info = RunInfo(
        cases_file=cases_file,
        cases_digest=cases_digest,
        pipeline=pipeline_name or pipeline.name,
        shard=shard,
    )

    # Each case goes to disk as it is judged (next to results.json, unnamed, gone with the
    # run); the summary, the report and results.json read them back one at a time. The
    # journal keeps them too until the run ends, for a process that dies without unwinding.
    spool = CaseSpool(len(cases), directory=out_dir, journal=out_dir / PARTIAL_FILE)

    def judged(on_case: Callable[[CaseResult], None]) -> RunResult:
        coroutine = judge_cases(
            cases,
            pipeline,
            judge,
            metrics=metrics,
            concurrency=settings.concurrency,
            lang=lang,
            thresholds=settings.thresholds,
            targets=settings.mean_targets(),
            info=info,
            on_case=on_case,
            repeats=repeats,
            min_scored_share=settings.min_scored_share,
            spool=spool,
            calibration=calibration_notes(judge.fingerprint()),
        )
        return run_sync(coroutine, closing=(pipeline, judge))

    try:
        try:
            if progress is not None:
                with progress(len(cases), judge) as advance:
                    result = judged(advance)
            else:
                result = judged(lambda _case: None)
        except (KeyboardInterrupt, asyncio.CancelledError):
            kept = (
                f"; {out_dir / 'results.json'} is unchanged"
                if (out_dir / "results.json").exists()
                else ""
            )
            raise RunInterrupted(f"interrupted: nothing written{kept}") from None
        save_run(result, out_dir)
    finally:
        spool.discard_journal()
    return result


def estimate_run(
    cases: Sequence[Case],
    pipeline: PipelineBase,
    settings: Settings,
    *,
    lang: Lang | None = None,
    metrics: tuple[MetricName, ...] = METRICS,
) -> Any:
    """What judging would cost: runs the pipeline (not the judge; :func:`build_pipeline`'s)
    and asks the judge for an estimate. Returns None for judges that make no paid calls (the
    local judge)."""
    judge = build_judge(settings)
    if judge.estimate([], metrics) is None:  # no paid calls: no need to run the pipeline
        run_sync(asyncio.sleep(0), closing=(pipeline, judge))
        return None

    async def samples() -> list[Sample]:
        out: list[Sample] = []
        for case in cases:
            try:
                output = await run_case(pipeline, case)
            except Exception:  # a failing or timed-out case costs nothing to judge
                continue
            out.append(build_sample(case, output.contexts, output.answer, case_lang(case, lang)))
        return out

    return judge.estimate(run_sync(samples(), closing=(pipeline, judge)), metrics)


def run_demo(
    variant: str = "default",
    *,
    out_dir: Path | str = "ragmeter-out/demo",
    overrides: dict[str, Any] | None = None,
    progress: ProgressDisplay | None = None,
    judge: Judge | None = None,
    overwrite: bool = False,
) -> RunResult:
    """Evaluate the bundled demo pipeline (`variant`) on the bundled eval set, offline.

    A demo run already in `out_dir` is replaced; any other run there only with `overwrite`."""

    config = DemoConfig.for_variant(variant)
    if overrides:
        config = DemoConfig.model_validate({**config.model_dump(), **overrides})
    described = ", ".join(f"{k}={v}" for k, v in config.model_dump().items() if v is not None)
    pipeline = CallablePipeline(DemoPipeline(config), name=f"demo:{variant}")
    cases_path = demo_cases_path()
    return run_and_save(
        load_cases(cases_path),
        pipeline,
        Settings(),
        out_dir=out_dir,
        cases_file=f"(bundled) {cases_path.name}",
        pipeline_name=f"demo {variant} ({described})",
        judge=judge,
        progress=progress,
        overwrite=overwrite or _holds_demo_run(out_dir),
    )


def _holds_demo_run(out_dir: Path | str) -> bool:
    """Whether `out_dir` holds a readable run of the demo pipeline (safe to replace)."""
    path = results_path(out_dir)
    if not path.is_file():
        return False
    try:
        return load_run(path).run.pipeline.startswith("demo ")
    except ResultsError:
        return False


def calibrate_labels(
    cases: Sequence[LabelledCase],
    settings: Settings,
    *,
    metrics: Sequence[MetricName] | None = None,
    threshold: float | None = None,
    worst: int = 5,
    labels_file: str = "",
    progress: ProgressDisplay | None = None,
) -> Calibration:
    """Judge the labelled `cases` with the judge the settings name and measure its agreement
    with the labels (:func:`ragmeter.run.calibrate.calibrate_async`); the judge is closed after."""
    judge = build_judge(settings)

    def measured(on_case: Callable[[CaseResult], None] | None) -> Calibration:
        coroutine = calibrate_async(
            cases,
            judge,
            metrics=metrics,
            concurrency=settings.concurrency,
            threshold=threshold,
            worst=worst,
            labels_file=labels_file,
            on_case=on_case,
        )
        return run_sync(coroutine, closing=(judge,))

    if progress is None:
        return measured(None)
    with progress(len(cases), judge) as advance:
        return measured(advance)


__all__ = [
    "ProgressDisplay",
    "aevaluate",
    "as_judge",
    "as_pipeline",
    "build_judge",
    "build_pipeline",
    "calibrate_labels",
    "cases_from",
    "estimate_run",
    "evaluate",
    "evaluate_async",
    "judge",
    "load_settings",
    "parse_metrics",
    "resolve_pipeline",
    "resolve_settings",
    "results_path",
    "run_and_save",
    "run_demo",
]
