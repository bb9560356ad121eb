"""The local judge on the event loop (inline) or in worker threads: throughput, loop stalls,
and whether the results are the same.

    .venv/bin/python bench/judge_threads.py [--workers 0 1 2] [--rounds 3] [--concurrency 4]

The demo set (99 cases, the demo pipeline's answers with 5 contexts) is run through the
runner with the local judge (MiniLM when installed) for each number of judging threads (0:
inline, as before), each run in its own process with the model loaded and warmed on an
unrelated text, then its vector cache emptied (a cold run, as `ragmeter run`). Rounds
alternate the settings so a busy machine slows them alike. Reported per setting: the median
wall time of the judging run and cases per second; the longest and the median stall of the
event loop (a ticker asks for a 10 ms sleep and records how late it wakes: a stall delays
every other case's pipeline call, its deadline, the progress bar and Ctrl-C); and a digest of
every case's results, which must be the same for every setting. Writes
bench/results/judge_threads.json.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from common import finish, peak_rss_mb, print_table


def child(workers: int, concurrency: int) -> dict[str, Any]:
    from common import demo_outputs

    from ragmeter import evaluate_async
    from ragmeter.judges.base import Sample
    from ragmeter.judges.local import LocalJudge
    from ragmeter.judges.local.vectors import load_embedder
    from ragmeter.pipeline import PrecomputedPipeline

    cases = demo_outputs(top_k=5)
    embedder = load_embedder()
    warm = Sample(case_id="warm", question="What is a warm-up?", answer="A first call.")
    LocalJudge(embedder=embedder, workers=0).judge_sync(warm)
    cache = getattr(embedder, "_cache", None)
    if cache is not None:
        cache.clear()  # judged cold, like a fresh `ragmeter run`
    judge = LocalJudge(embedder=embedder, workers=workers)
    lags: list[float] = []

    async def ticker() -> None:
        while True:
            asked = time.perf_counter()
            await asyncio.sleep(0.01)
            lags.append(time.perf_counter() - asked - 0.01)

    async def run() -> tuple[Any, float]:
        tick = asyncio.ensure_future(ticker())
        started = time.perf_counter()
        result = await evaluate_async(cases, PrecomputedPipeline(), judge, concurrency=concurrency)
        seconds = time.perf_counter() - started
        tick.cancel()
        return result, seconds

    result, seconds = asyncio.run(run())
    blob = json.dumps(
        [c.model_dump(mode="json", include={"id", "metrics"}) for c in result.cases],
        sort_keys=True,
    )
    return {
        "workers": workers,
        "cases": len(cases),
        "seconds": round(seconds, 3),
        "max_stall_ms": round(1000 * max(lags, default=0.0), 1),
        "median_stall_ms": round(1000 * statistics.median(lags or [0.0]), 2),
        "digest": hashlib.sha256(blob.encode()).hexdigest()[:16],
        "minilm": embedder is not None,
        "peak_rss_mb": peak_rss_mb(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--child", type=int, default=None)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(child(args.child, args.concurrency)))
        return
    runs: dict[int, list[dict[str, Any]]] = {w: [] for w in args.workers}
    for _ in range(args.rounds):
        for workers in args.workers:
            cmd = [sys.executable, str(Path(__file__)), "--child", str(workers)]
            cmd += ["--concurrency", str(args.concurrency)]
            out = subprocess.run(cmd, capture_output=True, text=True)
            if out.returncode != 0:
                raise SystemExit(f"child {workers} failed:\n{out.stderr[-3000:]}")
            runs[workers].append(json.loads(out.stdout.strip().splitlines()[-1]))
    rows, summary = [], {}
    for workers, results in runs.items():
        seconds = statistics.median(r["seconds"] for r in results)
        entry = {
            "workers": workers,
            "median_seconds": round(seconds, 3),
            "cases_per_second": round(results[0]["cases"] / seconds, 1),
            "max_stall_ms": max(r["max_stall_ms"] for r in results),
            "median_stall_ms": statistics.median(r["median_stall_ms"] for r in results),
            "digests": sorted({r["digest"] for r in results}),
            "runs": results,
        }
        summary[str(workers)] = entry
        rows.append(
            [
                "inline" if workers == 0 else f"{workers} thread{'s' * (workers > 1)}",
                entry["median_seconds"],
                entry["cases_per_second"],
                entry["max_stall_ms"],
                entry["median_stall_ms"],
                ",".join(entry["digests"]),
            ]
        )
    print_table(["judging", "s", "cases/s", "max stall ms", "median stall ms", "results"], rows)
    digests = {d for e in summary.values() for d in e["digests"]}
    inline = summary.get("0")
    threaded = [e for k, e in summary.items() if k != "0"]
    targets = {"the same results whatever the judging threads": len(digests) == 1}
    if inline is not None and threaded:
        best = max(e["cases_per_second"] for e in threaded)
        targets["threads judge at least 95% as fast as inline"] = (
            best >= 0.95 * inline["cases_per_second"]
        )
        targets["threads keep the loop's longest stall under 100 ms"] = all(
            e["max_stall_ms"] < 100 for e in threaded
        )
    finish("judge_threads", targets, {"concurrency": args.concurrency, "settings": summary})


if __name__ == "__main__":
    main()
