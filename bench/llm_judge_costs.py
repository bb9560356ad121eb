"""LLM judge cost on the demo eval set: calls and tokens per case per metric, an unchanged
re-run, and a fault-injected run.

The judge runs through `ragmeter.api` (the same path as `ragmeter run --judge openai`)
against ragmeter's OpenAI-compatible fake server on 127.0.0.1 with its `Smart` responder; the
demo pipeline retrieves 5 contexts per case. Token counts are the server's usage figures.

    python bench/llm_judge_costs.py [--out bench/results/llm_judge_costs.json]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import Counter
from pathlib import Path

from ragmeter.api import build_judge, run_and_save
from ragmeter.cases import load_cases
from ragmeter.clients import forget_output_modes
from ragmeter.config import JudgeSettings, Settings
from ragmeter.demo import DemoConfig, DemoPipeline, demo_cases_path
from ragmeter.judges.base import METRICS
from ragmeter.pipeline import CallablePipeline
from ragmeter.testing import FakeOpenAI, Fault, Smart

OUT = Path(__file__).parent / "results" / "llm_judge_costs.json"
FAULTS = [
    Fault("rate_limit", rate=0.10, retry_after=0.2),
    Fault("server_error", rate=0.10),
    Fault("malformed", rate=0.10),
    Fault("truncated", rate=0.10),
    Fault("wrong_count", rate=0.10),
    Fault("slow", rate=0.05, delay=3.0),
]


def _run(server: FakeOpenAI, cache_dir: Path, out_dir: Path, timeout: float = 60.0):
    forget_output_modes()
    settings = Settings(
        concurrency=8,
        judge=JudgeSettings(
            kind="openai",
            model="judge-model",
            base_url=server.base_url,
            api_key_env="RAGMETER_BENCH_NO_KEY",
            cache_dir=str(cache_dir),
            timeout=timeout,
            concurrency=8,
        ),
    )
    judge = build_judge(settings)
    pipeline = CallablePipeline(DemoPipeline(DemoConfig(top_k=5)), name="demo top_k=5")
    cases = load_cases(demo_cases_path())
    started = time.perf_counter()
    run = run_and_save(cases, pipeline, settings, out_dir=out_dir, judge=judge)
    return run, judge, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ragmeter-bench-"))
    report: dict[str, object] = {}
    with FakeOpenAI(Smart()) as server:
        run, judge, seconds = _run(server, work / "cache", work / "first")
        n = len(run.cases)
        per_metric = {}
        for metric in METRICS:
            usage = judge.usage.by_metric.get(metric)
            calls = usage.calls if usage else 0
            prompt = usage.prompt_tokens if usage else 0
            completion = usage.completion_tokens if usage else 0
            per_metric[metric] = {
                "calls_per_case": calls / n,
                "prompt_tokens_per_case": prompt / n,
                "completion_tokens_per_case": completion / n,
            }
        first = judge.stats()
        server.reset_log()
        rerun, rejudge, _ = _run(server, work / "cache", work / "again")
        report = {
            "cases": n,
            "contexts_per_case": 5,
            "first_run": {
                "seconds": round(seconds, 2),
                **{k: first[k] for k in ("calls", "prompt_tokens", "completion_tokens")},
            },
            "per_metric": per_metric,
            "rerun": {
                "calls": rejudge.stats()["calls"],
                "requests_seen_by_server": len(server.chat_log()),
                "identical_scores": [c.metrics for c in rerun.cases]
                == [c.metrics for c in run.cases],
            },
        }
    with FakeOpenAI(Smart(), faults=FAULTS, seed=3) as server:
        faulty, _judge, _ = _run(server, work / "cache-faults", work / "faults", timeout=1.0)
        outcome: Counter[str] = Counter()
        mismatched = 0
        for clean, hurt in zip(run.cases, faulty.cases, strict=True):
            for metric in METRICS:
                result = hurt.metrics[metric]
                outcome["scored" if result.scored else f"unscored: {result.unscored_reason}"] += 1
                if result.scored and result.score != clean.metrics[metric].score:
                    mismatched += 1
        report["fault_run"] = {
            "faults": [f"{f.kind} {f.rate:.0%}" for f in FAULTS],
            "outcome": dict(outcome.most_common()),
            "scored_but_different_from_clean": mismatched,
            "server_status_counts": dict(Counter(r.status for r in server.chat_log())),
        }
    print(f"{n} demo cases, 5 contexts each, judge against the fake server (Smart responder)\n")
    print(f"{'metric':20} {'calls/case':>10} {'prompt tok/case':>16} {'completion tok/case':>20}")
    for metric, row in per_metric.items():
        print(
            f"{metric:20} {row['calls_per_case']:>10.2f} {row['prompt_tokens_per_case']:>16.0f} "
            f"{row['completion_tokens_per_case']:>20.0f}"
        )
    total = report["first_run"]
    print(
        f"{'total':20} {total['calls'] / n:>10.2f} {total['prompt_tokens'] / n:>16.0f} "
        f"{total['completion_tokens'] / n:>20.0f}"
    )
    print(
        f"\nunchanged re-run: {report['rerun']['calls']} calls "
        f"({report['rerun']['requests_seen_by_server']} requests reached the server), "
        f"identical scores: {report['rerun']['identical_scores']}"
    )
    print("\nfault-injected run (" + ", ".join(report["fault_run"]["faults"]) + "):")
    for what, count in report["fault_run"]["outcome"].items():
        print(f"  {count:4d}  {what}")
    print(f"  scored results that differ from the clean run: {mismatched}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, default=str))
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
