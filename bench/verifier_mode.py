"""The LLM judge's faithfulness in verifier mode beside the JSON mode: speed and agreement.

    python bench/verifier_mode.py speed --en 6 --zh 4 \
        --base-url http://127.0.0.1:8177/v1 --model qwen2.5-coder-1.5b@cc324af070c2
    python bench/verifier_mode.py agreement --n 20 --base-url ... --model ...
    python bench/verifier_mode.py table          # what was measured so far, no calls

`speed`: the first in-scope, answered demo cases (demo pipeline, default settings) judged one
case at a time for faithfulness in both modes, no call cache, the two modes alternating which
goes first; seconds, calls and tokens per case. `agreement`: the label-balanced ExpertQA
claims and HalluQA answers of bench/llm_agreement.py (seed 0; every even prefix is balanced;
run bench/meta/convert.py first), and its MTRAG and SummEdits samples, faithfulness in both
modes, each scored 0/1 (share of claims judged supported) and graded (mean P(supported)) from
the same calls; AUROC against people (Spearman for MTRAG's graded labels)
with a bootstrap interval, beside the word-overlap baseline of bench/meta/run.py. Nothing is
fitted or tuned on these sets. Writes bench/results/verifier_mode.json (each part kept).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "meta"))

import llm_agreement  # noqa: E402
from common import RESULTS, machine, print_table, write_json  # noqa: E402
from run import baseline  # noqa: E402

from ragmeter.cases.labels import LabelledCase  # noqa: E402
from ragmeter.judges.base import MetricResult, Sample  # noqa: E402

NAME = "verifier_mode.json"
RESAMPLES = 1000
MODES = ("json", "verifier")
SETS = ("expertqa", "halluqa", "mtrag", "summedits")


def draw(name: str, n: int) -> list[LabelledCase]:
    """The first `n` of bench/llm_agreement.py's fixed sample of set `name`."""
    return llm_agreement.draw(name)[:n]


def to_sample(case: LabelledCase) -> Sample:
    return llm_agreement.to_sample(case, "faithfulness")


scores = llm_agreement.scores
"""The 0/1-verdict score and the graded score (mean P(supported)) of one result."""


def figure(values: list[float | None], human: list[float]) -> dict[str, Any]:
    """AUROC for binary labels, Spearman for graded ones (MTRAG), with an interval."""
    binary = all(h in (0.0, 1.0) for h in human)
    return llm_agreement.figure(values, human, binary).model_dump()


def build(args: argparse.Namespace, mode: str, cache: Path | None) -> Any:
    from ragmeter.judges.llm import LLMJudgeConfig, build_llm_judge

    return build_llm_judge(
        LLMJudgeConfig(
            model=args.model,
            base_url=args.base_url,
            api_key_env=None,
            concurrency=args.concurrency,
            cache_path=cache,
            use_cache=cache is not None,
            timeout=900,
            faithfulness_mode=mode,  # type: ignore[arg-type]
        )
    )


usage = llm_agreement.usage


def load() -> dict[str, Any]:
    path = RESULTS / NAME
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def save(part: str, payload: dict[str, Any]) -> None:
    data = load()
    data[part] = payload
    data["machine"] = machine()
    write_json(NAME, data)


# ---- speed ----------------------------------------------------------------------------------

TIMINGS: list[dict[str, float]] = []
"""llama.cpp's own `timings` of each reply (prompt_n, cache_n, prompt_ms, predicted_ms)."""


def record_server_timings() -> None:
    """Keep the `timings` llama.cpp adds to each reply: server compute time apart from the
    queue (a shared server's slots are taken by other clients too)."""
    import openai

    post = openai.AsyncOpenAI.post

    async def recorded(self: Any, *args: Any, **kwargs: Any) -> Any:
        out = await post(self, *args, **kwargs)
        timings = (getattr(out, "model_extra", None) or {}).get("timings")
        if timings:
            TIMINGS.append(timings)
        return out

    openai.AsyncOpenAI.post = recorded  # type: ignore[method-assign]


def demo_samples(n_en: int, n_zh: int) -> list[Sample]:
    from common import demo_outputs

    from ragmeter.testing.responders import noncommittal

    wanted = {"en": n_en, "zh": n_zh}
    out = []
    for case in demo_outputs(top_k=3):  # the demo pipeline's default top_k
        lang = case.lang or "en"
        if case.category == "out_of_scope" or not case.answer or noncommittal(case.answer):
            continue
        if wanted.get(lang, 0) > 0 and case.contexts:
            wanted[lang] -= 1
            out.append(
                Sample(
                    case_id=case.id,
                    question=case.question,
                    history=case.history,
                    contexts=case.contexts,
                    answer=case.answer,
                    lang=lang,
                )
            )
    return out


async def speed(args: argparse.Namespace, samples: list[Sample]) -> None:
    judges = {mode: build(args, mode, None) for mode in MODES}
    rows = []
    for i, sample in enumerate(samples):
        order = MODES if i % 2 == 0 else MODES[::-1]
        for mode in order:
            judge = judges[mode]
            before = judge.stats()
            TIMINGS.clear()
            started = time.perf_counter()
            result = (await judge.judge(sample, ("faithfulness",)))["faithfulness"]
            seconds = time.perf_counter() - started
            server = {
                key: round(sum(t.get(key, 0) for t in TIMINGS), 1)
                for key in ("prompt_n", "cache_n", "prompt_ms", "predicted_n", "predicted_ms")
            }
            calls, tokens = usage(before, judge.stats())
            rows.append(
                {
                    "case": sample.case_id,
                    "lang": sample.lang,
                    "mode": mode,
                    "seconds": round(seconds, 1),
                    "calls": calls,
                    "tokens": tokens,
                    "claims": len(result.evidence.claims),
                    "score": result.score,
                    "unscored": result.unscored_reason,
                    "server": server,
                }
            )
            print(
                f"… {sample.case_id} {mode}: {seconds:.1f} s, {calls} calls, server {server}",
                file=sys.stderr,
            )
            save("speed", {"model": args.model, "cases": rows})
    for judge in judges.values():
        await judge.aclose()
    speed_table(load())


def speed_table(data: dict[str, Any]) -> None:
    rows = data.get("speed", {}).get("cases", [])
    if not rows:
        return
    print("\nfaithfulness on the demo set, seconds per case (one case at a time, no cache)")
    table = []
    for mode in MODES:
        for lang in ("en", "zh", "all"):
            picked = [r for r in rows if r["mode"] == mode and lang in (r["lang"], "all")]
            if not picked:
                continue
            n = len(picked)
            secs = sorted(r["seconds"] for r in picked)
            table.append(
                [
                    mode,
                    lang,
                    n,
                    round(sum(secs) / n, 1),
                    round(statistics.median(secs), 1),
                    round(sum(r["calls"] for r in picked) / n, 1),
                    round(sum(r["tokens"] for r in picked) / n),
                    server_seconds(picked),
                    round(sum(r.get("server", {}).get("prompt_n", 0) for r in picked) / n),
                    round(sum(r.get("server", {}).get("cache_n", 0) for r in picked) / n),
                ]
            )
    head = ["mode", "lang", "n", "mean s", "median s", "calls", "tokens", "server s"]
    print_table([*head, "prefilled", "from cache"], table)


def server_seconds(rows: list[dict[str, Any]]) -> float | None:
    """Mean seconds the server spent computing a case (prompt + generation), queue apart."""
    known = [r["server"] for r in rows if r.get("server")]
    if not known:
        return None
    return round(sum(s["prompt_ms"] + s["predicted_ms"] for s in known) / len(known) / 1000, 1)


# ---- agreement ------------------------------------------------------------------------------


async def judge_all(judge: Any, cases: list[LabelledCase], concurrency: int) -> list[Any]:
    gate = asyncio.Semaphore(concurrency)

    async def one(case: LabelledCase) -> MetricResult:
        async with gate:
            out = await judge.judge(to_sample(case), ("faithfulness",))
            return out["faithfulness"]  # type: ignore[no-any-return]

    return await asyncio.gather(*(one(c) for c in cases))


async def agreement(args: argparse.Namespace) -> None:
    cache = args.cache
    rows = load().get("agreement", {}).get("rows", [])
    for mode in args.modes:
        judge = build(args, mode, cache)
        for name in SETS:
            cases = draw(name, args.n)
            human = [c.labels["faithfulness"] for c in cases]
            before = judge.stats()
            started = time.perf_counter()
            results = await judge_all(judge, cases, args.concurrency)
            seconds = time.perf_counter() - started
            calls, tokens = usage(before, judge.stats())
            hard, soft = zip(*(scores(r) for r in results), strict=True)
            rows = [r for r in rows if (r["set"], r["mode"]) != (name, mode)]
            rows.append(
                {
                    "set": name,
                    "mode": mode,
                    "n": len(cases),
                    "unscored": sum(not r.scored for r in results),
                    "unscored_reasons": sorted(
                        {r.unscored_reason or "" for r in results if not r.scored}
                    ),
                    "zero_one": figure(list(hard), human),
                    "graded": figure(list(soft), human),
                    "overlap": figure([baseline(c, "faithfulness") for c in cases], human),
                    "calls_per_case": round(calls / len(cases), 2),
                    "tokens_per_case": round(tokens / len(cases)),
                    "seconds_per_case": round(seconds / len(cases), 1),
                    "new_calls": judge.stats()["calls"] - before["calls"],
                    "scores": [
                        {"id": c.id, "human": h, "zero_one": s0, "graded": s1}
                        for c, h, s0, s1 in zip(cases, human, hard, soft, strict=True)
                    ],
                }
            )
            print(f"… {name} {mode}: {len(cases)} cases in {seconds:.0f} s", file=sys.stderr)
            save(
                "agreement",
                {
                    "model": args.model,
                    "fingerprint_" + mode: judge.fingerprint().model_dump(),
                    **{k: v for k, v in load().get("agreement", {}).items() if k != "rows"},
                    "rows": rows,
                },
            )
        await judge.aclose()
    agreement_table(load())


def agreement_table(data: dict[str, Any]) -> None:
    rows = data.get("agreement", {}).get("rows", [])
    if not rows:
        return

    def cell(m: dict[str, Any]) -> str:
        if m.get("value") is None:
            return "—"
        ci = m.get("ci")
        return f"{m['value']:.2f} [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else f"{m['value']:.2f}"

    print("\nfaithfulness AUROC against people (95% bootstrap interval)")
    table = [
        [
            r["set"],
            r["mode"],
            r["n"],
            r["unscored"],
            cell(r["zero_one"]),
            cell(r["graded"]),
            cell(r["overlap"]),
            r["calls_per_case"],
            r["tokens_per_case"],
            r["seconds_per_case"],
        ]
        for r in sorted(rows, key=lambda r: (r["set"], r["mode"]))
    ]
    print_table(
        ["set", "mode", "n", "unsc", "0/1", "graded", "overlap", "calls", "tokens", "s/case"],
        table,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=("speed", "agreement", "table"))
    parser.add_argument("--base-url", default="http://127.0.0.1:8177/v1")
    parser.add_argument("--model", default="qwen2.5-coder-1.5b@cc324af070c2")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--en", type=int, default=6)
    parser.add_argument("--zh", type=int, default=4)
    parser.add_argument("--n", type=int, default=20, help="cases a set (even: balanced)")
    parser.add_argument("--modes", nargs="*", default=list(MODES[::-1]))
    parser.add_argument("--cache", type=Path, default=None, help="call cache (default: ragmeter's)")
    args = parser.parse_args()
    if args.part == "speed":
        record_server_timings()
        asyncio.run(speed(args, demo_samples(args.en, args.zh)))
    elif args.part == "agreement":
        if args.cache is None:
            from ragmeter.clients.cache import default_cache_path

            args.cache = default_cache_path()
        asyncio.run(agreement(args))
    else:
        speed_table(load())
        agreement_table(load())


if __name__ == "__main__":
    main()
