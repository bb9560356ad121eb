"""How an answer's claim probabilities should combine into faithfulness: mean, min or soft min.

    python bench/verdict_combine.py run --base-url http://127.0.0.1:8391/v1 [--n 24]
    python bench/verdict_combine.py table

Human-labelled answers with more than one claim (the rule-based split the verifier mode uses),
label-balanced and seeded: HalluQA (zh, short evidence) and the SummEdits summaries with the
shortest documents (en, one edited sentence makes a summary inconsistent). Each answer's claims
are verified by the llama judge's faithfulness in verifier mode (P(supported) as the model gives
it, no calibration), and the three combinations are scored against people: AUROC, and the share
of faithful answers passing and unfaithful ones failing at the report's threshold. Measuring
only: nothing is fitted here (shared/data is for measuring). Writes
bench/results/verdict_combine.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import RESULTS, machine, print_table, write_json  # noqa: E402

from ragmeter.judges.base import Sample  # noqa: E402
from ragmeter.judges.llm.combine import COMBINERS  # noqa: E402
from ragmeter.judges.local.claims import split_claims  # noqa: E402
from ragmeter.results.summary import DEFAULT_FAIL_THRESHOLDS  # noqa: E402

NAME = "verdict_combine.json"
OUT = HERE / "meta" / "out"
SEED = 0


def draw(name: str, n: int) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in (OUT / f"{name}.jsonl").open(encoding="utf-8")]
    rows = [
        r
        for r in rows
        if r["contexts"]
        and r["labels"].get("faithfulness") in (0.0, 1.0)
        and len(split_claims(r["answer"], r.get("lang") or "en")) > 1
    ]
    if name == "summedits":  # the shortest documents: prefill is the cost on a CPU
        rows.sort(key=lambda r: (sum(len(c) for c in r["contexts"]), r["id"]))
        rows = rows[: 4 * n]
    rng = random.Random(SEED)
    groups = [
        rng.sample([r for r in rows if r["labels"]["faithfulness"] == v], n // 2)
        for v in (1.0, 0.0)
    ]
    return [r for pair in zip(*groups, strict=True) for r in pair]


async def run(args: argparse.Namespace) -> None:
    from ragmeter.judges.llm import LLMJudgeConfig, build_llm_judge

    judge = build_llm_judge(
        LLMJudgeConfig(
            model=args.model,
            base_url=args.base_url,
            api_key_env=None,
            concurrency=1,
            timeout=900,
            faithfulness_mode="verifier",
            cache_path=RESULTS / "verdict_combine.sqlite",
        )
    )
    data = load()
    try:
        for name, n in (("halluqa", args.n), ("summedits", args.n // 3)):
            done = data.setdefault(name, [])
            for row in draw(name, n)[len(done) :]:
                sample = Sample(
                    case_id=row["id"],
                    question=row["question"],
                    contexts=row["contexts"],
                    answer=row["answer"],
                    lang=row.get("lang") or "en",
                )
                result = (await judge.judge(sample, ("faithfulness",)))["faithfulness"]
                ps = [c.confidence for c in result.evidence.claims]
                done.append({"id": row["id"], "label": row["labels"]["faithfulness"], "ps": ps})
                print(f"… {name} {len(done)} {done[-1]}", file=sys.stderr)
                save(data)
    finally:
        await judge.aclose()
    table(data)


def save(data: dict[str, Any]) -> None:
    data["machine"] = machine()
    write_json(NAME, data)


def load() -> dict[str, Any]:
    path = RESULTS / NAME
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def auroc(scores: list[float], labels: list[float]) -> float:
    pos = [s for s, y in zip(scores, labels, strict=True) if y == 1.0]
    neg = [s for s, y in zip(scores, labels, strict=True) if y == 0.0]
    wins = sum((p > q) + 0.5 * (p == q) for p in pos for q in neg)
    return wins / (len(pos) * len(neg))


def table(data: dict[str, Any]) -> None:
    threshold = DEFAULT_FAIL_THRESHOLDS["faithfulness"]
    rows = []
    for name in ("halluqa", "summedits", "all"):
        picked = [
            r
            for key in ("halluqa", "summedits")
            if name in (key, "all")
            for r in data.get(key, [])
            if r["ps"] and all(p is not None for p in r["ps"])
        ]
        if not picked or len({r["label"] for r in picked}) < 2:
            continue
        labels = [r["label"] for r in picked]
        line: list[Any] = [name, len(picked)]
        for fn in COMBINERS.values():
            scores = [fn(r["ps"]) for r in picked]
            good = [s >= threshold for s, y in zip(scores, labels, strict=True) if y == 1.0]
            bad = [s < threshold for s, y in zip(scores, labels, strict=True) if y == 0.0]
            line.append(
                f"{auroc(scores, labels):.2f} ({sum(good)}/{len(good)} pass, "
                f"{sum(bad)}/{len(bad)} fail)"
            )
        rows.append(line)
    print("\nfaithfulness from the claims' P(supported), verifier mode, 1.5B: AUROC vs people")
    print_table(["set", "answers", *COMBINERS], rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--n", type=int, default=24)
    r.add_argument("--base-url", required=True)
    r.add_argument("--model", default="qwen2.5-coder-1.5b@cc324af070c2")
    sub.add_parser("table")
    args = parser.parse_args()
    if args.command == "run":
        asyncio.run(run(args))
    else:
        table(load())


if __name__ == "__main__":
    main()
