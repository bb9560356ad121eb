"""Memory and time of reading an eval set: `load_cases` (a list) against `open_cases` (a
.jsonl file read case by case, `ragmeter.cases.CaseFile`).

    nice .venv/bin/python bench/input_memory.py [--sizes 5000 50000]

For each size a JSONL eval set is written: the demo set's answered cases with the demo
pipeline's 5 contexts, cycled, each copy's id and question numbered (as `synthetic_cases` in
bench/common.py makes them, but written one at a time, and each context lengthened to 400
characters by repeating its text). Then each loader runs in a fresh process that reads the
file and walks every case once (as a run does), reporting its peak RSS (``ru_maxrss``) and its
time. A process that only imports ragmeter gives the baseline.

Peak RSS is the process's own: ``VmHWM`` of /proc/self/status where there is one, else
``ru_maxrss``. On Linux ``ru_maxrss`` is no use here: a child spawned by subprocess starts
with its parent's peak RSS (exec records the high-water mark of the memory image it replaces,
which a vfork child shares with its parent), so a child of a parent that once held 400 MB
reports at least 400 MB. The files are written by a process of their own all the same.
Writes bench/results/input_memory.json.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from common import demo_outputs, finish, peak_rss_mb, print_table, spawn

CONTEXT_CHARS = 400
LOADERS = ("baseline", "load_cases", "open_cases")
COLUMNS = (
    "cases",
    "file_mb",
    "loader",
    "open_seconds",
    "walk_seconds",
    "peak_rss_mb",
    "ru_maxrss_mb",
)


def write_cases(path: Path, n: int) -> None:
    """`n` cases with 5 contexts of CONTEXT_CHARS characters and an answer, as JSONL."""
    base = [c for c in demo_outputs(top_k=5) if c.answer and c.contexts]
    with path.open("w", encoding="utf-8") as file:
        for i in range(n):
            case = base[i % len(base)]
            contexts = [
                (context * (CONTEXT_CHARS // len(context) + 1))[:CONTEXT_CHARS]
                for context in case.contexts or ()
            ]
            copy = case.model_copy(
                update={
                    "id": f"{case.id}-{i:05d}",
                    "question": f"{case.question} (#{i})",
                    "contexts": contexts,
                }
            )
            file.write(copy.model_dump_json(exclude_defaults=True) + "\n")


def own_peak_rss_mb() -> float:
    """Peak resident memory of this process's own image, in MB (see the module doc)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return peak_rss_mb()


def child(loader: str, cases_file: str) -> dict[str, Any]:
    """Load `cases_file` with `loader` and walk every case once, in this process."""
    from ragmeter.cases import load_cases, open_cases

    if loader == "baseline":
        return {
            "read": 0,
            "open_seconds": 0.0,
            "walk_seconds": 0.0,
            "peak_rss_mb": own_peak_rss_mb(),
            "ru_maxrss_mb": peak_rss_mb(),
        }
    started = time.perf_counter()
    cases = load_cases(cases_file) if loader == "load_cases" else open_cases(cases_file)
    opened = time.perf_counter()
    chars = 0
    for case in cases:  # what a run reads of each case
        chars += len(case.question) + sum(map(len, case.contexts or ())) + len(case.answer or "")
    walked = time.perf_counter()
    return {
        "read": len(cases),
        "chars": chars,
        "open_seconds": round(opened - started, 3),
        "walk_seconds": round(walked - opened, 3),
        "peak_rss_mb": own_peak_rss_mb(),
        "ru_maxrss_mb": peak_rss_mb(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5000, 50000])
    parser.add_argument("--child", choices=[*LOADERS, "write"], help=argparse.SUPPRESS)
    parser.add_argument("--cases-file", help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child == "write":
        write_cases(Path(args.cases_file), args.size)
        print("{}")
        return
    if args.child:
        print(json.dumps(child(args.child, args.cases_file)))
        return

    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            cases_file = Path(tmp) / f"cases-{size}.jsonl"
            print(f"writing {size:,} cases ...", flush=True)
            spawn(
                __file__, "--child", "write", "--cases-file", str(cases_file), "--size", str(size)
            )
            file_mb = round(cases_file.stat().st_size / 1024 / 1024, 1)
            for loader in LOADERS:
                print(f"  {loader} ...", flush=True)
                result = spawn(__file__, "--child", loader, "--cases-file", str(cases_file))
                if loader != "baseline" and result["read"] != size:
                    raise SystemExit(f"{loader} read {result['read']} cases of {size}")
                rows.append({"cases": size, "file_mb": file_mb, "loader": loader, **result})

    print(f"\nreading a JSONL eval set (5 contexts of {CONTEXT_CHARS} chars and an answer)\n")
    print_table(
        ["cases", "file MB", "loader", "open s", "walk s", "peak RSS MB", "ru_maxrss MB"],
        [[r[key] for key in COLUMNS] for r in rows],
    )
    print()

    def peak(size: int, loader: str) -> float:
        return next(r["peak_rss_mb"] for r in rows if r["cases"] == size and r["loader"] == loader)

    small, large = min(args.sizes), max(args.sizes)
    growth = peak(large, "open_cases") / peak(small, "open_cases")
    targets = {
        f"open_cases: peak RSS at {large:,} within 1.2x of {small:,} ({growth:.2f}x)": growth
        <= 1.2,
        f"open_cases: peak RSS at {large:,} < 400 MB": peak(large, "open_cases") < 400,
    }
    finish(
        "input_memory",
        targets,
        {"context_chars": CONTEXT_CHARS, "contexts_per_case": 5, "rows": rows},
    )


if __name__ == "__main__":
    main()
