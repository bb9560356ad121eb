"""Measure the regression gate's false-alarm rate and power by simulation.

Each simulated case has, per metric, a few judged units (claims, points, chunks, generated
questions: 1 + Poisson(3)) whose true labels are fixed by the pipeline's output; the case's
true quality q ~ Beta(mean μ, concentration 2) puts many cases at or near 1.0. The judge
mislabels each unit independently with probability `flip` on every judgement, and the score is
the share of units judged positive, so scores are bounded in [0, 1], pile up at 1.0, and two
runs of the same pipeline are correlated through the shared true labels.

* A/A: the same pipeline judged twice (judge noise only). Every gate failure is a false alarm.
* A/B: the new pipeline turns positive units negative with a probability chosen so the
  metric's expected measured mean drops by exactly `drop`. A gate failure is a detection.

The real `ragmeter.compare.gate.gate_run` is called on real `RunResult` objects with the default
GateSettings (floors faithfulness 0.85 and answer relevancy 0.80, margin 0.05, alpha 0.05,
Holm across the six checks).

    python bench/gate_error_rates.py [--replicates 1000] [--cases 50]

Prints a table and writes bench/results/gate_error_rates.json.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from ragmeter.compare.gate import gate_run
from ragmeter.config import GateSettings
from ragmeter.judges.base import METRICS, JudgeFingerprint, MetricResult
from ragmeter.results import CaseResult, RunInfo, RunResult
from ragmeter.results.diagnosis import diagnose
from ragmeter.results.summary import DEFAULT_FAIL_THRESHOLDS, summarize_run

TRUE_MEANS = {
    "context_recall": 0.85,
    "context_precision": 0.75,
    "faithfulness": 0.93,
    "answer_relevancy": 0.90,
}
JUDGE = JudgeFingerprint(kind="sim", model="sim", prompt_version="1")
OUT = Path(__file__).parent / "results" / "gate_error_rates.json"


def true_labels(rng: np.random.Generator, n: int, mu: float) -> list[np.ndarray]:
    """Per case, the true labels of its units."""
    kappa = 2.0
    q = rng.beta(mu * kappa, (1 - mu) * kappa, size=n)
    units = 1 + rng.poisson(3, size=n)
    return [rng.random(k) < qi for k, qi in zip(units, q, strict=True)]


def judged(rng: np.random.Generator, labels: list[np.ndarray], flip: float) -> list[float]:
    return [float(np.mean(lab ^ (rng.random(len(lab)) < flip))) for lab in labels]


def degrade(rng: np.random.Generator, labels: list[np.ndarray], rate: float) -> list[np.ndarray]:
    return [lab & ~(rng.random(len(lab)) < rate) for lab in labels]


def make_run(scores: dict[str, list[list[float]]]) -> RunResult:
    """A run from K judgements per case and metric (the first is the case's score)."""
    n = len(next(iter(scores.values()))[0])
    k = len(next(iter(scores.values())))
    cases = [
        CaseResult(
            id=f"c{i:03d}",
            question=f"q{i}",
            metrics={m: MetricResult(metric=m, score=scores[m][0][i]) for m in METRICS},
            repeats={m: [scores[m][r][i] for r in range(k)] for m in METRICS} if k > 1 else {},
        )
        for i in range(n)
    ]
    summary = summarize_run(cases, thresholds=DEFAULT_FAIL_THRESHOLDS)
    return RunResult(
        judge=JUDGE,
        run=RunInfo(thresholds=dict(DEFAULT_FAIL_THRESHOLDS)),
        summary=summary,
        diagnosis=diagnose(summary),
        cases=cases,
    )


def replicate(
    rng: np.random.Generator,
    n: int,
    flip: float,
    drop_metric: str | None,
    drop: float,
    means: dict[str, float],
    repeats: int,
) -> tuple[bool, bool, dict[str, str]]:
    """One base/new pair; (gate failed, strict non-inferiority rule failed, per-metric status)."""
    base_scores: dict[str, list[list[float]]] = {}
    new_scores: dict[str, list[list[float]]] = {}
    for metric in METRICS:
        labels = true_labels(rng, n, means[metric])
        base_scores[metric] = [judged(rng, labels, flip) for _ in range(repeats)]
        if metric == drop_metric:
            true_mean = float(np.mean([lab.mean() for lab in labels]))
            rate = min(1.0, drop / ((1 - 2 * flip) * max(true_mean, 1e-9)))
            labels = degrade(rng, labels, rate)
        new_scores[metric] = [judged(rng, labels, flip) for _ in range(repeats)]
    result = gate_run(make_run(new_scores), GateSettings(), baseline=make_run(base_scores))
    strict = any(
        c.kind == "baseline" and c.bound is not None and c.bound < (c.threshold or 0.0)
        for c in result.checks
    ) or any(c.kind == "floor" and c.status == "fail" for c in result.checks)
    return not result.passed, strict, {v.metric: v.status for v in result.verdicts}


def scenario(
    name: str,
    reps: int,
    n: int,
    flip: float,
    drop_metric: str | None,
    drop: float = 0.0,
    means: dict[str, float] | None = None,
    seed: int = 1,
    repeats: int = 1,
) -> dict:
    rng = np.random.default_rng(seed)
    fails = strict = 0
    per_metric = dict.fromkeys(METRICS, 0)
    for _ in range(reps):
        failed, strict_failed, statuses = replicate(
            rng, n, flip, drop_metric, drop, means or TRUE_MEANS, repeats
        )
        fails += failed
        strict += strict_failed
        for metric, status in statuses.items():
            per_metric[metric] += status == "fail"
    rate = fails / reps
    half = 1.96 * (rate * (1 - rate) / reps) ** 0.5
    return {
        "scenario": name,
        "cases": n,
        "replicates": reps,
        "judge_flip": flip,
        "repeats": repeats,
        "drop_metric": drop_metric,
        "drop": drop,
        "gate_fail_rate": rate,
        "gate_fail_rate_ci95": [max(0.0, rate - half), min(1.0, rate + half)],
        "strict_noninferiority_fail_rate": strict / reps,
        "fail_rate_by_metric": {m: c / reps for m, c in per_metric.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--cases", type=int, default=50)
    parser.add_argument("--flip", type=float, default=0.05, help="Judge unit error rate.")
    parser.add_argument("--out", type=Path, default=OUT, help="Where to write the JSON.")
    args = parser.parse_args()
    reps, n, flip = args.replicates, args.cases, args.flip
    at_floor = {**TRUE_MEANS, "faithfulness": 0.85 / (1 - 2 * flip) - flip / (1 - 2 * flip)}
    plan = [
        ("A/A (judge noise only)", None, 0.0, None, 11, 1),
        ("A/B context_recall −0.10", "context_recall", 0.10, None, 12, 1),
        ("A/B context_precision −0.10", "context_precision", 0.10, None, 16, 1),
        ("A/B faithfulness −0.10", "faithfulness", 0.10, None, 13, 1),
        ("A/B answer_relevancy −0.10", "answer_relevancy", 0.10, None, 14, 1),
        ("A/A faithfulness at its floor", None, 0.0, at_floor, 15, 1),
        ("A/A, --repeats 3", None, 0.0, None, 17, 3),
        ("A/B context_recall −0.10, --repeats 3", "context_recall", 0.10, None, 18, 3),
    ]
    rows = []
    started = time.perf_counter()
    for name, metric, drop, means, seed, repeats in plan:
        rows.append(scenario(name, reps, n, flip, metric, drop, means, seed, repeats))
        print(f"  {name}: done", flush=True)
    seconds = time.perf_counter() - started
    print(
        f"\n{n} cases per run, {reps} replicates, judge unit error {flip}, "
        f"alpha 0.05, margin 0.05, Holm per family (floors, baseline) ({seconds:.0f} s)\n"
    )
    print(f"{'scenario':40} {'gate fails':>10} {'95% CI':>15} {'strict NI':>10}  target")
    for row in rows:
        low, high = row["gate_fail_rate_ci95"]
        target = "≤ 5% (false alarm)" if row["drop"] == 0 else "≥ 80% (power)"
        print(
            f"{row['scenario']:40} {row['gate_fail_rate']:>10.1%} "
            f"{f'[{low:.1%}, {high:.1%}]':>15} {row['strict_noninferiority_fail_rate']:>10.1%}"
            f"  {target}"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"true_means": TRUE_MEANS, "rows": rows}, indent=2) + "\n")
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
