"""Evaluate from files and options: settings → pipeline → judge → runner → results.json.

The command line and the pytest plugin call these; they hold the wiring, not the scoring.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from ._exceptions import ConfigError, RunInterrupted
from ._sync import run_sync
from .cases import Case
from .config import Settings, SettingsOverrides, apply_overrides, find_config, load_settings
from .judges.base import Judge, MinimalJudge, ensure_judge
from .pipeline import MinimalPipeline, Pipeline, ensure_pipeline
from .results import (
    PARTIAL_FILE,
    CaseResult,
    RunInfo,
    RunResult,
    prepare_out_dir,
    save_run,
)
from .spool import CaseSpool
from .vocabulary import METRICS, Lang, MetricName, Sample, needs_contexts

ProgressDisplay = Callable[[int, Judge], AbstractContextManager[Callable[[CaseResult], None]]]
"""Shows a run's progress: called with the number of cases and the judge, it yields the
callback each finished case is passed to (the CLI passes its progress bar)."""


def resolve_settings(
    config: Path | str | None = None, overrides: SettingsOverrides | None = None
) -> Settings:
    """Settings from the config file (`config`, or the nearest one) with the command-line
    `overrides` applied (see :func:`~ragmeter.config.apply_overrides`)."""
    source = Path(config) if config is not None else find_config()
    settings = load_settings(source) if source is not None else Settings()
    return apply_overrides(settings, overrides or SettingsOverrides(), source=source)


def results_path(out: Path | str) -> Path:
    """Where a run given `--out out` (a directory or its results.json) is written."""
    from .results import RESULTS_FILE

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
) -> Pipeline:
    """The pipeline adapter for exactly one of the sources, or the cases' own answers;
    `timeout` is the seconds one case may take (default `pipeline.DEFAULT_TIMEOUT`); the
    cases' own answers need contexts only for the `metrics` that read them."""
    from .frameworks import python_pipeline
    from .pipeline import (
        DEFAULT_TIMEOUT,
        AnswersFilePipeline,
        HttpPipeline,
        PrecomputedPipeline,
        check_timeout,
        load_target,
    )

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
    if pipeline:
        return python_pipeline(load_target(pipeline), name=pipeline, timeout=timeout)
    if answers:
        return AnswersFilePipeline(answers)
    if endpoint:
        return HttpPipeline(endpoint, timeout=timeout)
    if cases and all(c.answer is not None for c in cases):
        return PrecomputedPipeline(needs_contexts=needs_contexts(metrics))
    raise ConfigError(
        "no pipeline: pass --pipeline module:function, --answers FILE or --endpoint URL "
        "(or use an eval set whose cases carry contexts and answers)"
    )


def build_judge(settings: Settings) -> Judge:
    """The judge the settings name, through the entry-point registry."""
    from .judges.registry import create_judge

    return create_judge(settings.judge)


def run_and_save(
    cases: Sequence[Case],
    pipeline: Pipeline | MinimalPipeline,
    settings: Settings,
    *,
    out_dir: Path | str,
    cases_file: str = "",
    pipeline_name: str | None = None,
    judge: Judge | MinimalJudge | None = None,
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
    eval set's :func:`~ragmeter.eval_digest.eval_set_digest`; without it the digest is that
    of `cases`).

    `out_dir` (or its results.json) is checked before any work; an existing run there is
    replaced only with `overwrite`. Ctrl-C raises RunInterrupted and writes nothing; so does a
    judge that can judge nothing (JudgeUnavailable).
    """
    from .runner import evaluate_async

    out_dir = prepare_out_dir(out_dir, overwrite=overwrite)
    judge = ensure_judge(judge or build_judge(settings))
    pipeline = ensure_pipeline(pipeline)  # a bare one gets the default timeout, name and aclose
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
        coroutine = evaluate_async(
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
    pipeline: Pipeline,
    settings: Settings,
    *,
    lang: Lang | None = None,
    metrics: tuple[MetricName, ...] = METRICS,
) -> Any:
    """What judging would cost: runs the pipeline (not the judge) and asks the judge for an
    estimate. Returns None for judges that make no paid calls (the local judge)."""
    from .cases import case_lang
    from .pipeline import run_case
    from .runner import build_sample

    judge = build_judge(settings)
    pipeline = ensure_pipeline(pipeline)
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
    from .cases import load_cases
    from .demo import DemoConfig, DemoPipeline, demo_cases_path
    from .pipeline import CallablePipeline

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
    from ._exceptions import ResultsError
    from .results import load_run

    path = results_path(out_dir)
    if not path.is_file():
        return False
    try:
        return load_run(path).run.pipeline.startswith("demo ")
    except ResultsError:
        return False
