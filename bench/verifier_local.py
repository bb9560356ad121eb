"""The trained claim verifier inside the local judge, measured on the shared human labels.

    python bench/verifier_local.py --model-dir train/out/verifier/export [--limit 200] [--sets ...]

For every faithfulness-labelled set of bench/meta (run bench/meta/convert.py first; sets above
--limit subsampled with seed 0), each answer is split and aligned by the local judge, and each
claim gets the verifier's P(supported) against its best window grown to the surrounding
sentences. Answer scores, side by side: the shipped local judge; `verifier` (mean P over the
claims, 0 where a rule found a conflicting number or negation); `verifier_min`; `blend` (the
mean of the local judge's claim credit and P); the word-overlap baseline of bench/meta/run.py.
AUROC for binary labels, Spearman for MTRAG, 95% bootstrap intervals. Nothing is fitted on
these sets. Writes bench/results/verifier_local.json.

`--pairs` also scores the hand-written minimal pairs of bench/data/minimal_pairs.jsonl (en +
zh: a faithful paraphrase and an unfaithful answer that reuses the evidence's words, by
negation, swapped roles or entities, moved numbers or dates, antonyms) and counts the pairs in
which each scorer puts the faithful answer above the unfaithful one.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "meta"))
sys.path.insert(0, str(HERE.parent / "train" / "verifier"))

from common import machine, print_table, write_json  # noqa: E402
from convert import DEFAULT_DATA  # noqa: E402
from run import baseline, load_set, overlap  # noqa: E402
from runtime import Verifier, passage_around  # noqa: E402

from ragmeter.cases.labels import LabelledCase  # noqa: E402
from ragmeter.judges.base import Sample  # noqa: E402
from ragmeter.judges.local.faithfulness import (  # noqa: E402
    claim_credit,
    claim_evidence,
    score_faithfulness,
)
from ragmeter.judges.local.features import sentences  # noqa: E402
from ragmeter.judges.local.settings import LocalSettings  # noqa: E402
from ragmeter.judges.local.vectors import EmbeddingStore, load_embedder  # noqa: E402
from ragmeter.judges.local.view import build_view  # noqa: E402
from ragmeter.stats.agreement import auroc, measure, spearman  # noqa: E402

SETS = ("mtrag", "expertqa", "summedits", "begin", "halueval", "halluqa")
VARIANTS = ("local", "verifier", "verifier_min", "blend", "overlap")


def load(name: str, limit: int) -> list[LabelledCase]:
    """bench/meta/run.py's sample of the set (same seed), its faithfulness-labelled cases."""
    cases = load_set(name, DEFAULT_DATA, limit)
    return [c for c in cases if "faithfulness" in c.labels]


def case_scores(case: LabelledCase, verifier: Verifier, store: EmbeddingStore) -> dict[str, Any]:
    sample = Sample(
        case_id=case.id,
        question=case.question,
        history=case.history,
        contexts=case.contexts,
        answer=case.answer,
        lang=case.lang or "en",
    )
    settings = LocalSettings()
    view = build_view(sample, ("faithfulness",), settings, store)
    local = score_faithfulness(view)
    out: dict[str, Any] = {"local": local.score, "overlap": baseline(case, "faithfulness")}
    if not local.scored or not case.contexts or not view.claims:
        return out
    items = claim_evidence(view)
    pairs = []
    for item in items:
        w = item.alignment.window
        if w is None:
            pairs.append((item.claim, case.contexts[0][:480]))
            continue
        chunk = case.contexts[w.chunk]
        pairs.append(
            (item.claim, passage_around(chunk, w.start, w.end, sentences(chunk, view.lang)))
        )
    probs = verifier.probabilities(pairs)
    ver, blend = [], []
    for item, p in zip(items, probs, strict=True):
        hard = item.alignment.hard
        ver.append(0.0 if hard else p)
        credit = claim_credit(item, settings.unsupported_credit)
        blend.append(0.0 if hard else (credit + p) / 2)
    out.update(
        verifier=sum(ver) / len(ver),
        verifier_min=min(ver),
        blend=sum(blend) / len(blend),
        claims=len(items),
    )
    return out


PAIRS = HERE / "data" / "minimal_pairs.jsonl"


def minimal_pairs(verifier: Verifier, store: EmbeddingStore) -> list[dict[str, Any]]:
    """Each pair's scores under the verifier, the shipped local judge and word overlap."""
    import json

    rows = []
    for line in PAIRS.open(encoding="utf-8"):
        pair = json.loads(line)
        row: dict[str, Any] = {"id": pair["id"], "kind": pair["kind"]}
        for side in ("faithful", "unfaithful"):
            answer = pair[side]
            sample = Sample(
                case_id=pair["id"],
                question="",
                contexts=[pair["evidence"]],
                answer=answer,
                lang=pair["lang"],
            )
            view = build_view(sample, ("faithfulness",), LocalSettings(), store)
            row[side] = {
                "verifier": verifier.probabilities([(answer, pair["evidence"])])[0],
                "local": score_faithfulness(view).score,
                "overlap": overlap(answer, pair["evidence"], pair["lang"]),
            }
        rows.append(row)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model-dir", type=Path, required=True, help="an exported verifier")
    ap.add_argument("--limit", type=int, default=200)
    ap.add_argument("--sets", nargs="*", default=list(SETS))
    ap.add_argument("--resamples", type=int, default=500)
    ap.add_argument("--name", default="verifier_local.json")
    ap.add_argument("--pairs", action="store_true", help="also score the minimal pairs")
    args = ap.parse_args()
    verifier = Verifier(args.model_dir)
    store = EmbeddingStore(load_embedder())
    rows = []
    for name in args.sets:
        cases = load(name, args.limit)
        started = time.perf_counter()
        scored = [case_scores(c, verifier, store) for c in cases]
        seconds = time.perf_counter() - started
        human = [float(c.labels["faithfulness"]) for c in cases]
        binary = all(h in (0.0, 1.0) for h in human)
        row: dict[str, Any] = {"set": name, "n": len(cases), "seconds": round(seconds, 1)}
        keep = [i for i, s in enumerate(scored) if "verifier" in s]
        row["n_scored"] = len(keep)
        for variant in VARIANTS:
            x = [scored[i][variant] for i in keep]
            y = [human[i] for i in keep]
            stat, label = (auroc, "AUROC") if binary else (spearman, "Spearman")
            m = measure(label, stat, x, y, resamples=args.resamples)
            row[variant] = m.model_dump()
        rows.append(row)
        print(f"… {name}: {len(cases)} cases in {seconds:.0f} s", file=sys.stderr)
    payload: dict[str, Any] = {"machine": machine(), "verifier": verifier.meta, "rows": rows}
    if args.pairs:
        pairs = minimal_pairs(verifier, store)
        wins = {
            scorer: sum(
                (p["faithful"][scorer] or 0) > (p["unfaithful"][scorer] or 0) for p in pairs
            )
            for scorer in ("verifier", "local", "overlap")
        }
        payload["minimal_pairs"] = {"n": len(pairs), "faithful_above": wins, "pairs": pairs}
        print(
            f"minimal pairs, faithful answer above the unfaithful one (of {len(pairs)}): "
            + ", ".join(f"{k} {v}" for k, v in wins.items())
        )
    write_json(args.name, payload)

    def cell(m: dict[str, Any]) -> str:
        v, ci = m.get("value"), m.get("ci")
        if v is None:
            return "–"
        return f"{v:.2f} [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else f"{v:.2f}"

    print_table(
        ["set", "n", "measure", *VARIANTS],
        [
            [r["set"], str(r["n_scored"]), r["local"]["name"], *(cell(r[v]) for v in VARIANTS)]
            for r in rows
        ],
    )


if __name__ == "__main__":
    main()
