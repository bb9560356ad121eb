"""Time of `ragmeter lint` against the size of the eval set: linear, or not.

    nice .venv/bin/python bench/lint_scale.py [--sizes 10000 40000 160000] [--repeats 3]

Two JSONL eval sets of each size, written by a process of their own:

- `distinct`: questions of 8 words drawn from 3,000 made-up English words and 1,000 made-up
  Chinese two-character words (a question in four is Chinese), each with its ground truth;
  one question in a thousand is planted again with one letter added, a near duplicate lint
  must report.
- `numbered`: the demo set's questions cycled, each copy's id and question numbered (as
  `synthetic_cases` in bench/common.py makes them): hundreds of near copies of every
  question, the worst case for the near-duplicate search.

Each lint (`open_cases` then `lint_cases`, what `ragmeter lint FILE` does) runs in a fresh
process, `--repeats` times; the table gives the median seconds, microseconds a case, peak RSS
(VmHWM) and what was found: near-duplicate findings, planted pairs found, and the questions for
which the near-duplicate check met its bound. The machine's load average is printed with it.
Writes bench/results/lint_scale.json (or NAME.json with --name NAME).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from common import demo_outputs, finish, peak_rss_mb, print_table, spawn

KINDS = ("distinct", "numbered")
PLANT_EVERY = 1000
_BOUNDED = re.compile(r"([\d,]+) questions? reached a bound")


def write_distinct(path: Path, n: int) -> None:
    rng = random.Random(n)
    letters = "abcdefghijklmnopqrstuvwxyz"
    english = ["".join(rng.choices(letters, k=rng.randint(3, 9))) for _ in range(3000)]
    hanzi = [chr(c) for c in range(0x4E00, 0x4E00 + 3000)]
    chinese = ["".join(rng.choices(hanzi, k=2)) for _ in range(1000)]
    with path.open("w", encoding="utf-8") as file:
        for i in range(n):
            if i % 4 == 3:
                question = "".join(rng.choices(chinese, k=8)) + "？"
            else:
                question = " ".join(rng.choices(english, k=8)) + "?"
            record = {"id": f"d{i}", "question": question, "ground_truth": f"answer {i}"}
            file.write(json.dumps(record, ensure_ascii=False) + "\n")
            if i % PLANT_EVERY == 0:
                near = {
                    **record,
                    "id": f"d{i}-near",
                    "question": question[:-1] + "s" + question[-1],
                }
                file.write(json.dumps(near, ensure_ascii=False) + "\n")


def write_numbered(path: Path, n: int) -> None:
    base = demo_outputs(top_k=5)
    with path.open("w", encoding="utf-8") as file:
        for i in range(n):
            case = base[i % len(base)]
            record = {
                "id": f"{case.id}-{i:07d}",
                "question": f"{case.question} (#{i})",
                "ground_truth": case.ground_truth,
                "category": case.category,
            }
            file.write(json.dumps(record, ensure_ascii=False) + "\n")


def child(cases_file: str) -> dict[str, Any]:
    from ragmeter.cases import open_cases
    from ragmeter.cases.lint import lint_cases

    start = time.perf_counter()
    report = lint_cases(open_cases(cases_file))
    seconds = time.perf_counter() - start
    near = [f for f in report.findings if f.code == "near-duplicate-question"]
    planted = sum(
        1 for f in near for cid in f.case_ids if cid.endswith("-near") and cid[:-5] in f.case_ids
    )
    bounded = next(
        (f.message for f in report.findings if f.code == "near-duplicate-check-bounded"), ""
    )
    return {
        "cases": report.total,
        "seconds": round(seconds, 3),
        "peak_rss_mb": peak_rss_mb(),
        "near_findings": len(near),
        "near_cases": sum(len(f.case_ids) for f in near),
        "planted_found": planted,
        "bounded": int(_BOUNDED.search(bounded)[1].replace(",", "")) if bounded else 0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 40_000, 160_000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS))
    parser.add_argument(
        "--name", default="lint_scale", help="Results file: bench/results/NAME.json."
    )
    parser.add_argument("--child", choices=["lint", *KINDS], help=argparse.SUPPRESS)
    parser.add_argument("--cases-file", help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child in KINDS:
        writer = write_distinct if args.child == "distinct" else write_numbered
        writer(Path(args.cases_file), args.size)
        print("{}")
        return
    if args.child == "lint":
        print(json.dumps(child(args.cases_file)))
        return

    load_before = os.getloadavg()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for kind in args.kinds:
            for size in args.sizes:
                cases_file = Path(tmp) / f"{kind}-{size}.jsonl"
                print(f"writing {size:,} {kind} cases ...", flush=True)
                spawn(
                    __file__, "--child", kind, "--cases-file", str(cases_file), "--size", str(size)
                )
                runs = [
                    spawn(__file__, "--child", "lint", "--cases-file", str(cases_file))
                    for _ in range(args.repeats)
                ]
                seconds = [r["seconds"] for r in runs]
                median = statistics.median(seconds)
                row = {
                    "kind": kind,
                    "size": size,
                    **{k: v for k, v in runs[0].items() if k not in ("seconds", "peak_rss_mb")},
                    "median_seconds": median,
                    "us_per_case": round(median / runs[0]["cases"] * 1e6, 1),
                    "seconds": seconds,
                    "peak_rss_mb": max(r["peak_rss_mb"] for r in runs),
                }
                rows.append(row)
                print(f"  {median:.2f} s (runs {seconds})", flush=True)
                cases_file.unlink()
    load_after = os.getloadavg()

    print(f"\nragmeter lint (open_cases + lint_cases), median of {args.repeats} runs")
    print(
        f"load average before {load_before[0]:.1f}, after {load_after[0]:.1f} "
        f"({os.cpu_count()} CPUs)\n"
    )
    columns = [
        "kind",
        "cases",
        "median_seconds",
        "us_per_case",
        "peak_rss_mb",
        "near_findings",
        "near_cases",
        "planted_found",
        "bounded",
    ]
    print_table(
        [
            "kind",
            "cases",
            "median s",
            "µs/case",
            "peak RSS MB",
            "near findings",
            "near cases",
            "planted found",
            "bounded",
        ],
        [[row[c] for c in columns] for row in rows],
    )
    print()
    targets: dict[str, bool] = {}
    for kind in args.kinds:
        mine = [r for r in rows if r["kind"] == kind]
        if len(mine) > 1:
            small, large = mine[0], mine[-1]
            growth = large["us_per_case"] / small["us_per_case"]
            targets[
                f"{kind}: time a case at {large['cases']:,} within 1.5x of {small['cases']:,} "
                f"({growth:.2f}x)"
            ] = growth <= 1.5
        if kind == "distinct":
            for row in mine:
                planted = (row["size"] - 1) // PLANT_EVERY + 1
                targets[f"distinct {row['cases']:,}: every planted near duplicate found"] = (
                    row["planted_found"] >= planted and row["bounded"] == 0
                )
    finish(
        args.name,
        targets,
        {
            "repeats": args.repeats,
            "load_average_before": load_before,
            "load_average_after": load_after,
            "rows": rows,
        },
    )


if __name__ == "__main__":
    main()
