"""ragmeter's LLM judge and RAGAS 0.4.3 side by side on the same 50 cases and the same server.

    .venv/bin/python bench/vs_ragas.py [--cases 50] [--latency 0.2] [--concurrency 16]

RAGAS is installed into its own environment, ``bench/.venv-ragas`` (created on first use from
PyPI; never a dependency of ragmeter), and runs there as a subprocess (bench/ragas_child.py);
ragmeter runs in this environment. Both judge the four metrics (faithfulness, answer relevancy,
context precision with reference, context recall) of the same cases (the first 50 demo cases
that are in scope and answered, with the demo pipeline's 5 contexts) against one bench server
(bench/server.py: fixed latency, tokens counted by the server for both), with the same model
name and 16 calls in flight at most. Each framework runs ``--repeats`` times; the table shows
the median wall time. Writes bench/results/vs_ragas.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from common import MODEL, comparable_cases, finish, print_table, run_ragmeter
from server import BenchServer

HERE = Path(__file__).resolve().parent
VENV = HERE / ".venv-ragas"
RAGAS_PY = VENV / "bin" / "python"
RAGAS_REQUIREMENTS = [
    "ragas==0.4.3",
    # ragas 0.4.3 imports langchain_community.chat_models.vertexai, gone from
    # langchain-community 0.4; the 0.3 line of langchain is what it was released against.
    "langchain<1",
    "langchain-core<1",
    "langchain-community<0.4",
    "langchain-openai<1",
]
REPORTED = (
    "ragas",
    "instructor",
    "openai",
    "langchain-core",
    "langchain-community",
    "httpx",
    "tiktoken",
    "torch",
)


def ensure_ragas() -> dict[str, str]:
    """Create bench/.venv-ragas with RAGAS if needed; the versions of what matters in it."""
    if not _ragas_ok():
        print(f"installing {' '.join(RAGAS_REQUIREMENTS)} into {VENV} ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run(
            [str(RAGAS_PY), "-m", "pip", "install", "--quiet", "--upgrade", "pip"], check=True
        )
        subprocess.run(
            [str(RAGAS_PY), "-m", "pip", "install", "--quiet", *RAGAS_REQUIREMENTS], check=True
        )
        if not _ragas_ok():
            raise SystemExit("RAGAS 0.4.3 did not import in bench/.venv-ragas; see pip's output")
    listing = subprocess.run(
        [str(RAGAS_PY), "-m", "pip", "list", "--format", "json"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    versions = {p["name"].lower(): p["version"] for p in json.loads(listing)}
    if "torch" in versions:
        raise SystemExit("torch got into bench/.venv-ragas; it must not be installed")
    return {name: versions.get(name, "not installed") for name in REPORTED}


def _ragas_ok() -> bool:
    if not RAGAS_PY.exists():
        return False
    check = subprocess.run(
        [
            str(RAGAS_PY),
            "-c",
            "import ragas.metrics.collections, ragas.llms; assert ragas.__version__ == '0.4.3'",
        ],
        capture_output=True,
        env={**os.environ, "RAGAS_DO_NOT_TRACK": "true"},
    )
    return check.returncode == 0


def run_ragas(cases_file: Path, base_url: str, concurrency: int) -> dict[str, Any]:
    out = subprocess.run(
        [
            str(RAGAS_PY),
            str(HERE / "ragas_child.py"),
            str(cases_file),
            "--base-url",
            base_url,
            "--model",
            MODEL,
            "--concurrency",
            str(concurrency),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "RAGAS_DO_NOT_TRACK": "true"},
    )
    if out.returncode != 0:
        raise SystemExit(f"RAGAS run failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(run: Any, server: BenchServer, repeats: int) -> dict[str, Any]:
    """Run ``repeats`` times: server counts and setup (cold) from the first run, the median
    wall time."""
    walls, setups, first, detail = [], [], None, None
    for _ in range(repeats):
        server.reset()
        detail = run()
        load = server.summary()
        walls.append(detail["wall_seconds"])
        setups.append(detail.get("setup_seconds", 0.0))
        first = first or load
    assert first is not None and detail is not None
    return {
        "load": first,
        "walls": walls,
        "wall": statistics.median(walls),
        "setup": setups[0],
        "detail": detail,
    }


def row(name: str, m: dict[str, Any], latency: float, concurrency: int, n: int) -> dict[str, Any]:
    load = m["load"]
    calls = load["chat_calls"] + load["embedding_calls"]
    bound = calls * latency / concurrency
    tokens = load["prompt_tokens"] + load["completion_tokens"] + load["embedding_tokens"]
    return {
        "framework": name,
        "chat_calls": load["chat_calls"],
        "embedding_calls": load["embedding_calls"],
        "calls_per_case": round(calls / n, 2),
        "prompt_tokens": load["prompt_tokens"],
        "completion_tokens": load["completion_tokens"],
        "embedding_tokens": load["embedding_tokens"],
        "tokens_per_case": round(tokens / n, 1),
        "wall_seconds": m["wall"],
        "wall_seconds_runs": m["walls"],
        "setup_seconds": m["setup"],
        "lower_bound_seconds": round(bound, 3),
        "wall_over_bound": round(m["wall"] / bound, 3),
        "mean_in_flight": load["mean_in_flight"],
        "max_in_flight": load["max_in_flight"],
        "rejected": load["rejected"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=50)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    versions = ensure_ragas()
    cases = comparable_cases(args.cases, top_k=5)
    with tempfile.TemporaryDirectory() as tmp:
        cases_file = Path(tmp) / "cases.jsonl"
        with cases_file.open("w", encoding="utf-8") as f:
            for c in cases:
                f.write(
                    json.dumps(
                        {
                            "id": c.id,
                            "question": c.question,
                            "answer": c.answer,
                            "contexts": c.contexts,
                            "ground_truth": c.ground_truth,
                        },
                        ensure_ascii=False,
                    )
                    + "\n"
                )
        with BenchServer(str(args.latency)) as server:
            ours = measure(
                lambda: run_ragmeter(cases, server.base_url, concurrency=args.concurrency),
                server,
                args.repeats,
            )
            theirs = measure(
                lambda: run_ragas(cases_file, server.base_url, args.concurrency),
                server,
                args.repeats,
            )

    n = len(cases)
    rows = [
        row("ragmeter", ours, args.latency, args.concurrency, n),
        row("ragas 0.4.3", theirs, args.latency, args.concurrency, n),
    ]
    r, g = rows
    ratios = {
        "tokens_per_case": round(r["tokens_per_case"] / g["tokens_per_case"], 3),
        "calls_per_case": round(r["calls_per_case"] / g["calls_per_case"], 3),
        "wall_seconds": round(r["wall_seconds"] / g["wall_seconds"], 3),
        "wall_with_setup": round(
            (r["wall_seconds"] + r["setup_seconds"]) / (g["wall_seconds"] + g["setup_seconds"]), 3
        ),
        # The wall ratio if both ran at their lower bound: the ratio of their calls.
        "lower_bounds": round(r["lower_bound_seconds"] / g["lower_bound_seconds"], 3),
    }
    targets = {
        # issue 16's targets
        "tokens_per_case_ratio <= 0.35": ratios["tokens_per_case"] <= 0.35,
        "wall_ratio <= 0.2": ratios["wall_seconds"] <= 0.2,
        "ragmeter wall <= 1.15 x lower bound": r["wall_over_bound"] <= 1.15,
    }
    headers = [
        "framework",
        "calls (chat+emb)",
        "prompt tok",
        "completion tok",
        "tok/case",
        "setup s",
        "wall s",
        "lower bound s",
        "wall/bound",
        "mean in flight",
    ]
    table = [
        [
            x["framework"],
            f"{x['chat_calls']}+{x['embedding_calls']}",
            x["prompt_tokens"],
            x["completion_tokens"],
            x["tokens_per_case"],
            x["setup_seconds"],
            x["wall_seconds"],
            x["lower_bound_seconds"],
            x["wall_over_bound"],
            x["mean_in_flight"],
        ]
        for x in rows
    ]
    print(
        f"\n{n} cases x 4 metrics, 5 contexts per case, model {MODEL}, concurrency "
        f"{args.concurrency}, latency {args.latency * 1000:.0f} ms (median of {args.repeats} "
        f"runs)\n"
    )
    print_table(headers, table)
    print(
        f"\nragmeter / RAGAS: tokens per case {ratios['tokens_per_case']}, calls per case "
        f"{ratios['calls_per_case']}, wall time {ratios['wall_seconds']} "
        f"({ratios['wall_with_setup']} with setup; {ratios['lower_bounds']} if both ran at "
        "their lower bounds)"
    )
    finish(
        "vs_ragas",
        targets,
        {
            "setup": {
                "cases": n,
                "case_set": "first in-scope, answered demo cases (src/ragmeter/demo/data/"
                "evalset.jsonl) with the demo pipeline's outputs at top_k=5",
                "contexts_per_case": 5,
                "model": MODEL,
                "concurrency": args.concurrency,
                "latency_seconds": args.latency,
                "repeats": args.repeats,
                "server": "bench/server.py (ragmeter.testing.FakeOpenAI in its own process); "
                "tokens counted by the server with ragmeter's approximation (tiktoken "
                "needs a download), response_format schemas included",
                "lower_bound": "all HTTP calls (chat + embeddings) x latency / concurrency",
                "wall": "the judging run only; setup (client and judge construction, the "
                "local MiniLM load for ragmeter) is reported apart",
            },
            "ragmeter_config": {
                "judge": "OpenAIJudge (ragmeter.judges.llm), output mode json_schema, "
                "embedding 'local' (MiniLM for English, bigrams for Chinese)",
                "judge_concurrency": args.concurrency,
                "runner_concurrency": args.concurrency,
                "cache": "a fresh SQLite file per run",
                "stats": ours["detail"]["judge_stats"],
            },
            "ragas_config": {
                "versions": versions,
                "install": RAGAS_REQUIREMENTS,
                "metrics": [
                    "ragas.metrics.collections.Faithfulness",
                    "ragas.metrics.collections.AnswerRelevancy (strictness=3)",
                    "ragas.metrics.collections.ContextPrecisionWithReference",
                    "ragas.metrics.collections.ContextRecall",
                ],
                "llm": f"ragas.llms.llm_factory({MODEL!r}, "
                "client=openai.AsyncOpenAI(base_url=server,"
                " max_retries=2), temperature=0.0): instructor JSON mode",
                "embeddings": "ragas.embeddings.base.embedding_factory('openai', "
                "model='text-embedding-3-small', client=<same AsyncOpenAI>)",
                "concurrency": f"every (case, metric) started at once with asyncio.gather; "
                f"httpx.Limits(max_connections={args.concurrency}) caps calls "
                f"in flight",
                "scored": theirs["detail"]["metrics"],
            },
            "results": rows,
            "ratios_ragmeter_over_ragas": ratios,
        },
    )


if __name__ == "__main__":
    main()
