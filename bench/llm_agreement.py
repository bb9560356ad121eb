"""Agreement of the LLM judge with people on a small fixed sample, 0/1 and graded side by side.

    python bench/llm_agreement.py --variant baseline \
        --base-url http://127.0.0.1:8177/v1 --model qwen2.5-coder-1.5b@cc324af070c2
    python bench/llm_agreement.py --table        # every variant measured so far, no calls

The sample (fixed, seed 0) comes from `bench/meta/out` (run `bench/meta/convert.py` first):
ExpertQA claims, HalluQA answers (zh) and SummEdits summaries, label-balanced, and the MTRAG
answers with the shortest passages. Faithfulness and context recall are judged once per case,
and each run gives both figures: the 0/1 score (share of claims or points judged supported) and the
graded one (mean P(supported) from the same reply's logprobs). Context recall has no human
labels of its own in these sets: its cases reuse the claim-level ones (the reference is the
claim or answer people labelled, the contexts its evidence, the label whether the evidence
supports it), so it measures the recall judge's attribution. Answer relevancy is measured on
ExpertQA (informativeness) and MTRAG (appropriateness) labels. Beside each figure, the
word-overlap baseline of bench/meta/run.py. Each run is stored under its `--variant` name in
bench/results/llm_agreement.json, so prompt variants can be compared; nothing is fitted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "meta"))

from common import RESULTS, machine, print_table, write_json  # noqa: E402
from run import baseline  # noqa: E402

from ragmeter.cases.labels import LabelledCase  # noqa: E402
from ragmeter.judges.base import MetricResult, Sample  # noqa: E402
from ragmeter.stats.agreement import Measure, auroc, measure, spearman  # noqa: E402

OUT = HERE / "meta" / "out"
NAME = "llm_agreement.json"
SEED = 0
RESAMPLES = 1000
# (set, metric): cases drawn from the set and how; relevancy reuses the first 20 of each sample.
PLAN: dict[str, tuple[str, int]] = {
    "expertqa": ("balanced", 30),
    "halluqa": ("balanced", 30),
    "mtrag": ("shortest", 20),
    "summedits": ("balanced", 20),
}
JOBS: list[tuple[str, str]] = [
    ("expertqa", "faithfulness"),
    ("halluqa", "faithfulness"),
    ("mtrag", "faithfulness"),
    ("summedits", "faithfulness"),
    ("expertqa", "context_recall"),
    ("halluqa", "context_recall"),
    ("mtrag", "context_recall"),
    ("summedits", "context_recall"),
    ("expertqa", "answer_relevancy"),
    ("mtrag", "answer_relevancy"),
]
RELEVANCY_N = 20


def draw(name: str) -> list[LabelledCase]:
    """The fixed sample of set `name`."""
    how, n = PLAN[name]
    rows = [json.loads(line) for line in (OUT / f"{name}.jsonl").open(encoding="utf-8")]
    if how == "shortest":
        rows = [r for r in rows if r["contexts"] and "faithfulness" in r["labels"]]
        rows.sort(key=lambda r: (sum(len(c) for c in r["contexts"]), r["id"]))
        picked = rows[:n]
    else:  # supported and unsupported alternate, so every even prefix is balanced
        rng = random.Random(SEED)
        groups = [
            rng.sample([r for r in rows if r["labels"].get("faithfulness") == value], n // 2)
            for value in (1.0, 0.0)
        ]
        picked = [r for pair in zip(*groups, strict=True) for r in pair]
    return [LabelledCase.model_validate(r) for r in picked]


def to_sample(case: LabelledCase, metric: str) -> Sample:
    lang = case.lang or "en"
    if metric == "context_recall":  # the labelled text is the reference to find in the contexts
        return Sample(
            case_id=case.id,
            question=case.question,
            ground_truth=case.answer,
            contexts=case.contexts,
            lang=lang,
        )
    return Sample(
        case_id=case.id,
        question=case.question,
        history=case.history,
        contexts=case.contexts,
        answer=case.answer,
        category=case.category,
        lang=lang,
    )


def label_of(case: LabelledCase, metric: str) -> float | None:
    source = "faithfulness" if metric == "context_recall" else metric
    return case.labels.get(source)  # type: ignore[call-overload,no-any-return]


def overlap_of(case: LabelledCase, metric: str) -> float:
    return baseline(case, "faithfulness" if metric == "context_recall" else metric)


def scores(result: MetricResult) -> tuple[float | None, float | None]:
    """The 0/1-verdict score and the graded score (mean P(supported)) of one result."""
    if not result.scored:
        return None, None
    ev = result.evidence
    items = ev.claims if result.metric == "faithfulness" else ev.points
    if result.metric == "answer_relevancy" or not items:
        return result.score, result.score
    hard = [
        float(getattr(i, "verdict", None) == "supported" or getattr(i, "supported", False))
        for i in items
    ]
    soft = [i.confidence for i in items]
    graded = sum(soft) / len(soft) if all(p is not None for p in soft) else None  # type: ignore[misc]
    return sum(hard) / len(hard), graded


def usage(before: dict[str, Any], after: dict[str, Any]) -> tuple[int, int]:
    """Calls and tokens between two `judge.stats()` readings, cache hits included (so a
    re-run reports the same)."""
    calls = sum(after[k] - before[k] for k in ("calls", "cached_calls"))
    tokens = sum(
        after[k] - before[k]
        for k in (
            "prompt_tokens",
            "completion_tokens",
            "cached_prompt_tokens",
            "cached_completion_tokens",
        )
    )
    return calls, tokens


def figure(values: list[float | None], human: list[float], binary: bool) -> Measure:
    pairs = [(v, h) for v, h in zip(values, human, strict=True) if v is not None]
    stat = auroc if binary else spearman
    x, y = [p[0] for p in pairs], [p[1] for p in pairs]
    return measure("AUROC" if binary else "Spearman", stat, x, y, resamples=RESAMPLES)


async def judge_job(judge: Any, cases: list[LabelledCase], metric: str, concurrency: int):
    gate = asyncio.Semaphore(concurrency)

    async def one(case: LabelledCase) -> MetricResult:
        async with gate:
            out = await judge.judge(to_sample(case, metric), (metric,))
            return out[metric]  # type: ignore[no-any-return]

    return await asyncio.gather(*(one(c) for c in cases))


async def run_variant(args: argparse.Namespace) -> dict[str, Any]:
    from ragmeter.judges.llm import LLMJudgeConfig, build_llm_judge

    config = LLMJudgeConfig(
        model=args.model,
        base_url=args.base_url,
        api_key_env=None,
        concurrency=args.concurrency,
        cache_path=args.cache,
        timeout=900,
    )
    samples = {name: draw(name) for name in PLAN}
    rows = []
    judge = build_llm_judge(config)
    fingerprint = judge.fingerprint().model_dump()
    for name, metric in JOBS:
        if args.only and f"{name}:{metric}" not in args.only:
            continue
        cases = samples[name]
        if metric == "answer_relevancy":
            cases = [c for c in cases if metric in c.labels][:RELEVANCY_N]
        cases = cases[: args.n] if args.n else cases
        before = judge.stats()
        started = time.perf_counter()
        results = await judge_job(judge, cases, metric, args.concurrency)
        seconds = time.perf_counter() - started
        after = judge.stats()
        human = [label_of(c, metric) for c in cases]
        binary = all(h in (0.0, 1.0) for h in human)
        hard, soft = zip(*(scores(r) for r in results), strict=True)
        calls, tokens = usage(before, after)
        n = len(cases)
        row = {
            "set": name,
            "metric": metric,
            "n": n,
            "unscored": sum(not r.scored for r in results),
            "unscored_reasons": sorted({r.unscored_reason or "" for r in results if not r.scored}),
            "zero_one": figure(list(hard), human, binary).model_dump(),  # type: ignore[arg-type]
            "graded": figure(list(soft), human, binary).model_dump(),  # type: ignore[arg-type]
            "overlap": figure([overlap_of(c, metric) for c in cases], human, binary).model_dump(),  # type: ignore[arg-type]
            "calls_per_case": round(calls / n, 2),
            "new_calls": after["calls"] - before["calls"],
            "tokens_per_case": round(tokens / n),
            "seconds_per_case": round(seconds / n, 1),
            "scores": [
                [c.id, h, s, g] for c, h, s, g in zip(cases, human, hard, soft, strict=True)
            ],
        }
        rows.append(row)
        print(f"… {name} {metric}: n {n} in {seconds:.0f} s", file=sys.stderr)
    await judge.aclose()
    return {"judge": fingerprint, "rows": rows}


def fmt(m: dict[str, Any]) -> str:
    if m["value"] is None:
        return "—"
    ci = f" [{m['ci'][0]:.2f}, {m['ci'][1]:.2f}]" if m["ci"] else ""
    return f"{m['value']:.2f}{ci}"


def pooled(rows: list[dict[str, Any]], n: int | None) -> dict[str, Any] | None:
    """Faithfulness on the first `n` cases (None: all measured) of every binary-labelled set,
    pooled (en + zh)."""
    per_set = {}
    for r in sorted(rows, key=lambda r: r["n"]):
        if r["metric"] == "faithfulness" and PLAN[r["set"]][0] == "balanced" and r["n"] >= (n or 0):
            per_set[r["set"]] = r
    if len(per_set) < 2:
        return None
    ids, human, hard, soft = [], [], [], []
    for r in per_set.values():
        for case_id, h, s, g in r["scores"][:n]:
            ids.append((r["set"], case_id))
            human.append(h)
            hard.append(s)
            soft.append(g)
    cases = {(name, c.id): c for name in per_set for c in draw(name)}
    base = [overlap_of(cases[i], "faithfulness") for i in ids]
    return {
        "set": "+".join(per_set),
        "metric": "faithfulness",
        "n": len(ids),
        "unscored": sum(s is None for s in hard),
        "zero_one": figure(hard, human, True).model_dump(),
        "graded": figure(soft, human, True).model_dump(),
        "overlap": figure(base, human, True).model_dump(),  # type: ignore[arg-type]
        "calls_per_case": "",
        "tokens_per_case": "",
        "seconds_per_case": "",
    }


def with_pooled(payload: dict[str, Any], n: int = 8) -> None:
    """Store the pooled faithfulness rows of each variant: the first `n` cases of each set (the
    same cases for every variant), then every case measured."""
    for run in payload["variants"].values():
        run.pop("pooled", None)
        found = [pooled(run["rows"], n), pooled(run["rows"], None)]
        run["pooled_rows"] = [p for i, p in enumerate(found) if p and (i == 0 or p["n"] > n * 2)]


def show(payload: dict[str, Any]) -> None:
    table = []
    for variant, run in payload["variants"].items():
        for r in [*run["rows"], *run.get("pooled_rows", [])]:
            table.append(
                [
                    variant,
                    r["set"],
                    r["metric"],
                    r["zero_one"]["name"],
                    r["zero_one"]["n"],
                    r["unscored"],
                    fmt(r["zero_one"]),
                    fmt(r["graded"]) if r["metric"] != "answer_relevancy" else "",
                    fmt(r["overlap"]),
                    r["calls_per_case"],
                    r["tokens_per_case"],
                    r["seconds_per_case"],
                ]
            )
    print_table(
        [
            "variant",
            "set",
            "metric",
            "measure",
            "n",
            "unsc",
            "0/1 [95% CI]",
            "graded [95% CI]",
            "overlap",
            "calls/case",
            "tokens/case",
            "s/case",
        ],
        table,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", help="name to store this run under")
    parser.add_argument("--base-url", default="http://127.0.0.1:8177/v1")
    parser.add_argument("--model", default="qwen2.5-coder-1.5b@cc324af070c2")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/ragmeter-llm-agreement.sqlite"))
    parser.add_argument("--only", nargs="*", help="set:metric jobs to run, e.g. mtrag:faithfulness")
    parser.add_argument("--n", type=int, help="judge only the first N cases of each sample")
    parser.add_argument("--table", action="store_true", help="print what is stored, no calls")
    args = parser.parse_args()
    if not args.table and not args.variant:
        parser.error("--variant is required unless --table")
    run = None if args.table else asyncio.run(run_variant(args))
    path = RESULTS / NAME  # read after the run: other variants may have been stored meanwhile
    payload = json.loads(path.read_text()) if path.exists() else {"variants": {}}
    if run is not None:
        old = payload["variants"].get(args.variant, {"rows": []})
        before = {(r["set"], r["metric"], r["n"]): r for r in old["rows"]}
        for r in run["rows"]:  # all from the cache: keep the time the calls took
            earlier = before.get((r["set"], r["metric"], r["n"]))
            if r["new_calls"] == 0 and earlier is not None:
                r["seconds_per_case"] = earlier["seconds_per_case"]
        done = {(r["set"], r["metric"], r["n"]) for r in run["rows"]}
        run["rows"] = [r for r in old["rows"] if (r["set"], r["metric"], r["n"]) not in done] + run[
            "rows"
        ]
        payload["variants"][args.variant] = run
        payload.update(
            benchmark="llm_agreement",
            created=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            machine=machine(),
            sample={k: f"{how} {n}, seed {SEED}" for k, (how, n) in PLAN.items()},
            relevancy_n=RELEVANCY_N,
            n_cap=args.n,
        )
        with_pooled(payload)
        write_json(NAME, payload)
    else:
        with_pooled(payload)
    show(payload)


if __name__ == "__main__":
    main()
