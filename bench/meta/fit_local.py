"""Fit the local judge's faithfulness combination on the shared human-labelled sets.

    python bench/meta/fit_local.py [--limit 600] [--refresh] [--write]

1. Runs the local judge's evidence (claim split, best-window alignment, rules, MiniLM
   similarity) on every faithfulness-labelled case and caches each claim's feature row
   (bench/meta/out/claim_features.json; --refresh recomputes it).
2. Fits a logistic regression (numpy, Newton steps, L2) from claim features to the answer's
   human label: every claim inherits its answer's label, weighted so that each answer counts
   once and each data set counts equally. Evidence features keep their sign (more coverage or
   similarity never lowers the probability; see SIGNS). Claims a rule decided (conflicting
   number or negation, a number found nowhere: 0; every key word in one window: 1) are left
   out. A claim's credit rises from 0 to 1 between the 5th and 95th percentiles of the fitted
   probabilities (so full credit is reachable without a rule).
3. The answer's score is the mean claim credit, as in the judge. It reports per set, in-sample
   (fit on all sets) and leave-one-dataset-out (fit on the others): Spearman for graded labels,
   AUROC and balanced accuracy (score ≥ 0.5) for binary ones.
4. --write stores the weights with their provenance in
   src/ragmeter/judges/local/weights/faithfulness.json; bench/results/meta_fit.json keeps the
   report.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from convert import DEFAULT_DATA, DEFAULT_OUT, convert_all, subsample  # noqa: E402

from ragmeter.agreement import auroc, balanced_accuracy, spearman  # noqa: E402
from ragmeter.judges.local import LocalJudge  # noqa: E402
from ragmeter.judges.local.combine import FEATURES, claim_evidence  # noqa: E402
from ragmeter.judges.local.view import build_view  # noqa: E402
from ragmeter.labels import LabelledCase  # noqa: E402
from ragmeter.runner import build_sample  # noqa: E402

SETS = ("mtrag", "expertqa", "summedits", "begin", "halueval", "halluqa")
SOURCES = {
    "mtrag": "IBM/mt-rag-benchmark@cc5b1d48 mtrag-human reference subset (human faithfulness)",
    "expertqa": "chaitanyamalaviya/ExpertQA@1aa7ba81 rand_test claims (expert support)",
    "summedits": "salesforce/factualNLG@0da1dfa6 SummEdits 8 domains (human-verified)",
    "begin": "google/BEGIN-dataset@6e65f0d5 dev wow+cmu (human attribution)",
    "halueval": "RUCAIBox/HaluEval QA first 300 pairs (labels by construction)",
    "halluqa": "OpenMOSS/HalluQA@7e5c6739 (human-written correct/wrong answers, zh)",
}
CACHE = DEFAULT_OUT / "claim_features.json"
WEIGHTS = HERE.parents[1] / "src" / "ragmeter" / "judges" / "local" / "weights"
WEIGHTS = WEIGHTS / "faithfulness.json"
REPORT = HERE.parent / "results" / "meta_fit.json"
CREDIT_LOW: float | None = None
CREDIT_HIGH: float | None = None
CREDIT_QUANTILE, L2 = 0.05, 10.0


def extract(limit: int, data: Path) -> list[dict[str, Any]]:
    """One entry per judged answer: its set, label, claim feature rows and rule flags."""
    judge = LocalJudge()
    answers = []
    for name in SETS:
        path = DEFAULT_OUT / f"{name}.jsonl"
        if not path.exists():
            convert_all(data, DEFAULT_OUT, [name])
        rows = [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]
        for row in subsample(rows, limit):
            case = LabelledCase.model_validate(row)
            if "faithfulness" not in case.labels or not case.contexts:
                continue
            # the sample `ragmeter calibrate` would judge
            sample = build_sample(case.to_case(), case.contexts, case.answer, case.lang or "en")
            view = build_view(sample, ("faithfulness",), judge.settings, judge.store)
            if not view.claims:
                continue
            items = claim_evidence(view)
            answers.append(
                {
                    "set": name,
                    "id": case.id,
                    "label": case.labels["faithfulness"],
                    "features": [list(i.features) for i in items],
                    "decided": [i.decided for i in items],
                }
            )
        print(f"… {name}: {sum(a['set'] == name for a in answers)} answers", file=sys.stderr)
    return answers


def design(answers: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Claim rows (rule-decided claims left out), soft targets and weights."""
    per_set: dict[str, int] = {}
    for a in answers:
        per_set[a["set"]] = per_set.get(a["set"], 0) + 1
    rows, targets, weights = [], [], []
    for a in answers:
        free = [f for f, d in zip(a["features"], a["decided"], strict=True) if d is None]
        for f in free:
            rows.append(f)
            targets.append(a["label"])
            weights.append(1.0 / len(free) / per_set[a["set"]])
    w = np.asarray(weights)
    return np.asarray(rows, dtype=float), np.asarray(targets), w / w.sum() * len(w)


SIGNS = {
    "support": 1,
    "lexical": 1,
    "coverage_all": 1,
    "missing_words": -1,
    "window_missing": -1,
    "near_miss": -1,
    "similarity": 1,
    "misplaced_number": -1,
    "missing_name": -1,
}
"""Signs the evidence must keep (more support never lowers the probability); the other
features are free."""


def fit(answers: list[dict[str, Any]]) -> dict[str, Any]:
    """Standardise, then Newton steps on the weighted logistic loss with an L2 penalty, the
    coefficients of :data:`SIGNS` held to their sign (active set: a coefficient at zero whose
    gradient pushes it across stays at zero)."""
    x, y, w = design(answers)
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    z = np.hstack([np.ones((len(x), 1)), (x - mean) / scale])
    sign = np.asarray([0] + [SIGNS.get(name, 0) for name in FEATURES], dtype=float)
    beta = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], L2)
    penalty[0] = 0.0
    for _ in range(200):
        p = 1 / (1 + np.exp(-np.clip(z @ beta, -30, 30)))
        grad = z.T @ (w * (p - y)) + penalty * beta
        hess = (z * (w * p * (1 - p))[:, None]).T @ z + np.diag(penalty + 1e-9)
        stuck = (sign != 0) & (beta * sign <= 0) & (grad * sign > 0)
        free = ~stuck
        step = np.zeros_like(beta)
        step[free] = np.linalg.solve(hess[np.ix_(free, free)], grad[free])
        new = beta - step
        wrong = (sign != 0) & (new * sign < 0)
        new[wrong] = 0.0
        if np.abs(new - beta).max() < 1e-8:
            beta = new
            break
        beta = new
    low, high = CREDIT_LOW, CREDIT_HIGH
    if low is None or high is None:
        p = 1 / (1 + np.exp(-np.clip(z @ beta, -30, 30)))
        low = _weighted_quantile(p, w, CREDIT_QUANTILE)
        high = _weighted_quantile(p, w, 1 - CREDIT_QUANTILE)
    return {
        "features": list(FEATURES),
        "mean": mean.round(6).tolist(),
        "scale": scale.round(6).tolist(),
        "coef": beta[1:].round(6).tolist(),
        "intercept": round(float(beta[0]), 6),
        "credit_low": round(float(low), 4),
        "credit_high": round(float(high), 4),
        "threshold": round(float(low + high) / 2, 4),  # supported once credit reaches 1/2
    }


def _weighted_quantile(values: np.ndarray, weights: np.ndarray, q: float) -> float:
    order = np.argsort(values)
    cumulative = np.cumsum(weights[order])
    return float(values[order][np.searchsorted(cumulative, q * cumulative[-1])])


def answer_scores(model: dict[str, Any], answers: list[dict[str, Any]]) -> np.ndarray:
    """The judge's faithfulness score of each answer under `model`: mean claim credit."""
    mean, scale = np.asarray(model["mean"]), np.asarray(model["scale"])
    coef = np.asarray(model["coef"])
    out = []
    for a in answers:
        credits = []
        for f, decided in zip(a["features"], a["decided"], strict=True):
            if decided is not None:
                credits.append(decided)
                continue
            z = model["intercept"] + float(((np.asarray(f) - mean) / scale) @ coef)
            p = 1 / (1 + np.exp(-np.clip(z, -30, 30)))
            low, high = model["credit_low"], model["credit_high"]
            credits.append(float(np.clip((p - low) / (high - low), 0, 1)))
        out.append(sum(credits) / len(credits))
    return np.asarray(out)


def evaluate(scores: np.ndarray, labels: np.ndarray) -> dict[str, float | None]:
    if set(labels.tolist()) <= {0.0, 1.0}:
        return {
            "AUROC": auroc(scores, labels),
            "balanced accuracy": balanced_accuracy(scores, labels, 0.5),
        }
    return {"Spearman": spearman(scores, labels)}


def rules_only(answers: list[dict[str, Any]]) -> np.ndarray:
    """The judge without weights: share of claims the rules call supported (support ≥ 0.6)."""
    return np.asarray(
        [
            np.mean(
                [
                    d if d is not None else float(f[0] >= 0.6)
                    for f, d in zip(a["features"], a["decided"], strict=True)
                ]
            )
            for a in answers
        ]
    )


def report(answers: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
    full = fit(answers)
    in_sample, cross, rules = {}, {}, {}
    for name in SETS:
        held = [a for a in answers if a["set"] == name]
        if not held:
            continue
        labels = np.asarray([a["label"] for a in held])
        rules[name] = {"faithfulness": evaluate(rules_only(held), labels)}
        in_sample[name] = {"faithfulness": evaluate(answer_scores(full, held), labels)}
        model = fit([a for a in answers if a["set"] != name])
        cross[name] = {"faithfulness": evaluate(answer_scores(model, held), labels)}
    metrics = {"in_sample": in_sample, "cross_validated": cross, "rules_only": rules}
    return full, metrics


def print_report(metrics: dict[str, Any], counts: dict[str, int]) -> None:
    print(f"{'set':10s} {'n':>5s} {'measure':18s} {'rules':>7s} {'in-sample':>9s} {'LODO-CV':>8s}")
    for name, parts in metrics["in_sample"].items():
        for measure, value in parts["faithfulness"].items():
            rule = metrics["rules_only"][name]["faithfulness"][measure]
            cv = metrics["cross_validated"][name]["faithfulness"][measure]
            print(
                f"{name:10s} {counts[name]:5d} {measure:18s} {rule or 0:7.3f} {value or 0:9.3f} "
                f"{cv or 0:8.3f}"
            )


def _credit_note() -> str:
    if CREDIT_LOW is not None and CREDIT_HIGH is not None:
        return f"credit from 0 to 1 between probabilities {CREDIT_LOW} and {CREDIT_HIGH}"
    return (
        f"credit from 0 to 1 between the {CREDIT_QUANTILE:.0%} and {1 - CREDIT_QUANTILE:.0%} "
        "quantiles of the fitted probabilities"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--limit", type=int, default=600, help="max cases per set (seed 0)")
    parser.add_argument("--refresh", action="store_true", help="recompute claim features")
    parser.add_argument("--write", action="store_true", help="write the shipped weights file")
    parser.add_argument(
        "--credit",
        type=float,
        nargs=2,
        default=None,
        help="probabilities at which a claim counts 0 and fully",
    )
    args = parser.parse_args()
    if args.credit:
        global CREDIT_LOW, CREDIT_HIGH
        CREDIT_LOW, CREDIT_HIGH = args.credit
    if args.refresh or not CACHE.exists():
        answers = extract(args.limit, args.data.resolve())
        CACHE.write_text(json.dumps({"features": list(FEATURES), "answers": answers}))
    cached = json.loads(CACHE.read_text())
    if cached["features"] != list(FEATURES):
        sys.exit("cached features are stale: rerun with --refresh")
    answers = cached["answers"]
    counts = {name: sum(a["set"] == name for a in answers) for name in SETS}
    model, metrics = report(answers)
    print_report(metrics, counts)
    digest = hashlib.sha256(json.dumps(model, sort_keys=True).encode()).hexdigest()[:8]
    today = datetime.now(UTC).strftime("%Y-%m-%d")
    spec = {
        "version": f"fit-{today}-{digest}",
        **model,
        "provenance": {
            "fitted_on": {
                name: {"answers": counts[name], "source": SOURCES[name]} for name in SETS
            },
            "date": today,
            "script": "bench/meta/fit_local.py",
            "subsample": f"at most {args.limit} cases per set, random.Random(0)",
            "model": "logistic regression on standardised claim features; claims inherit "
            "their answer's label; each answer and each set weighted equally; "
            f"L2 {L2}; evidence signs constrained ({', '.join(sorted(SIGNS))}); "
            f"rule-decided claims excluded; {_credit_note()}",
            "cv_scheme": "leave-one-dataset-out",
            "metrics": metrics,
        },
    }
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(json.dumps(spec, indent=2))
    if args.write:
        WEIGHTS.parent.mkdir(parents=True, exist_ok=True)
        WEIGHTS.write_text(json.dumps(spec, indent=2) + "\n")
        print(f"weights written to {WEIGHTS}")


if __name__ == "__main__":
    main()
