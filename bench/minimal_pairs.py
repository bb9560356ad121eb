"""A judge's faithfulness on the project's hand-written minimal pairs, beside word overlap.

    python bench/minimal_pairs.py                      # the local judge
    python bench/minimal_pairs.py --judge llama        # the bundled 1.5B (the `llama` extra)
    python bench/minimal_pairs.py --judge openai --model qwen2.5:7b --base-url http://...

bench/data/minimal_pairs.jsonl holds 24 pairs, 12 English and 12 Chinese, written for this
project and used for nothing else: one passage, a faithful answer that says the same thing in
other words, and an unfaithful one that reuses the passage's words but changes the meaning
(negation, swapped roles or entities, a moved number or date, an antonym, a quantifier, a
reversed cause, the order of steps, a comparison, may/must, a condition). A pair is won when
the faithful answer scores strictly above the unfaithful one; ties are counted apart. Issue 32
asks the llama judge's graded verifier to win at least 85%. Nothing is fitted here.
Writes bench/results/minimal_pairs_<judge>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "meta"))

from common import machine, print_table, write_json  # noqa: E402
from run import overlap  # noqa: E402  (bench/meta's word-overlap baseline)

import ragmeter  # noqa: E402
from ragmeter.judges.base import Judge, Sample  # noqa: E402

PAIRS = HERE / "data" / "minimal_pairs.jsonl"


async def faithfulness(judge: Judge, pair: dict[str, Any], which: str) -> float | None:
    sample = Sample(
        case_id=f"{pair['id']}-{which}",
        question="",
        contexts=[pair["evidence"]],
        answer=pair[which],
        lang=pair["lang"],
    )
    result = (await judge.judge(sample, ("faithfulness",)))["faithfulness"]
    return result.score


def outcome(faithful: float | None, unfaithful: float | None) -> str:
    if faithful is None or unfaithful is None:
        return "unscored"
    if faithful > unfaithful:
        return "won"
    return "tie" if faithful == unfaithful else "lost"


async def score_pairs(judge: Judge, pairs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    try:
        for pair in pairs:
            good = await faithfulness(judge, pair, "faithful")
            bad = await faithfulness(judge, pair, "unfaithful")
            base_good = overlap(pair["faithful"], pair["evidence"], pair["lang"])
            base_bad = overlap(pair["unfaithful"], pair["evidence"], pair["lang"])
            rows.append(
                {
                    "id": pair["id"],
                    "lang": pair["lang"],
                    "kind": pair["kind"],
                    "judge": [good, bad],
                    "judge_outcome": outcome(good, bad),
                    "overlap": [round(base_good, 4), round(base_bad, 4)],
                    "overlap_outcome": outcome(base_good, base_bad),
                }
            )
    finally:
        await judge.aclose()
    return rows


def tally(rows: list[dict[str, Any]], key: str, lang: str | None) -> dict[str, int]:
    picked = [r for r in rows if lang is None or r["lang"] == lang]
    counts = {"n": len(picked)}
    for word in ("won", "tie", "lost", "unscored"):
        counts[word] = sum(r[key] == word for r in picked)
    return counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--judge", default="local")
    ap.add_argument("--model")
    ap.add_argument("--base-url")
    args = ap.parse_args()
    pairs = [json.loads(line) for line in PAIRS.read_text(encoding="utf-8").splitlines() if line]
    settings = {k: v for k, v in {"model": args.model, "base_url": args.base_url}.items() if v}
    judge = ragmeter.judge(args.judge, **settings)
    fingerprint = judge.fingerprint()
    started = time.perf_counter()
    rows = asyncio.run(score_pairs(judge, pairs))
    seconds = time.perf_counter() - started

    def fmt(score: float | None) -> str:
        return "-" if score is None else f"{score:.2f}"

    print_table(
        ["pair", "kind", "judge faithful/unfaithful", "", "overlap", ""],
        [
            [
                r["id"],
                r["kind"],
                f"{fmt(r['judge'][0])} / {fmt(r['judge'][1])}",
                r["judge_outcome"],
                f"{r['overlap'][0]:.2f} / {r['overlap'][1]:.2f}",
                r["overlap_outcome"],
            ]
            for r in rows
        ],
    )
    summary = {
        f"{key}:{lang or 'all'}": tally(rows, f"{key}_outcome", lang)
        for key in ("judge", "overlap")
        for lang in ("en", "zh", None)
    }
    print()
    print_table(
        ["scorer", "lang", "won", "tie", "lost", "unscored", "share won"],
        [
            [
                name.split(":")[0],
                name.split(":")[1],
                c["won"],
                c["tie"],
                c["lost"],
                c["unscored"],
                f"{c['won'] / c['n']:.0%}",
            ]
            for name, c in summary.items()
        ],
    )
    print(f"\n{args.judge}: {seconds:.0f} s for {2 * len(rows)} answers")
    write_json(
        f"minimal_pairs_{args.judge}.json",
        {
            "benchmark": "minimal_pairs",
            "command": "python bench/minimal_pairs.py " + " ".join(sys.argv[1:]),
            "machine": machine(),
            "judge": fingerprint.model_dump(),
            "seconds": round(seconds, 1),
            "summary": summary,
            "pairs": rows,
        },
    )


if __name__ == "__main__":
    main()
