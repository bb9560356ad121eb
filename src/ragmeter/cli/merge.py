"""`ragmeter merge`: join the results of `run --shard I/N` into the whole run."""

from __future__ import annotations

from pathlib import Path

import typer

from ._app import app, user_errors
from .options import FailuresLimitOpt


@app.command()
def merge(
    shards: list[Path] = typer.Argument(
        ..., help="The N shard runs (directories or their results.json), in any order."
    ),
    out: Path = typer.Option(
        ..., "--out", "-o", help="Directory for the merged results.json (or its path)."
    ),
    overwrite: bool = typer.Option(
        False, "--overwrite", help="Replace the run already in --out (refused otherwise)."
    ),
    max_failures: FailuresLimitOpt = 10,
) -> None:
    """Merge the shards of one run into the run an unsharded `ragmeter run` writes.

    Every shard 1..N must be there once, from the same eval set, pipeline, judge, metrics,
    thresholds and targets; the cases come back in eval-set order, and the summary, diagnosis
    and health are computed from them as a single run computes them. Exit code as `run`: 0,
    3 for an incomplete run, 2 when a shard is missing, repeated or from another run.
    """
    from ..results import load_run, prepare_out_dir, save_run
    from ..run.shard import merge_shards
    from .output import finish_run, print_report

    with user_errors():
        out_dir = prepare_out_dir(out, overwrite=overwrite)
        result = merge_shards([(str(path), load_run(path)) for path in shards])
        path = save_run(result, out_dir)
    print_report(result, max_failures=max_failures)
    finish_run(result, path)
