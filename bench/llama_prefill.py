"""Prefill speed of the bundled 1.5B model under llama.cpp server settings, side by side.

    python bench/llama_prefill.py --rounds 5 --configs threads=1 threads=2 threads=2,flash=1

Every setting gets its own server, all loaded at once in this process; the rounds alternate
them (A B C, then B C A...), so each meets the same load. A round sends one fresh prompt of
about `--tokens` tokens (a demo chunk, numbered so no prefix is cached past the chat template)
capped at one output token, then one short follow-up on it (a statement check: the ~30-token
suffix most verdicts prefill). Reported: llama.cpp's own prompt milliseconds, median tokens a
second per setting, and the machine's load. Writes bench/results/llama_prefill.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import machine, print_table, write_json  # noqa: E402

NAME = "llama_prefill.json"
FIELDS = {"threads": int, "batch_threads": int, "ubatch": int, "batch": int, "flash": int}


def parse(spec: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for part in spec.split(","):
        key, _, value = part.partition("=")
        if key not in FIELDS:
            raise SystemExit(f"unknown setting {key!r} in {spec!r}: one of {sorted(FIELDS)}")
        out[key] = FIELDS[key](value)
    return out


def start(settings: dict[str, int]) -> tuple[Any, str]:
    import xllamacpp

    from ragmeter.judges.llama import resolve_model

    model = resolve_model(None, None)
    params = xllamacpp.CommonParams()
    params.model.path = str(model.path)
    params.model_alias = {"m"}
    params.hostnames = ["127.0.0.1"]
    params.port = 0
    params.n_parallel = 1
    params.n_ctx = 4096
    params.cpuparams.n_threads = settings.get("threads", 1)
    params.cpuparams_batch.n_threads = settings.get("batch_threads", settings.get("threads", 1))
    if "ubatch" in settings:
        params.n_ubatch = settings["ubatch"]
    if "batch" in settings:
        params.n_batch = settings["batch"]
    if "flash" in settings:
        params.flash_attn_type = settings["flash"]
    params.cache_ram_mib = 0
    params.ui = False
    params.warmup = False
    params.verbosity = 0
    server = xllamacpp.Server(params)
    return server, str(server.listening_address).rstrip("/")


def ask(url: str, text: str) -> dict[str, float]:
    body = {
        "model": "m",
        "messages": [{"role": "user", "content": text}],
        "max_tokens": 1,
        "temperature": 0,
        "logprobs": True,
        "top_logprobs": 5,
    }
    request = urllib.request.Request(
        f"{url}/v1/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=900) as reply:
        timings: dict[str, float] = json.loads(reply.read())["timings"]
    return timings


def chunk_text(tokens: int) -> str:
    from ragmeter.cases import load_cases
    from ragmeter.demo import demo_cases_path

    text = " ".join(c.ground_truth for c in load_cases(demo_cases_path()) if c.lang == "en")
    return text[: tokens * 4]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--configs", nargs="+", default=["threads=1", "threads=2"])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tokens", type=int, default=300)
    args = parser.parse_args()
    settings = [parse(c) for c in args.configs]
    servers = [start(s) for s in settings]
    evidence = chunk_text(args.tokens)
    rows: dict[str, list[dict[str, float]]] = {c: [] for c in args.configs}
    loads = []
    for r in range(args.rounds):
        order = list(range(len(servers)))
        order = order[r % len(order) :] + order[: r % len(order)]
        for i in order:
            prefix = f"Evidence {r}:\n{evidence}\n\nQuestion: what does it say?\n\n"
            long = ask(servers[i][1], prefix + "Does the evidence answer it? Statement: A.")
            short = ask(
                servers[i][1],
                prefix + "Does the evidence support every part of the statement below? "
                "Answer Yes or No.\n\nStatement: The refund window is thirty days long.",
            )
            rows[args.configs[i]].append(
                {
                    "long_n": long["prompt_n"],
                    "long_ms": long["prompt_ms"],
                    "short_n": short["prompt_n"],
                    "short_ms": short["prompt_ms"],
                }
            )
            loads.append(os.getloadavg()[0])
            print(f"… round {r} {args.configs[i]}: {rows[args.configs[i]][-1]}", file=sys.stderr)
    table = [
        [
            config,
            len(got),
            statistics.median(g["long_n"] for g in got),
            round(statistics.median(g["long_n"] / g["long_ms"] * 1000 for g in got), 1),
            statistics.median(g["short_n"] for g in got),
            round(statistics.median(g["short_ms"] for g in got)),
        ]
        for config, got in rows.items()
    ]
    print(f"\nload average during the rounds: median {statistics.median(loads):.1f}")
    print_table(
        ["settings", "rounds", "long prompt tok", "prefill tok/s", "short suffix tok", "short ms"],
        table,
    )
    write_json(
        NAME,
        {"machine": {**machine(), "loadavg_median": statistics.median(loads)}, "rows": rows},
    )


if __name__ == "__main__":
    main()
