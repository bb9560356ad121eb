"""Runs RAGAS 0.4's four metrics on a JSONL of cases; executed by bench/vs_ragas.py inside
bench/.venv-ragas (it never imports ragmeter).

    bench/.venv-ragas/bin/python bench/ragas_child.py CASES.jsonl --base-url URL --model M

Metrics are the `ragas.metrics.collections` classes (the 0.4 API) with the LLM from
`llm_factory` over an `openai.AsyncOpenAI` client (instructor JSON mode) and embeddings from
`embedding_factory` over the same endpoint. Every (case, metric) score is started at once with
`abatch_score`; the HTTP pool (`max_connections`) holds the calls in flight to the concurrency,
so the endpoint is kept as busy as RAGAS's own call chains allow. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import time
import warnings

os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")  # no usage analytics over the network
warnings.filterwarnings("ignore")

METRICS = ("faithfulness", "answer_relevancy", "context_precision", "context_recall")


def build(base_url: str, model: str, embedding_model: str, concurrency: int):
    import httpx
    from openai import AsyncOpenAI
    from ragas.embeddings.base import embedding_factory
    from ragas.llms import llm_factory
    from ragas.metrics.collections import (
        AnswerRelevancy,
        ContextPrecisionWithReference,
        ContextRecall,
        Faithfulness,
    )

    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    client = AsyncOpenAI(
        api_key="EMPTY",
        base_url=base_url,
        max_retries=2,
        timeout=120,
        http_client=httpx.AsyncClient(limits=limits, timeout=120),
    )
    llm = llm_factory(model, client=client, temperature=0.0)
    embeddings = embedding_factory("openai", model=embedding_model, client=client)
    metrics = {
        "faithfulness": Faithfulness(llm=llm),
        "answer_relevancy": AnswerRelevancy(llm=llm, embeddings=embeddings),
        "context_precision": ContextPrecisionWithReference(llm=llm),
        "context_recall": ContextRecall(llm=llm),
    }
    return client, metrics


def inputs(metric: str, case: dict) -> dict:
    if metric == "faithfulness":
        return {
            "user_input": case["question"],
            "response": case["answer"],
            "retrieved_contexts": case["contexts"],
        }
    if metric == "answer_relevancy":
        return {"user_input": case["question"], "response": case["answer"]}
    if metric == "context_precision":
        return {
            "user_input": case["question"],
            "reference": case["ground_truth"],
            "retrieved_contexts": case["contexts"],
        }
    return {
        "user_input": case["question"],
        "reference": case["ground_truth"],
        "retrieved_contexts": case["contexts"],
    }


async def run(args: argparse.Namespace) -> dict:
    with open(args.cases, encoding="utf-8") as f:
        cases = [json.loads(line) for line in f if line.strip()]
    setup_started = time.perf_counter()
    client, metrics = build(args.base_url, args.model, args.embedding_model, args.concurrency)
    setup = time.perf_counter() - setup_started

    async def one(metric: str, case: dict) -> float | str:
        try:
            result = await metrics[metric].ascore(**inputs(metric, case))
            return float(result.value)
        except Exception as exc:
            return f"{type(exc).__name__}: {exc}"[:200]

    started = time.perf_counter()
    scored = await asyncio.gather(*(one(m, c) for c in cases for m in METRICS))
    wall = time.perf_counter() - started
    await client.close()
    by_metric: dict[str, dict] = {m: {"scored": 0, "nan": 0, "errors": []} for m in METRICS}
    for i, value in enumerate(scored):
        entry = by_metric[METRICS[i % len(METRICS)]]
        if isinstance(value, str):
            entry["errors"].append(value)
        elif math.isnan(value):
            entry["nan"] += 1
        else:
            entry["scored"] += 1
    return {
        "wall_seconds": round(wall, 3),
        "setup_seconds": round(setup, 3),
        "cases": len(cases),
        "metrics": by_metric,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("cases")
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", default="gpt-4o-mini")
    parser.add_argument("--embedding-model", default="text-embedding-3-small")
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args))), flush=True)


if __name__ == "__main__":
    main()
