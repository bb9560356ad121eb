"""`ragmeter run --batch` round trip: 1,000 cases online and through the batch API, and a run
SIGKILLed while it polls, then started again.

    .venv/bin/python bench/batch_roundtrip.py [--cases 1000] [--batch-delay 3]

The fake OpenAI server runs in this process (its batch API: /v1/files, /v1/batches; a batch
stays in progress `--batch-delay` seconds); every ragmeter run is a `ragmeter run` child
process with its own call cache, on the same eval set (the demo set's answered cases with the
demo pipeline's 5 contexts, cycled and numbered, written as one JSONL file with contexts and
answers). Runs: online; `--batch`; `--batch` killed with SIGKILL while it polls its second
batch file, then the same command again. Every case's metric scores of each batch run are
compared with the online run's. Writes bench/results/batch.json.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import MODEL, finish, print_table, synthetic_cases

from ragmeter.clients import forget_output_modes
from ragmeter.clients.cost import BATCH_PRICE_SHARE, PriceTable
from ragmeter.testing import FakeOpenAI, Smart

POLL_SECONDS = 0.5


def ragmeter_args(base_url: str, cases: Path, work: Path, name: str, cache: str) -> list[str]:
    config = work / "ragmeter.toml"
    config.write_text(f"[judge]\nbatch_poll_seconds = {POLL_SECONDS}\n")
    return [
        sys.executable,
        "-c",
        "from ragmeter.cli import app; app()",
        "run",
        "--cases",
        str(cases),
        "--judge",
        "openai",
        "--model",
        MODEL,
        "--base-url",
        base_url,
        "--cache-dir",
        str(work / cache),
        "--config",
        str(config),
        "--judge-concurrency",
        "64",
        "--no-progress",
        "--overwrite",
        "--out",
        str(work / name),
    ]


def run(args: list[str]) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"ragmeter exited {done.returncode}:\n{done.stderr[-2000:]}")
    out = Path(args[args.index("--out") + 1]) / "results.json"
    return wall, json.loads(out.read_text())


def scores(data: dict[str, Any]) -> dict[str, dict[str, float | None]]:
    return {c["id"]: {m: r["score"] for m, r in c["metrics"].items()} for c in data["cases"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--batch-delay", type=float, default=3.0)
    parser.add_argument("--keep", type=Path, help="work in this directory and keep it")
    args = parser.parse_args()
    n = args.cases

    with (
        tempfile.TemporaryDirectory() as tmp,
        FakeOpenAI(Smart(), batch_delay=args.batch_delay, keep_bodies=False) as server,
    ):
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        cases = work / "cases.jsonl"
        cases.write_text(
            "".join(
                json.dumps(c.model_dump(exclude_none=True), ensure_ascii=False) + "\n"
                for c in synthetic_cases(n)
            ),
            encoding="utf-8",
        )
        forget_output_modes()

        def argv(name: str, cache: str, *extra: str) -> list[str]:
            return [*ragmeter_args(server.base_url, cases, work, name, cache), *extra]

        online_wall, online = run(argv("online", "online-cache"))
        online_calls = len(server.online_log())
        print(f"online: {online_calls:,} calls in {online_wall:.1f} s")

        server.reset_log()
        uploads_before = len(server.batches.uploads)
        batch_wall, batch = run(argv("batch", "batch-cache", "--batch"))
        online_during_batch = len(server.online_log())
        batch_files = server.batches.uploads[uploads_before:]
        lines = [b.lines for b in server.batches.batches.values()]
        print(f"--batch: {len(batch_files)} batch files {lines} in {batch_wall:.1f} s")

        # Killed while it polls its second file (the first has ended and is cached), or, with
        # one file, while it polls that one.
        created_before = len(server.batches.batches)
        child = subprocess.Popen(
            argv("killed", "killed-cache", "--batch"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wanted = created_before + (2 if len(batch_files) > 1 else 1)
        deadline = time.monotonic() + 600
        while len(server.batches.batches) < wanted:
            if child.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("the run to kill ended before it submitted its batches")
            time.sleep(0.05)
        time.sleep(POLL_SECONDS * 2)  # it is polling now
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        killed_ids = list(server.batches.batches)[created_before:]
        killed_status = [server.batches.batches[b].status for b in killed_ids]
        server.batches.wait(600)
        uploads_at_kill = len(server.batches.uploads)
        resumed_wall, resumed = run(argv("killed", "killed-cache", "--batch"))
        resubmitted = len(server.batches.uploads) - uploads_at_kill
        print(
            f"killed at batch status {killed_status}; run again: {resubmitted} files "
            f"submitted, {resumed['run']['judge_stats']['batch_resumed']} batch collected, "
            f"{resumed_wall:.1f} s"
        )

    stats, online_stats = batch["run"]["judge_stats"], online["run"]["judge_stats"]
    resumed_stats = resumed["run"]["judge_stats"]
    batch_diff, resumed_diff = compare(online, batch), compare(online, resumed)
    asked = online_stats["calls"] + online_stats["cached_calls"]
    print()
    print_table(
        [
            "run",
            "wall s",
            "calls paid",
            "cached",
            "batch files",
            "calls per file",
            "cost $",
            "scores = online",
        ],
        [
            [
                "online",
                online_wall,
                online_stats["calls"],
                online_stats["cached_calls"],
                0,
                "-",
                online_stats["cost"],
                "-",
            ],
            [
                "--batch",
                batch_wall,
                stats["calls"],
                stats["cached_calls"],
                len(batch_files),
                " + ".join(str(x) for x in lines[: len(batch_files)]),
                stats["cost"],
                batch_diff["verdict"],
            ],
            [
                "--batch, SIGKILL, again",
                resumed_wall,
                resumed_stats["calls"],
                resumed_stats["cached_calls"],
                len(killed_ids) + resubmitted,
                f"{resubmitted} resubmitted",
                resumed_stats["cost"],
                resumed_diff["verdict"],
            ],
        ],
    )
    print()
    at_batch_prices = BATCH_PRICE_SHARE * (
        PriceTable().cost(MODEL, stats["prompt_tokens"], stats["completion_tokens"]) or 0.0
    )
    targets = {
        f"every call of {n:,} cases in <= 2 batch files, none sent online": len(batch_files) <= 2
        and sum(lines[: len(batch_files)]) == stats["calls"]
        and stats["calls"] + stats["cached_calls"] == asked
        and online_during_batch == 0,
        "results identical to the online run (every case's metric scores, to 1e-6)": batch_diff[
            "verdict"
        ]
        != "NO"
        and resumed_diff["verdict"] != "NO",
        "resume after SIGKILL: no batch resubmitted": resubmitted == 0
        and resumed_stats["batch_resumed"] >= 1,
        "cost at batch prices (half of the online price of the same tokens)": abs(
            stats["cost"] - at_batch_prices
        )
        < 1e-9,
    }
    finish(
        "batch",
        targets,
        {
            "cases": n,
            "batch_delay_seconds": args.batch_delay,
            "poll_seconds": POLL_SECONDS,
            "online": {"wall_seconds": round(online_wall, 2), "judge_stats": online_stats},
            "batch": {
                "wall_seconds": round(batch_wall, 2),
                "files": len(batch_files),
                "calls_per_file": lines[: len(batch_files)],
                "online_calls_during_batch_run": online_during_batch,
                "scores_against_online": batch_diff,
                "judge_stats": stats,
            },
            "killed_and_resumed": {
                "batches_at_kill": dict(zip(killed_ids, killed_status, strict=True)),
                "files_resubmitted": resubmitted,
                "wall_seconds_after_restart": round(resumed_wall, 2),
                "scores_against_online": resumed_diff,
                "judge_stats": resumed_stats,
            },
        },
    )


def compare(online: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    """Every case's metric scores of `other` against the online run's: how many are equal
    exactly, the largest difference, and a verdict (`yes`: all equal; `yes, to 1e-6`; `NO`)."""
    base, theirs = scores(online), scores(other)
    pairs = [(base[c][m], theirs.get(c, {}).get(m, "missing")) for c in base for m in base[c]]
    exact = sum(a == b for a, b in pairs)
    by_metric: dict[str, int] = {}
    for c in base:
        for m in base[c]:
            if base[c][m] != theirs.get(c, {}).get(m, "missing"):
                by_metric[m] = by_metric.get(m, 0) + 1
    numeric = [abs(a - b) for a, b in pairs if isinstance(a, float) and isinstance(b, float)]
    kinds_match = all(
        a == b or (isinstance(a, float) and isinstance(b, float)) for a, b in pairs
    ) and len(theirs) == len(base)
    largest = max(numeric, default=0.0)
    verdict = "yes" if exact == len(pairs) else "NO"
    if verdict == "NO" and kinds_match and largest < 1e-6:
        verdict = "yes, to 1e-6"
    return {
        "scores": len(pairs),
        "equal": exact,
        "unequal_by_metric": by_metric,
        "largest_difference": largest,
        "verdict": verdict,
    }


if __name__ == "__main__":
    main()
