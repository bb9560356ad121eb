"""`ragmeter calibrate`: measure how well a judge agrees with human labels."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from ._app import app, fail, make_console, user_errors
from .options import (
    ApiKeyEnvOpt,
    BaseUrlOpt,
    CacheDirOpt,
    ConcurrencyOpt,
    ConfigOpt,
    FormatOpt,
    JudgeConcurrencyOpt,
    JudgeOpt,
    LegacyJsonOpt,
    ModelOpt,
    NoCacheOpt,
    OutputFormat,
    ProgressOpt,
    wants_json,
)

if TYPE_CHECKING:
    from ..config import SettingsOverrides
    from ..results.calibration import Calibration
    from ..vocabulary import MetricName


@app.command()
def calibrate(
    labels: Path = typer.Argument(
        ..., help="Labelled cases: JSONL (or JSON, YAML, CSV) with a `labels` object per case."
    ),
    run_dir: Path = typer.Option(
        None,
        "--run",
        help="Results of a run whose cases the labels refer to (by id): measure agreement on "
        "them and give a prediction-powered estimate of each mean, without re-judging.",
    ),
    out: Path = typer.Option(
        None, "--out", "-o", help="Directory for calibration.json (default: the --run dir)."
    ),
    judge: JudgeOpt = None,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    api_key_env: ApiKeyEnvOpt = None,
    concurrency: ConcurrencyOpt = None,
    judge_concurrency: JudgeConcurrencyOpt = None,
    metric: list[str] = typer.Option(
        None, "--metric", help="Only these metrics (repeatable; default: every labelled one)."
    ),
    threshold: float = typer.Option(
        None, "--threshold", help="Decision threshold for binary labels (default: the judge's)."
    ),
    worst: int = typer.Option(5, "--worst", help="Worst disagreements to list per metric."),
    cache_dir: CacheDirOpt = None,
    no_cache: NoCacheOpt = False,
    config: ConfigOpt = None,
    store: bool = typer.Option(
        True,
        "--store/--no-store",
        help="Remember the calibration under the judge's fingerprint so later runs report it.",
    ),
    output_format: FormatOpt = OutputFormat.text,
    legacy_json: LegacyJsonOpt = False,
    progress: ProgressOpt = True,
) -> None:
    """Judge human-labelled cases and report how well the judge agrees with people.

    Per metric: Spearman and Kendall for graded labels; AUROC, balanced accuracy and Cohen's
    kappa for binary ones, each with a 95% bootstrap interval, and the worst disagreements.
    Writes DIR/calibration.json and stores it with the judge's fingerprint, so reports of later
    runs with the same judge show it. With --run, LABELS only needs `id` and `labels` per case.
    An LLM judge's faithfulness and context recall name their scoring (0/1 or graded); when
    every verdict carries P(supported), the other scoring of the same verdicts is measured too.
    """
    json_out = wants_json(output_format, legacy_json)
    from ..config import SettingsOverrides
    from ..results.calibration import save_calibration, store_calibration
    from ..run import calibrate as cal
    from ..vocabulary import METRICS

    bad = [m for m in metric or [] if m not in METRICS]
    if bad:
        fail(f"unknown metric '{bad[0]}'; metrics: {', '.join(METRICS)}")
    metrics = tuple(m for m in metric if m in METRICS) if metric else None
    with user_errors():
        if run_dir is not None:
            from ..cases.labels import load_case_labels
            from ..results import load_run

            run = load_run(run_dir)
            wanted = load_case_labels(labels)
            if metrics:
                wanted = {
                    i: {m: v for m, v in lab.items() if m in metrics} for i, lab in wanted.items()
                }
            result = cal.calibrate_run(
                run, wanted, threshold=threshold, worst=worst, labels_file=str(labels)
            )
            out_dir = out or (run_dir if run_dir.is_dir() else run_dir.parent)
        else:
            result = _judge_labels(
                labels,
                metrics,
                threshold=threshold,
                worst=worst,
                progress=progress and not json_out,
                overrides=SettingsOverrides(
                    judge=judge,
                    model=model,
                    base_url=base_url,
                    api_key_env=api_key_env,
                    concurrency=concurrency,
                    judge_concurrency=judge_concurrency,
                    cache_dir=str(cache_dir) if cache_dir else None,
                    no_cache=no_cache,
                ),
                config=config,
            )
            out_dir = out or Path("ragmeter-out/calibration")
        path = save_calibration(result, out_dir)
        stored = store_calibration(result) if store else None
    if json_out:
        typer.echo(result.model_dump_json(indent=2))
        return
    from ..report.calibrate import render_calibration

    render_calibration(result, make_console(), written=path, stored=stored)


def _judge_labels(
    labels: Path,
    metrics: tuple[MetricName, ...] | None,
    *,
    threshold: float | None,
    worst: int,
    progress: bool,
    overrides: SettingsOverrides,
    config: Path | None,
) -> Calibration:
    from .. import api
    from ..cases.labels import load_labelled_cases
    from .progress import run_progress

    settings = api.resolve_settings(config, overrides)
    return api.calibrate_labels(
        load_labelled_cases(labels),
        settings,
        metrics=metrics,
        threshold=threshold,
        worst=worst,
        labels_file=str(labels),
        progress=functools.partial(run_progress, enabled=progress),
    )
