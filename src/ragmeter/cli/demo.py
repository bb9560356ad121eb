"""`ragmeter demo`: a real evaluation of the bundled demo pipeline, offline."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

import typer

from ._app import app, user_errors
from .options import FailuresLimitOpt, ProgressOpt


class Variant(StrEnum):
    default = "default"
    weak_retrieval = "weak-retrieval"
    hallucinating = "hallucinating"


class Retrieval(StrEnum):
    bm25 = "bm25"
    hybrid = "hybrid"


@app.command()
def demo(
    variant: Variant = typer.Option(
        Variant.default,
        "--variant",
        help="default, or a deliberately broken pipeline to see the instrument move.",
    ),
    out: Path = typer.Option(Path("ragmeter-out/demo"), "--out", "-o", help="Output directory."),
    overwrite: bool = typer.Option(
        False,
        "--overwrite",
        help="Replace a run in --out that is not a demo run (a demo run is always replaced).",
    ),
    retrieval: Retrieval = typer.Option(None, "--retrieval", help="bm25 or hybrid (BM25+MiniLM)."),
    top_k: int = typer.Option(None, "--top-k", min=1, help="Chunks retrieved per question."),
    chunk_size: int = typer.Option(None, "--chunk-size", min=20, help="Chunk size."),
    max_failures: FailuresLimitOpt = 10,
    progress: ProgressOpt = True,
) -> None:
    """Evaluate the bundled bilingual demo pipeline with the local judge (no key, no network).

    Exit codes as for `ragmeter run`: 0 every metric measured, 2 bad options, 3 a metric had
    too few scored cases, 130 interrupted.
    """
    from ..api import results_path, run_demo
    from .output import finish_run, print_report
    from .progress import run_progress

    overrides = {
        "retrieval": retrieval.value if retrieval else None,
        "top_k": top_k,
        "chunk_size": chunk_size,
    }
    with user_errors():
        result = run_demo(
            variant.value,
            out_dir=out,
            overrides={k: v for k, v in overrides.items() if v is not None},
            progress=run_progress if progress else None,
            overwrite=overwrite,
        )
    print_report(result, max_failures=max_failures)
    finish_run(result, results_path(out))
