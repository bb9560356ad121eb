"""Fit what a claim the local judge's rules leave unverified counts as, on shared/data/train.

    python train/fit_claim_credit.py [--en 3000] [--zh 2000] [--seed 0]

The local judge scores a claim by its support (key-word coverage, blended with MiniLM
similarity in English). Some rules find less than a contradiction: a number found nowhere in
the contexts, or a number not in the matching passage / a name never mentioned although the
claim's words are there. What support should such a claim count as? Here: the support at
which a plain claim (no rule fired) is as often supported as claims so judged are.

A seeded sample of premise/hypothesis pairs (never an evaluation set: shared/data/train is
filtered against them) is judged with the premise as the only context and the hypothesis as
the answer; for one-claim answers, P(supported | support) is fitted by logistic regression on
the plain claims, and each rule outcome's supported rate is mapped back through it. Prints
the table and writes train/out/claim_credit.json; the values go into LocalSettings
(`unfound_number_support`, `unplaced_support` and their `_zh` twins) by hand.
"""

from __future__ import annotations

import argparse
import json
import math
import random
from pathlib import Path
from typing import Any

from ragmeter.judges.base import Sample
from ragmeter.judges.local import LocalJudge
from ragmeter.judges.local.faithfulness import ClaimEvidence, claim_evidence
from ragmeter.judges.local.view import build_view

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[1] / "shared" / "data" / "train"
OUT = HERE / "out" / "claim_credit.json"
MAX_PREMISE = 3000


def outcome(item: ClaimEvidence, threshold: float) -> str:
    """Which rule decided the claim, or `plain` when its support alone does."""
    found = item.alignment
    if found.label == "contradicted":
        return "contradicted"
    if found.hard:
        return "unfound_number"
    if item.decided == 1.0:
        return "full"
    if found.label == "not_verifiable" and found.support >= threshold:
        return "unplaced"
    return "plain"


def logistic(x: list[float], y: list[float]) -> tuple[float, float]:
    """Intercept and slope of P(y=1 | x) by Newton's method."""
    a = b = 0.0
    for _ in range(50):
        ga = gb = haa = hab = hbb = 0.0
        for xi, yi in zip(x, y, strict=True):
            p = 1 / (1 + math.exp(-(a + b * xi)))
            w = p * (1 - p)
            ga, gb = ga + yi - p, gb + (yi - p) * xi
            haa, hab, hbb = haa + w, hab + w * xi, hbb + w * xi * xi
        det = haa * hbb - hab * hab
        a += (hbb * ga - hab * gb) / det
        b += (haa * gb - hab * ga) / det
    return a, b


def sample_pairs(lang: str, n: int, rng: random.Random) -> list[dict[str, Any]]:
    rows = []
    with (DATA / f"{lang}.jsonl").open(encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if len(row["premise"]) < MAX_PREMISE:
                rows.append(row)
    return rng.sample(rows, n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--en", type=int, default=3000)
    parser.add_argument("--zh", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    judge = LocalJudge()
    threshold = judge.settings.support_threshold
    fitted: dict[str, Any] = {}
    pooled: dict[str, list[tuple[str, float, float]]] = {}
    for lang, n in (("en", args.en), ("zh", args.zh)):
        seen: list[tuple[str, float, float]] = []
        for row in sample_pairs(lang, n, rng):
            sample = Sample(
                case_id="t",
                question="",
                contexts=[row["premise"]],
                answer=row["hypothesis"],
                lang=lang,  # type: ignore[arg-type]
            )
            view = build_view(sample, ("faithfulness",), judge.settings, judge.store)
            if len(view.claims) != 1:
                continue
            (item,) = claim_evidence(view)
            seen.append((outcome(item, threshold), item.alignment.support, float(row["label"])))
        pooled[lang] = seen
        fitted[lang] = fit(seen)
    fitted["pooled"] = fit([s for seen in pooled.values() for s in seen])
    for name, part in fitted.items():
        print(f"{name}: P(supported) = 1 / (1 + exp(-({part['a']:.3f} + {part['b']:.3f} s)))")
        for kind, row in part["outcomes"].items():
            print(
                f"  {kind:16s} n={row['n']:5d} supported {row['rate']:.3f} "
                f"≙ support {row['support']}"
            )
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(fitted, indent=2) + "\n", encoding="utf-8")
    print(f"written to {OUT}")


def fit(seen: list[tuple[str, float, float]]) -> dict[str, Any]:
    plain = [(s, y) for kind, s, y in seen if kind == "plain"]
    a, b = logistic([s for s, _ in plain], [y for _, y in plain])
    outcomes: dict[str, Any] = {}
    for kind in ("contradicted", "unfound_number", "unplaced", "full"):
        labels = [y for k, _, y in seen if k == kind]
        if not labels:
            continue
        rate = sum(labels) / len(labels)
        support = None
        if 0 < rate < 1:
            support = round(min(1.0, max(0.0, (math.log(rate / (1 - rate)) - a) / b)), 2)
        outcomes[kind] = {"n": len(labels), "rate": round(rate, 3), "support": support}
    return {"a": round(a, 3), "b": round(b, 3), "n_plain": len(plain), "outcomes": outcomes}


if __name__ == "__main__":
    main()
