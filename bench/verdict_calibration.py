"""Platt scaling of the llama judge's P(supported), fitted on held-back training pairs only.

    python bench/verdict_calibration.py run --n 60 --base-url http://127.0.0.1:8391/v1
    python bench/verdict_calibration.py run --n 60 --layout plain --base-url ...  # held half
    python bench/verdict_calibration.py fit      # fit on the fit half, ECE on the other half
    python bench/verdict_calibration.py table

Pairs come from shared/data/train only (never an evaluation set): a seeded, label-balanced
sample of short premises (English: fact verification, NLI and document pairs; Chinese: NLI
and reading-comprehension pairs), `--n` per language and half, split into a fit half and an
evaluation half. Each pair is asked with the verifier's own statement prompt (the premise as
evidence, the hypothesis as statement; no question, as the pairs have none). `fit` fits two
parameters, P' = sigmoid(a·logit(P) + b), by log loss on the fit half, and reports expected
calibration error (10 equal-width bins), Brier score and AUROC on the evaluation half before
and after; it writes the parameters into the package
(src/ragmeter/judges/llm/calibration.json) with what they were fitted on.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import RESULTS, machine, print_table, write_json  # noqa: E402

TRAIN = HERE.parent.parent / "shared" / "data" / "train"
NAME = "verdict_calibration.json"
PACKAGE_FILE = HERE.parent / "src" / "ragmeter" / "judges" / "llm" / "calibration.json"
GROUPS = {"en": ("factver", "nli", "doc"), "zh": ("nli", "doc")}
MAX_PREMISE = {"en": 500, "zh": 220}
SEED = 0


def draw(lang: str, n: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(fit, evaluation) halves of `n` pairs each, label-balanced, short premises."""
    path = TRAIN / f"{lang}.jsonl"
    if not path.exists():  # a worktree: the shared data lives beside the main checkout
        path = Path("/work/shared/data/train") / f"{lang}.jsonl"
    rows = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if row["group"] in GROUPS[lang] and len(row["premise"]) <= MAX_PREMISE[lang]:
                rows.append(row)
    rng = random.Random(SEED)
    rng.shuffle(rows)
    by_label: dict[int, list[dict[str, Any]]] = {0: [], 1: []}
    for row in rows:
        if len(by_label[row["label"]]) < n:
            by_label[row["label"]].append(row)
    fit = by_label[0][: n // 2] + by_label[1][: n // 2]
    # alternating labels, so that every even prefix of the held-back half is balanced
    pairs = zip(by_label[0][n // 2 :], by_label[1][n // 2 :], strict=True)
    held = [r for pair in pairs for r in pair]
    return fit, held


async def run(args: argparse.Namespace) -> None:
    from ragmeter.judges.base import Sample
    from ragmeter.judges.llm import LLMJudgeConfig, build_llm_judge
    from ragmeter.judges.llm.context import Spend
    from ragmeter.judges.llm.verifier import ask_in_groups, statement_messages

    judge = build_llm_judge(
        LLMJudgeConfig(
            model=args.model,
            base_url=args.base_url,
            api_key_env=None,
            concurrency=1,
            timeout=900,
            cache_path=RESULTS / "verdict_calibration.sqlite",
        )
    )
    out: dict[str, Any] = load()
    try:
        for lang in ("en", "zh"):
            fit, held = draw(lang, args.n)
            held = held[: args.held]
            halves = (("fit", fit), ("held", held)) if args.layout == "verifier" else ()
            if args.layout == "plain":
                halves = (("held_plain", held),)
            for half, rows in halves:
                done = out.setdefault(f"{lang}_{half}", [])
                for row in rows[len(done) :]:
                    sample = Sample(
                        case_id="cal", question="", contexts=[row["premise"]], lang=lang
                    )  # type: ignore[arg-type]
                    if half == "held_plain":
                        messages = plain_messages(row["premise"], row["hypothesis"], lang)
                    else:
                        messages = statement_messages(row["premise"], "", row["hypothesis"], lang)
                    ((read,),) = await ask_in_groups(
                        judge.context, sample, "faithfulness", [[messages]], Spend()
                    )
                    done.append({"label": row["label"], "p": None if read is None else read[0]})
                    print(f"… {lang} {half} {len(done)}/{len(rows)} {done[-1]}", file=sys.stderr)
                    save(out)
    finally:
        await judge.aclose()


PLAIN = {
    "en": "Evidence: {e}\n\nClaim: {c}\n\nIs every part of the claim supported by the evidence? "
    "Answer Yes or No.",
    "zh": "证据：{e}\n\n论断：{c}\n\n论断的每一部分都有证据支持吗？只回答 Yes 或 No。",
}
"""The plain layout of shared/MODELS.md, measured beside the verifier's own."""


def plain_messages(premise: str, hypothesis: str, lang: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": PLAIN[lang].format(e=premise, c=hypothesis)}]


def save(data: dict[str, Any]) -> None:
    data["machine"] = machine()
    write_json(NAME, data)


def load() -> dict[str, Any]:
    path = RESULTS / NAME
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


def platt(p: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(a, b) minimising the log loss of sigmoid(a·logit(p) + b), by Newton's method."""
    x = logit(p)
    w = np.array([1.0, 0.0])
    design = np.stack([x, np.ones_like(x)], axis=1)
    for _ in range(100):
        q = 1 / (1 + np.exp(-(design @ w)))
        grad = design.T @ (q - y)
        hess = design.T @ (design * (q * (1 - q))[:, None]) + 1e-6 * np.eye(2)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return float(w[0]), float(w[1])


def apply(p: np.ndarray, a: float, b: float) -> np.ndarray:
    return 1 / (1 + np.exp(-(a * logit(p) + b)))


def ece(p: np.ndarray, y: np.ndarray, bins: int = 10) -> float:
    """Expected calibration error over equal-width bins."""
    total = 0.0
    for k in range(bins):
        lo, hi = k / bins, (k + 1) / bins
        inside = (p >= lo) & ((p < hi) if k < bins - 1 else (p <= hi))
        if inside.any():
            total += inside.sum() / len(p) * abs(p[inside].mean() - y[inside].mean())
    return float(total)


def auroc(p: np.ndarray, y: np.ndarray) -> float:
    pos, neg = p[y == 1], p[y == 0]
    wins = sum((pp > neg).sum() + 0.5 * (pp == neg).sum() for pp in pos)
    return float(wins / (len(pos) * len(neg)))


def arrays(rows: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    kept = [r for r in rows if r["p"] is not None]
    return np.array([r["p"] for r in kept]), np.array([float(r["label"]) for r in kept])


def fit(args: argparse.Namespace) -> None:
    from ragmeter.judges.llama import BUNDLED_MODELS
    from ragmeter.judges.llm.verifier import statement_prompt_version

    data = load()
    p_fit, y_fit = arrays(data.get("en_fit", []) + data.get("zh_fit", []))
    a, b = platt(p_fit, y_fit)
    report: dict[str, Any] = {"a": a, "b": b, "n_fit": len(p_fit), "held": {}}
    for lang in ("en", "zh", "all"):
        rows = [r for key in ("en_held", "zh_held") if lang in (key[:2], "all") for r in data[key]]
        p, y = arrays(rows)
        q = apply(p, a, b)
        report["held"][lang] = {
            "n": len(p),
            "ece_before": ece(p, y),
            "ece_after": ece(q, y),
            "brier_before": float(((p - y) ** 2).mean()),
            "brier_after": float(((q - y) ** 2).mean()),
            "auroc": auroc(p, y),
            "mean_p_supported": float(p[y == 1].mean()),
            "mean_p_unsupported": float(p[y == 0].mean()),
        }
    report["layouts"] = {}
    plain_n = {lang: len(data.get(f"{lang}_held_plain", [])) for lang in ("en", "zh")}
    for layout, suffix in (("verifier", "held"), ("plain", "held_plain")):
        rows = [  # the same pairs in both layouts: the plain run's prefix of the held half
            r for lang in ("en", "zh") for r in data.get(f"{lang}_{suffix}", [])[: plain_n[lang]]
        ]
        if rows:
            p, y = arrays(rows)
            report["layouts"][layout] = {
                "n": len(p),
                "auroc": auroc(p, y),
                "mean_p_supported": float(p[y == 1].mean()),
                "mean_p_unsupported": float(p[y == 0].mean()),
                "ece": ece(p, y),
            }
    data["fit"] = report
    save(data)
    model = BUNDLED_MODELS["qwen2.5-coder-1.5b"]
    PACKAGE_FILE.write_text(
        json.dumps(
            {
                model.sha256: {
                    "a": round(a, 4),
                    "b": round(b, 4),
                    "prompts": statement_prompt_version(),
                    "fitted_on": f"{len(p_fit)} held-back pairs of shared/data/train "
                    f"(bench/verdict_calibration.py, seed {SEED})",
                    "ece_held_out": {
                        "before": round(report["held"]["all"]["ece_before"], 3),
                        "after": round(report["held"]["all"]["ece_after"], 3),
                    },
                }
            },
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )
    table(data)


def table(data: dict[str, Any]) -> None:
    report = data.get("fit")
    if not report:
        return
    layouts = report.get("layouts", {})
    if layouts:
        print("\nprompt layouts on the same held-back pairs (uncalibrated)")
        print_table(
            ["layout", "pairs", "AUROC", "P supp.", "P unsupp.", "ECE"],
            [
                [k, v["n"], v["auroc"], v["mean_p_supported"], v["mean_p_unsupported"], v["ece"]]
                for k, v in layouts.items()
            ],
        )
    print(f"\nPlatt scaling a={report['a']:.3f} b={report['b']:.3f} on {report['n_fit']} pairs")
    rows = [
        [
            lang,
            r["n"],
            r["auroc"],
            r["mean_p_supported"],
            r["mean_p_unsupported"],
            r["ece_before"],
            r["ece_after"],
            r["brier_before"],
            r["brier_after"],
        ]
        for lang, r in report["held"].items()
    ]
    print_table(
        [
            "held-back",
            "pairs",
            "AUROC",
            "P supp.",
            "P unsupp.",
            "ECE",
            "ECE cal.",
            "Brier",
            "Brier cal.",
        ],
        rows,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--n", type=int, default=60)
    r.add_argument("--layout", choices=("verifier", "plain"), default="verifier")
    r.add_argument("--held", type=int, default=None, help="held-back pairs per language")
    r.add_argument("--base-url", required=True)
    r.add_argument("--model", default="qwen2.5-coder-1.5b@cc324af070c2")
    sub.add_parser("fit")
    sub.add_parser("table")
    args = parser.parse_args()
    if args.command == "run":
        asyncio.run(run(args))
    elif args.command == "fit":
        fit(args)
    else:
        table(load())


if __name__ == "__main__":
    main()
