"""`ragmeter gate` (fail CI on a mean under its floor or a real regression) and `ragmeter
baseline` (promote a run)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from ._app import app, fail, user_errors
from .options import ConfigOpt, FormatOpt, LegacyJsonOpt, OutputFormat, wants_json

EXIT_GATE_FAILED = 1


@app.command()
def gate(
    new: Path = typer.Argument(..., help="Results directory (or results.json) to check."),
    baseline: Path = typer.Option(
        None,
        "--baseline",
        "-b",
        help="Baseline run to compare against (default: `gate.baseline` from the config).",
    ),
    config: ConfigOpt = None,
    margin: float = typer.Option(None, "--margin", help="Tolerated drop against the baseline."),
    alpha: float = typer.Option(None, "--alpha", help="Family-wise false-alarm rate."),
    force: bool = typer.Option(
        False,
        "--force",
        help="Compare with the baseline even when the judges or the eval sets' contents differ "
        "(only cases whose question and reference are unchanged are paired).",
    ),
    allow_unchecked: bool = typer.Option(
        False,
        "--allow-unchecked",
        help="Skip (with a warning), not fail, a floor or baseline check with fewer than 2 "
        "cases to test (`allow_unchecked` in the \\[gate] table).",
    ),
    literal: bool | None = typer.Option(
        None,
        "--literal/--noise-aware",
        help="Literal floors: fail any mean under its floor, even within noise (as DeepEval "
        "and promptfoo read thresholds). Noise-aware floors (the default; `literal` in \\[gate]) "
        "fail only a mean significantly under its floor.",
        show_default=False,
    ),
    enforce_indicative: bool | None = typer.Option(
        None,
        "--enforce-indicative/--no-enforce-indicative",
        help="Fail on the floor of a metric whose judge agrees with people near chance "
        "(indicative only) instead of warning (default: `enforce_indicative` in \\[gate], off).",
        show_default=False,
    ),
    output_format: FormatOpt = OutputFormat.text,
    legacy_json: LegacyJsonOpt = False,
) -> None:
    """Fail (exit 1) on a mean under its floor or a real regression; one line per check.

    First checks every metric was measured (scored on at least `min_scored_share` of the
    cases it applies to: a metric nothing could score FAILS, never skips); then each metric's
    floor (`floors` in the \\[gate] table: noise-aware, failing only a mean significantly
    under it, or with --literal any mean under it) and, with a baseline, the regression
    against it (a paired drop beyond `margin`), at a family-wise error rate `alpha` (Holm).
    Each line names its check: `floor`, `regression ... vs baseline`. A floor or paired test with
    fewer than 2 cases to test FAILS too, unless --allow-unchecked. A baseline of an eval
    set whose contents differ (another digest) is refused unless --force. The floor of a
    metric whose judge agrees with people near chance (indicative only) warns instead, unless
    --enforce-indicative.

    Exit codes: 0 passed; 1 failed (a metric not measured, a mean below its floor, a real
    regression, or a check with too few cases); 2 a run cannot be loaded or the baseline is
    not comparable (another judge or eval set).
    """
    as_json = wants_json(output_format, legacy_json)
    from ..compare.gate import gate_run
    from ..config import load_settings
    from ..report.gate import render_gate
    from ..results import load_run

    with user_errors():
        loaded = load_settings(config)
        settings = loaded.gate
        if margin is not None:
            settings.margin = margin
        if enforce_indicative is not None:
            settings.enforce_indicative = enforce_indicative
        if literal is not None:
            settings.literal = literal
        if alpha is not None:
            if not 0 < alpha < 1:
                fail(f"--alpha {alpha:g}: must be between 0 and 1 (a rate, e.g. 0.05)")
            settings.alpha = alpha
        if allow_unchecked:
            settings.allow_unchecked = True
        run = load_run(new)
        base_path = baseline or (Path(settings.baseline) if settings.baseline else None)
        base = None
        if base_path is not None:
            if baseline is None and not base_path.exists():
                typer.echo(
                    f"note: no baseline at {base_path} yet; checking floors only "
                    f"(create it with `ragmeter baseline {new} --to {base_path}`)",
                    err=True,
                )
                base_path = None
            else:
                base = load_run(base_path)
        result = gate_run(
            run,
            settings,
            baseline=base,
            baseline_source=str(base_path) if base_path else None,
            force=force,
            min_scored_share=loaded.min_scored_share,
        )
    if as_json:
        typer.echo(json.dumps(result.model_dump(mode="json"), ensure_ascii=False, indent=2))
    else:
        typer.echo(render_gate(result, str(new)), nl=False)
    if not result.passed:
        raise typer.Exit(EXIT_GATE_FAILED)


@app.command()
def baseline(
    new: Path = typer.Argument(..., help="Results directory (or results.json) to promote."),
    to: Path = typer.Option(
        None, "--to", help="Baseline file to write (default: `gate.baseline` from the config)."
    ),
    config: ConfigOpt = None,
    overwrite: bool = typer.Option(
        False, "--overwrite", help="Replace a run's own results.json at --to (refused otherwise)."
    ),
) -> None:
    """Promote a run to the baseline (atomically), so the gate tightens as the pipeline improves.

    The baseline file it replaces is the one it promotes to; another run's results (a run
    directory, or its results.json) is replaced only with --overwrite."""
    from ..config import load_settings
    from ..results import RESULTS_FILE, load_run, refuse_overwriting_run, run_json, write_atomic

    with user_errors():
        target = to or (Path(p) if (p := load_settings(config).gate.baseline) else None)
        if target is None:
            fail("no baseline file: pass --to FILE (or set [gate] baseline in ragmeter.toml)")
        run = load_run(new)
        if target.is_dir():
            target = target / RESULTS_FILE
        if target.name == RESULTS_FILE and not _same_file(target, new):
            refuse_overwriting_run(target, "--to", overwrite=overwrite)
        write_atomic(target, run_json(run))
    typer.echo(
        f"baseline written to {target} ({run.summary.n_cases} cases, judge {run.judge.key()})"
    )


def _same_file(target: Path, run: Path) -> bool:
    """Whether `target` is the results file of `run` (a directory or its results.json)."""
    source = run / "results.json" if run.is_dir() else run
    try:
        return target.exists() and target.samefile(source)
    except OSError:
        return False
