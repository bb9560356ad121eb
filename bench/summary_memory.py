"""Memory and time of the one-pass run summary (`ragmeter.results.summary.SummaryBuilder`).

    .venv/bin/python bench/summary_memory.py [--sizes 5000 50000]

Synthetic judged cases (5 contexts of ~600 characters, an answer, four metrics; 3% pipeline
errors of four kinds naming their case, 2% judge timeouts, 8% refusals on faithfulness, four
categories) are made one at a time by a generator and dropped once added, as the runner does
when it streams cases to disk. For each size:

- time: the builder's `add` calls and its `build` (the bootstrap intervals), without tracing;
- memory (``tracemalloc``, a second pass): what the builder holds once every case is added
  (``kept``), the peak while adding and the peak while building, next to the size of the
  same cases held in a list (measured at the smallest size, per case) as `summarize_run`
  needed them before.

A last row, ``distinct``, makes every failing case fail its own way (10% of the cases, a
message no other case has): the builder then keeps one cause per failing case, the one thing
that grows with the cases besides the scores. Writes bench/results/summary_memory.json.
"""

from __future__ import annotations

import argparse
import gc
import time
import tracemalloc
from collections.abc import Iterator
from typing import Any

from common import finish, print_table

from ragmeter.results import CaseResult
from ragmeter.results.summary import SummaryBuilder
from ragmeter.vocabulary import METRICS, MetricResult
from ragmeter.vocabulary.reasons import code_of

CATEGORIES = ("normal", "typo", "multi_turn", "out_of_scope")
CONTEXT = "Retrieved passage about the product's warranty terms and returns policy. " * 8
KB = 1024


def synthetic(n: int, *, distinct: bool = False) -> Iterator[CaseResult]:
    """`n` judged cases, made one at a time (deterministic: case `i` depends on `i` only)."""
    for i in range(n):
        cid = f"case-{i:06d}"
        draw = (i * 7919) % 100
        metrics: dict[Any, MetricResult] = {}
        error = None
        if distinct and draw < 10:
            error = f"pipeline app:rag raised KeyError: 'doc-{i}'"
        elif draw < 3:
            kind = ("KeyError", "TimeoutError", "ValueError", "OSError")[i % 4]
            error = f"pipeline app:rag raised {kind} on case '{cid}'"
        for k, metric in enumerate(METRICS):
            if error is not None:
                reason = f"pipeline error: {error}"
            elif draw < 5:
                reason = "judge m at http://judge timed out after 30s (3 retries exhausted)"
            elif draw < 13 and metric == "faithfulness":
                reason = "refusal: answer has no claims"
            else:
                score = ((i * 31 + k * 17) % 101) / 100
                metrics[metric] = MetricResult(metric=metric, score=score, tokens=900)
                continue
            metrics[metric] = MetricResult.unscored(metric, reason, reason_code=code_of(reason))
        yield CaseResult(
            id=cid,
            question=f"What does the warranty cover for item {i}?",
            ground_truth="Two years, parts and labour.",
            category=CATEGORIES[i % len(CATEGORIES)],
            contexts=[f"{CONTEXT} (#{i}.{j})" for j in range(5)],
            answer=f"The warranty lasts two years and covers parts and labour (item {i}).",
            pipeline_error=error,
            pipeline_seconds=0.02,
            metrics=metrics,
        )


def timed(n: int, distinct: bool) -> tuple[float, float]:
    """Seconds in `add` (all cases) and in `build`, without tracing."""
    builder = SummaryBuilder(METRICS)
    adding = 0.0
    for case in synthetic(n, distinct=distinct):
        started = time.perf_counter()
        builder.add(case)
        adding += time.perf_counter() - started
    started = time.perf_counter()
    builder.build()
    return adding, time.perf_counter() - started


def traced(n: int, distinct: bool) -> dict[str, int]:
    """Bytes the builder keeps after `n` cases, and the peaks while adding and building."""
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    builder = SummaryBuilder(METRICS)
    for case in synthetic(n, distinct=distinct):
        builder.add(case)
    del case
    gc.collect()
    kept, add_peak = tracemalloc.get_traced_memory()
    tracemalloc.reset_peak()
    builder.build()
    build_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {"kept": kept - base, "add_peak": add_peak - base, "build_peak": build_peak - base}


def held(n: int) -> int:
    """Bytes of `n` cases held in a list, as the summary needed them before."""
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    cases = list(synthetic(n))
    size = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    del cases
    return size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5000, 50000])
    args = parser.parse_args()
    per_case = held(min(args.sizes)) / min(args.sizes)
    runs = [(n, False) for n in args.sizes] + [(max(args.sizes), True)]
    rows, results = [], []
    for n, distinct in runs:
        adding, building = timed(n, distinct)
        memory = traced(n, distinct)
        result = {
            "cases": n,
            "scenario": "distinct" if distinct else "typical",
            "add_seconds": round(adding, 3),
            "add_us_per_case": round(adding / n * 1e6, 1),
            "build_seconds": round(building, 3),
            **{f"{k}_bytes": v for k, v in memory.items()},
            "kept_kb_per_1000_cases": round(memory["kept"] / KB / (n / 1000), 1),
            "cases_held_mb": round(per_case * n / KB / KB, 1),
        }
        results.append(result)
        rows.append(
            [
                f"{n:,}" + (" distinct" if distinct else ""),
                result["add_seconds"],
                result["add_us_per_case"],
                result["build_seconds"],
                round(memory["kept"] / KB, 1),
                result["kept_kb_per_1000_cases"],
                round(memory["add_peak"] / KB, 1),
                round(memory["build_peak"] / KB, 1),
                result["cases_held_mb"],
            ]
        )
    print_table(
        [
            "cases",
            "add s",
            "µs/case",
            "build s",
            "kept KB",
            "KB/1k cases",
            "add peak KB",
            "build peak KB",
            "held cases MB",
        ],
        rows,
    )
    typical = [r for r in results if r["scenario"] == "typical"]
    small, large = typical[0], typical[-1]
    targets = {
        "builder keeps < 100 KB per 1,000 cases": all(
            r["kept_kb_per_1000_cases"] < 100 for r in typical
        ),
        "builder keeps < 1% of what the cases weigh": all(
            r["kept_bytes"] < 0.01 * per_case * r["cases"] for r in typical
        ),
        f"kept at {large['cases']:,} within 1.2x of {large['cases'] // small['cases']}x "
        f"kept at {small['cases']:,} (linear in the scores only)": (
            large["kept_bytes"] < 1.2 * large["cases"] / small["cases"] * small["kept_bytes"]
        ),
        "peak while adding < 2x what is kept + 1 MB": all(
            r["add_peak_bytes"] < 2 * r["kept_bytes"] + KB * KB for r in typical
        ),
    }
    finish(
        "summary_memory",
        targets,
        {"held_bytes_per_case": round(per_case), "runs": results},
    )


if __name__ == "__main__":
    main()
