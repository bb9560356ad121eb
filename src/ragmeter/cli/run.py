"""`ragmeter run`: evaluate a pipeline over an eval set."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path

import typer

from ._app import app, fail, user_errors
from ._exit import exits_in_bounded_time
from .options import (
    ApiKeyEnvOpt,
    BaseUrlOpt,
    CacheDirOpt,
    ConcurrencyOpt,
    ConfigOpt,
    CtxSizeOpt,
    JudgeConcurrencyOpt,
    JudgeOpt,
    ModelOpt,
    ModelPathOpt,
    NoCacheOpt,
    ParallelOpt,
    ProgressOpt,
    ThreadsOpt,
)


class LangOption(StrEnum):
    en = "en"
    zh = "zh"


@app.command()
@exits_in_bounded_time  # a thread the pipeline left running cannot hold the exit for ever
def run(
    cases: Path = typer.Option(None, "--cases", "-c", help="Eval set (JSONL, JSON, YAML, CSV)."),
    pipeline: str = typer.Option(
        None, "--pipeline", "-p", help="Your RAG as a Python callable: package.module:function."
    ),
    answers: Path = typer.Option(
        None,
        "--answers",
        "-a",
        help="Precomputed answers (id, contexts, answer); a file with the questions too "
        "(RAGAS-style) needs no --cases.",
    ),
    endpoint: str = typer.Option(
        None,
        "--endpoint",
        "-e",
        help="HTTP endpoint: POST {question, history} → {contexts, answer}.",
    ),
    timeout: float = typer.Option(
        None,
        "--timeout",
        help="Seconds the pipeline may take per case in total (default 120); a case past it "
        "is unscored and the run goes on.",
    ),
    out: Path = typer.Option(
        None, "--out", "-o", help="Directory for results.json (or its results.json path)."
    ),
    shard: str = typer.Option(
        None,
        "--shard",
        help="Judge only shard I/N of the eval set (every N-th case from the I-th), e.g. for a "
        "CI matrix; `ragmeter merge` joins the N results into the whole run.",
    ),
    overwrite: bool = typer.Option(
        False, "--overwrite", help="Replace the run already in --out (refused otherwise)."
    ),
    metrics: list[str] = typer.Option(
        None,
        "--metrics",
        help="Compute only these metrics: comma-separated or repeated; of context_recall, "
        "context_precision, faithfulness, answer_relevancy (default: all four).",
    ),
    min_scored: float = typer.Option(
        None,
        "--min-scored",
        min=0.0,
        max=1.0,
        help="Share of applicable cases each metric must score, else exit 3 (default 0.9).",
    ),
    judge: JudgeOpt = None,
    model: ModelOpt = None,
    model_path: ModelPathOpt = None,
    threads: ThreadsOpt = None,
    ctx_size: CtxSizeOpt = None,
    parallel: ParallelOpt = None,
    base_url: BaseUrlOpt = None,
    api_key_env: ApiKeyEnvOpt = None,
    concurrency: ConcurrencyOpt = None,
    judge_concurrency: JudgeConcurrencyOpt = None,
    lang: LangOption = typer.Option(
        None, "--lang", help="Judge every case in this language instead of detecting it per case."
    ),
    repeats: int = typer.Option(1, "--repeats", min=1, help="Judge each case K times (noise)."),
    cache_dir: CacheDirOpt = None,
    no_cache: NoCacheOpt = False,
    max_cost: float = typer.Option(
        None,
        "--max-cost",
        help="Hard ceiling on judge spend; what it leaves unjudged is unscored, exit 4.",
    ),
    patience: float = typer.Option(
        None,
        "--patience",
        help="Seconds an LLM judge waits while its endpoint answers only HTTP 429 (default "
        "300); a Retry-After asking for longer stops the run, exit 5.",
    ),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Estimate judge calls, tokens and cost; spend nothing."
    ),
    batch: bool = typer.Option(
        False,
        "--batch",
        help="Send the judge's calls through the endpoint's batch API (/v1/files, "
        "/v1/batches; OpenAI bills half), in rounds, polled until done; a killed run started "
        "again collects its batches instead of resubmitting them. --judge openai only.",
    ),
    generator_model: str = typer.Option(
        None, "--generator-model", help="Your pipeline's model, to warn if the judge is the same."
    ),
    config: ConfigOpt = None,
    max_failures: int = typer.Option(10, "--limit", min=0, help="Failed cases to list."),
    progress: ProgressOpt = True,
) -> None:
    """Run a pipeline over an eval set, judge every case, write DIR/results.json and report.

    Give exactly one of --pipeline, --answers, --endpoint, or an eval set whose cases
    already carry contexts and answers (RAGAS `retrieved_contexts` / `response`). An answers
    file that holds the questions too needs no --cases; with --cases, it must answer exactly
    the eval set's cases (ids matched; extra or missing ones are an error).

    Exit codes: 0 every metric measured; 2 bad input or options (nothing written); 3 a
    metric had too few scored cases (results written); 4 --max-cost left results unjudged
    (results written); 5 the judge refused the key or model, its quota is spent, it rate
    limits past --patience or was unreachable (nothing written); 130 interrupted (nothing
    written).
    """
    from .. import api
    from ..cases import Case, open_cases
    from ..cases.digest import eval_set_digest
    from ..config import SettingsOverrides
    from ..pipeline import AnswersFilePipeline, PipelineBase
    from ..pipeline.answers import answers_as_eval_set, check_answers_match
    from ..run.shard import parse_shard, select_shard
    from .output import finish_run, print_dry_run, print_report
    from .progress import run_progress

    with user_errors():
        chosen = api.parse_metrics(metrics, option="--metrics")
        settings = api.resolve_settings(
            config,
            SettingsOverrides(
                judge=judge,
                model=model,
                base_url=base_url,
                api_key_env=api_key_env,
                concurrency=concurrency,
                judge_concurrency=judge_concurrency,
                cache_dir=str(cache_dir) if cache_dir else None,
                no_cache=no_cache,
                max_cost=max_cost,
                patience=patience,
                generator_model=generator_model,
                model_path=str(model_path) if model_path else None,
                threads=threads,
                ctx_size=ctx_size,
                parallel=parallel,
                min_scored_share=min_scored,
                batch=batch or None,
            ),
        )
        cases_path = cases or (Path(settings.cases) if settings.cases else None)
        source: PipelineBase
        eval_cases: Sequence[Case]
        if cases_path is None and answers is not None and not (pipeline or endpoint):
            eval_cases, source = answers_as_eval_set(answers, chosen)
            cases_path = answers
        elif cases_path is None:
            fail(
                "no eval set: pass --cases FILE (or set `cases` in ragmeter.toml), or "
                "--answers FILE holding questions, contexts and answers"
            )
        else:
            eval_cases = open_cases(cases_path)  # .jsonl: read from disk case by case
            source = api.build_pipeline(
                eval_cases,
                pipeline=pipeline,
                answers=answers,
                endpoint=endpoint,
                timeout=timeout,
                metrics=chosen,
            )
            if isinstance(source, AnswersFilePipeline):
                check_answers_match(eval_cases, source, cases_path)
        shard_label = digest = None
        if shard is not None:
            index, count = parse_shard(shard)
            digest = eval_set_digest(eval_cases)  # the whole set's, as `merge` checks it
            eval_cases = select_shard(eval_cases, index, count)
            shard_label = f"{index}/{count}"
        if dry_run:
            print_dry_run(
                eval_cases, source, settings, lang=lang.value if lang else None, metrics=chosen
            )
            return
        out_dir = out or Path(settings.out or "ragmeter-out/run")
        result = api.run_and_save(
            eval_cases,
            source,
            settings,
            out_dir=out_dir,
            cases_file=str(cases_path),
            lang=lang.value if lang else None,
            repeats=repeats,
            progress=run_progress if progress else None,
            metrics=chosen,
            overwrite=overwrite,
            shard=shard_label,
            cases_digest=digest,
        )
    print_report(result, max_failures=max_failures)
    finish_run(result, api.results_path(out_dir))
