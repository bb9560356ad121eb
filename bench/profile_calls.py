"""Where ragmeter's own CPU goes per judge call: a cProfile of the LLM judge on the bench server.

    .venv/bin/python bench/profile_calls.py [--cases 500] [--latency 0.02] [--concurrency 128]

The bench server runs in its own process (its CPU is not in the profile); the cases are the
demo set's answered cases with the demo pipeline's 5 contexts, cycled, as in scale.py. Prints
the calls per second, then a flat "flame summary": the share of ragmeter's process time spent
under each group of code (the event loop, httpx/openai, pydantic, SQLite, ragmeter's judge,
the local embedder...), from each function's own time (tottime), and the top functions.
Writes bench/results/profile_calls.json.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from collections import defaultdict
from typing import Any

from common import finish, print_table, run_ragmeter, synthetic_cases
from server import BenchServer

GROUPS = (
    ("asyncio event loop", ("asyncio/", "selectors.py", "/selector_events")),
    # openai's client runs on httpx2 (a package of its own, which it requires); ragmeter sends
    # through its aiohttp transport (httpcore2 for a URL with a password in it)
    (
        "HTTP: httpx / aiohttp / httpcore / anyio / h11",
        (
            "httpx/",
            "httpx2/",
            "httpcore",
            "anyio/",
            "h11/",
            "sniffio",
            "aiohttp/",
            "yarl/",
            "multidict/",
        ),
    ),
    ("openai SDK", ("openai/",)),
    ("pydantic", ("pydantic",)),
    ("json", ("json/", "_json", "orjson")),
    ("SQLite cache", ("sqlite3", "llm/cache.py")),
    ("local embedder (onnxruntime, tokenizers, numpy)", ("onnxruntime", "tokenizers", "numpy")),
    ("ragmeter judge + client", ("ragmeter/",)),
    ("ssl / socket", ("ssl", "socket")),
)


def group_of(filename: str, name: str) -> str:
    where = f"{filename}:{name}"
    for group, needles in GROUPS:
        if any(needle in where for needle in needles):
            return group
    return "other (builtins, stdlib)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=500)
    parser.add_argument("--latency", default="0.02")
    parser.add_argument("--concurrency", type=int, default=128)
    parser.add_argument("--callers", help="also print the callers of functions matching this")
    args = parser.parse_args()

    cases = synthetic_cases(args.cases, top_k=5)
    profile = cProfile.Profile()
    with BenchServer(args.latency) as server:
        started = time.perf_counter()
        profile.enable()
        out = run_ragmeter(cases, server.base_url, concurrency=args.concurrency)
        profile.disable()
        elapsed = time.perf_counter() - started
    stats = pstats.Stats(profile)
    if args.callers:
        stats.sort_stats("tottime").print_callers(args.callers)
    raw: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    total = sum(entry[2] for entry in raw.values())
    by_group: dict[str, float] = defaultdict(float)
    functions = []
    for (filename, _line, name), (_cc, _nc, tottime, _cumtime, _callers) in raw.items():
        by_group[group_of(filename, name)] += tottime
        functions.append((tottime, f"{filename.rsplit('site-packages/', 1)[-1]}:{name}"))
    calls = out["judge_stats"]["calls"]
    rate = calls / out["wall_seconds"] if out["wall_seconds"] else 0.0
    groups = [
        {"group": g, "seconds": round(s, 2), "share": f"{s / total:.0%}"}
        for g, s in sorted(by_group.items(), key=lambda kv: -kv[1])
    ]
    top = [
        {
            "function": f,
            "group": group_of(f, ""),
            "seconds": round(t, 2),
            "share": f"{t / total:.1%}",
        }
        for t, f in sorted(functions, reverse=True)[:25]
    ]
    print(
        f"{args.cases} cases, {calls} judge calls in {out['wall_seconds']:.1f} s "
        f"({rate:.0f} calls/s under the profiler; {elapsed:.1f} s with setup)"
    )
    print_table(["group", "seconds", "share"], [list(g.values()) for g in groups])
    print_table(["function", "group", "seconds", "share"], [list(t.values()) for t in top])
    finish(
        "profile_calls",
        {},  # a profile, not a target: calls/s is judged in scale.py
        {
            "cases": args.cases,
            "calls": calls,
            "wall_seconds": out["wall_seconds"],
            "calls_per_second_profiled": round(rate, 1),
            "profiled_seconds": round(total, 2),
            "groups": groups,
            "top_functions": top,
        },
    )


if __name__ == "__main__":
    main()
