"""The client's CPU per judge call, layer by layer: what a call costs before ragmeter's own work.

    .venv/bin/python bench/call_floor.py [--calls 4000] [--latency 0.02] [--concurrency 128]

The chat requests ragmeter's LLM judge sends for the demo set's answered cases (5 contexts
each; captured from an in-process fake, each made unique by its number) are sent again to the
bench server, the same number at the same concurrency, through four layers, each in a process
of its own, the layers taking turns over ``--rounds`` rounds:

- ``aiohttp``: a bare ``aiohttp`` session posting the JSON body and decoding the reply (orjson):
  the floor of any Python client on this event loop;
- ``openai SDK``: the official client's raw ``post`` over its aiohttp transport, as ragmeter
  sends (``cast_to=bytes``, decoded by orjson);
- ``ChatClient``: ragmeter's client (cache key, budget, retries, log-probabilities read,
  the reply written to the SQLite cache), under the garbage-collector setting a run uses
  (``ragmeter.run``), and once more under the interpreter's defaults;
- the whole judge is ``bench/scale.py``'s "client CPU ms/call".

CPU is the process's own (all threads), per call; the bench server's CPU per call is shown
beside it. On a machine where the server shares the cores, 1 / (client + server CPU per call)
is about the most calls per second one client process can reach. Writes
bench/results/call_floor.json.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from common import finish, print_table, spawn, synthetic_cases
from server import BenchServer

LAYERS = ("aiohttp", "openai SDK", "ChatClient, default GC", "ChatClient")


def capture_bodies(calls: int, path: Path) -> int:
    """Write `calls` chat request bodies the judge sends (JSONL) to `path`; returns how many."""
    from common import run_ragmeter

    from ragmeter.testing import FakeOpenAI

    bodies: list[dict[str, Any]] = []
    size = 50
    with FakeOpenAI() as fake:
        while len(bodies) < calls:
            fake.reset_log()
            run_ragmeter(synthetic_cases(size), fake.base_url, concurrency=16, preload=False)
            bodies += [r.body for r in fake.chat_log() if r.status == 200]
            size *= 2
    with path.open("w", encoding="utf-8") as fh:
        for i, body in enumerate(bodies[:calls]):
            body = dict(body)  # numbered, so no two requests share a cache entry
            body["messages"] = [*body["messages"], {"role": "user", "content": f"(#{i})"}]
            fh.write(json.dumps(body, ensure_ascii=False) + "\n")
    return min(calls, len(bodies))


async def _aiohttp(bodies: list[dict[str, Any]], base_url: str, concurrency: int) -> None:
    import aiohttp
    import orjson

    gate = asyncio.Semaphore(concurrency)
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def one(body: dict[str, Any]) -> None:
            async with (
                gate,
                session.post(
                    f"{base_url}/chat/completions",
                    data=orjson.dumps(body),
                    headers={"Content-Type": "application/json"},
                ) as reply,
            ):
                orjson.loads(await reply.read())

        await asyncio.gather(*(one(b) for b in bodies))


async def _sdk(bodies: list[dict[str, Any]], base_url: str, concurrency: int) -> None:
    import orjson

    from ragmeter.clients.client import new_sdk_client

    sdk = new_sdk_client("EMPTY", base_url, 120)
    gate = asyncio.Semaphore(concurrency)

    async def one(body: dict[str, Any]) -> None:
        async with gate:
            orjson.loads(await sdk.post("/chat/completions", cast_to=bytes, body=body))

    try:
        await asyncio.gather(*(one(b) for b in bodies))
    finally:
        await sdk.close()


async def _chat_client(
    bodies: list[dict[str, Any]], base_url: str, concurrency: int, cache: Path
) -> None:
    from ragmeter.clients.cache import LLMCache
    from ragmeter.clients.client import ChatClient

    top = max((b.get("top_logprobs", 0) for b in bodies), default=0)
    client = ChatClient(
        model=bodies[0]["model"],
        base_url=base_url,
        api_key_env=None,
        concurrency=concurrency,
        cache=LLMCache(cache),
        top_logprobs=top,
    )
    client.prepare()
    try:
        await asyncio.gather(
            *(
                client.complete(b["messages"], response_format=b.get("response_format"))
                for b in bodies
            )
        )
    finally:
        await client.aclose()
        client.cache.close()


def child(args: argparse.Namespace) -> dict[str, Any]:
    bodies = [json.loads(line) for line in Path(args.bodies).read_text().splitlines()]
    with tempfile.TemporaryDirectory() as tmp:
        if args.layer == "aiohttp":
            run = _aiohttp(bodies, args.base_url, args.concurrency)
        elif args.layer == "openai SDK":
            run = _sdk(bodies, args.base_url, args.concurrency)
        else:
            run = _chat_client(bodies, args.base_url, args.concurrency, Path(tmp) / "c.sqlite")
        from ragmeter.run._gc import fewer_collections

        tuned = args.layer == "ChatClient"
        with fewer_collections() if tuned else contextlib.nullcontext():
            cpu, wall = time.process_time(), time.perf_counter()
            asyncio.run(run)
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return {"calls": len(bodies), "cpu_seconds": cpu, "wall_seconds": wall}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=4000)
    parser.add_argument("--latency", default="0.02")
    parser.add_argument("--concurrency", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--layer", choices=LAYERS, help=argparse.SUPPRESS)
    parser.add_argument("--bodies", help=argparse.SUPPRESS)
    parser.add_argument("--base-url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args)))
        return

    runs: dict[str, list[dict[str, float]]] = {layer: [] for layer in LAYERS}
    with tempfile.TemporaryDirectory() as tmp, BenchServer(args.latency) as server:
        bodies = Path(tmp) / "bodies.jsonl"
        calls = capture_bodies(args.calls, bodies)
        for _ in range(args.rounds):
            for layer in LAYERS:
                server_cpu = server.cpu_seconds()
                out = spawn(
                    __file__,
                    "--child",
                    "--layer",
                    layer,
                    "--bodies",
                    str(bodies),
                    "--base-url",
                    server.base_url,
                    "--concurrency",
                    str(args.concurrency),
                )
                server_cpu = server.cpu_seconds() - server_cpu
                runs[layer].append(
                    {
                        "calls_per_second": calls / out["wall_seconds"],
                        "client_cpu_ms_per_call": 1000 * out["cpu_seconds"] / calls,
                        "server_cpu_ms_per_call": 1000 * server_cpu / calls,
                    }
                )
    rows = []
    medians: dict[str, dict[str, float]] = {}
    for layer, measured in runs.items():
        medians[layer] = {
            key: round(statistics.median(r[key] for r in measured), 2) for key in measured[0]
        }
        m = medians[layer]
        rows.append(
            [
                layer,
                m["calls_per_second"],
                m["client_cpu_ms_per_call"],
                m["server_cpu_ms_per_call"],
                ", ".join(f"{r['calls_per_second']:.0f}" for r in measured),
            ]
        )
    print(
        f"{calls} chat calls, {args.latency} s latency, {args.concurrency} in flight, "
        f"medians of {args.rounds} rounds"
    )
    print_table(
        ["layer", "calls/s", "client CPU ms/call", "server CPU ms/call", "calls/s per round"],
        rows,
    )
    finish(
        "call_floor",
        {},  # a decomposition, not a target: calls/s is judged in scale.py
        {
            "calls": calls,
            "latency": args.latency,
            "concurrency": args.concurrency,
            "medians": medians,
            "runs": runs,
        },
    )


if __name__ == "__main__":
    main()
