"""Shared by the benchmark scripts: the case sets, a ragmeter run, tables and JSON output."""

from __future__ import annotations

import asyncio
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragmeter.cases import Case

RESULTS = Path(__file__).resolve().parent / "results"
MODEL = "gpt-4o-mini"


def demo_outputs(top_k: int = 5) -> list[Case]:
    """The demo eval set with the demo pipeline's contexts (``top_k``) and answers filled in."""
    from ragmeter.cases import load_cases
    from ragmeter.demo import DemoConfig, DemoPipeline, demo_cases_path
    from ragmeter.pipeline import CallablePipeline

    cases = load_cases(demo_cases_path())
    pipeline = CallablePipeline(DemoPipeline(DemoConfig(top_k=top_k)))

    async def run() -> list[Case]:
        out = []
        for case in cases:
            result = await pipeline.run(case)
            out.append(
                case.model_copy(
                    update={
                        "contexts": list(result.contexts),
                        "answer": result.answer,
                    }
                )
            )
        return out

    return asyncio.run(run())


def comparable_cases(n: int = 50, top_k: int = 5) -> list[Case]:
    """The first ``n`` demo cases both frameworks judge in full: in scope, answered (no
    abstention), with ``top_k`` contexts."""
    from ragmeter.testing.responders import noncommittal

    out = [
        c
        for c in demo_outputs(top_k)
        if c.category != "out_of_scope"
        and c.answer
        and not noncommittal(c.answer)
        and c.contexts
        and len(c.contexts) == top_k
    ]
    if len(out) < n:
        raise SystemExit(f"only {len(out)} comparable demo cases, {n} wanted")
    return out[:n]


def synthetic_cases(n: int, top_k: int = 5) -> list[Case]:
    """``n`` cases cycling through the demo set's answered cases; each copy's question carries
    its number, so no two copies share a prompt (and a cache entry)."""
    base = [c for c in demo_outputs(top_k) if c.answer]
    out = []
    for i in range(n):
        case = base[i % len(base)]
        out.append(
            case.model_copy(
                update={
                    "id": f"{case.id}-{i:05d}",
                    "question": f"{case.question} (#{i})",
                }
            )
        )
    return out


def judge_config(
    base_url: str,
    concurrency: int,
    cache_path: Path | None,
    embedding_model: str | None = None,
) -> Any:
    """The bench's LLM judge settings; with `embedding_model`, answer relevancy embeds through
    the same server's ``/v1/embeddings`` instead of the local models."""
    from ragmeter.judges.llm import LLMJudgeConfig
    from ragmeter.judges.llm.config import EmbeddingEndpoint

    return LLMJudgeConfig(
        model=MODEL,
        base_url=base_url,
        api_key_env=None,
        concurrency=concurrency,
        cache_path=cache_path,
        use_cache=True,
        timeout=120,
        embedding=EmbeddingEndpoint(model=embedding_model, base_url=base_url, api_key_env=None)
        if embedding_model
        else "local",
    )


def run_ragmeter(
    cases: Sequence[Case],
    base_url: str,
    *,
    concurrency: int,
    cache_path: Path | None = None,
    out_dir: Path | None = None,
    metrics: tuple[str, ...] | None = None,
    embedding_model: str | None = None,
    preload: bool = True,
) -> dict[str, Any]:
    """Judge ``cases`` (precomputed outputs) with ragmeter's LLM judge; wall time and stats.

    As for RAGAS, modules are imported and the judge is built before the clock starts:
    ``setup_seconds`` is the judge's construction and the load of the local MiniLM (when answer
    relevancy is judged and `preload` is on; a cached re-run loads no model), ``wall_seconds``
    the run.
    """
    import openai  # noqa: F401  (imported on the first call otherwise)

    from ragmeter import evaluate_async
    from ragmeter.judges.llm import build_llm_judge
    from ragmeter.pipeline import PrecomputedPipeline

    tmp = None
    if cache_path is None:
        tmp = tempfile.TemporaryDirectory()
        cache_path = Path(tmp.name) / "llm.sqlite"
    setup_started = time.perf_counter()
    judge = build_llm_judge(judge_config(base_url, concurrency, cache_path, embedding_model))
    load = getattr(judge.context.similarity, "load", None)
    relevancy = metrics is None or "answer_relevancy" in metrics
    if preload and relevancy and callable(load):  # as `ragmeter run`: no model it will not use
        load()  # the local MiniLM for answer relevancy: a one-off load, timed as setup
    setup = time.perf_counter() - setup_started

    from ragmeter.results.spool import CaseSpool

    async def go() -> Any:
        try:
            # As `ragmeter run` does: each judged case goes to disk, not into a list.
            return await evaluate_async(
                cases,
                PrecomputedPipeline(),
                judge,
                concurrency=concurrency,
                spool=CaseSpool(len(cases)),
                **({"metrics": metrics} if metrics else {}),
            )
        finally:
            await judge.aclose()

    started_at = time.monotonic()
    started = time.perf_counter()
    run = asyncio.run(go())
    wall = time.perf_counter() - started
    if out_dir is not None:
        from ragmeter.results import save_run

        save_run(run, out_dir)
    scored: dict[str, int] = {}
    for case in run.cases:
        for metric, result in case.metrics.items():
            scored[metric] = scored.get(metric, 0) + int(result.scored)
    if tmp is not None:
        tmp.cleanup()
    return {
        "wall_seconds": round(wall, 3),
        "setup_seconds": round(setup, 3),
        "started_at": started_at,
        "cases": len(run.cases),
        "judge_stats": judge.stats(),
        "scored": scored,
    }


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MB: VmHWM where Linux reports it.

    Not `ru_maxrss` there: a child started by `subprocess` begins with its parent's highest
    RSS in it, so a child would report the parent's peak (the eval set it built) as its own."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)  # kB
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(peak / (1024 * 1024 if sys.platform == "darwin" else 1024), 1)


def machine() -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
    }


def print_table(headers: list[str], rows: list[list[Any]]) -> None:
    cells = [[_fmt(v) for v in row] for row in [headers, *rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    for k, row in enumerate(cells):
        print(
            "  ".join(
                v.rjust(w) if i else v.ljust(w)
                for i, (v, w) in enumerate(zip(row, widths, strict=True))
            )
        )
        if k == 0:
            print("  ".join("-" * w for w in widths))


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.3f}" if abs(value) < 10 else f"{value:,.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def write_json(name: str, payload: dict[str, Any]) -> Path:
    """Write ``bench/results/<name>`` atomically."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / name
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def finish(benchmark: str, targets: dict[str, bool], payload: dict[str, Any]) -> Path:
    """Print PASS/FAIL per target and write ``bench/results/<benchmark>.json``: when, how
    and where it ran, then `payload`, then the targets."""
    for name, ok in targets.items():
        print(f"  {'PASS' if ok else 'FAIL'}  {name}")
    path = write_json(
        f"{benchmark}.json",
        {
            "benchmark": benchmark,
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "command": " ".join(["python", f"bench/{benchmark}.py", *sys.argv[1:]]),
            "machine": machine(),
            **payload,
            "targets_met": targets,
        },
    )
    print(f"\nwrote {path.relative_to(RESULTS.parents[1])}")
    return path


def spawn(script: str, *extra: str) -> dict[str, Any]:
    """Run `script` again as a child process with `extra` arguments (a measurement in a process
    of its own) and return the JSON object its last line of output prints."""
    out = subprocess.run([sys.executable, script, *extra], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"child {' '.join(extra)} failed:\n{out.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result
