"""Calibrate a judge on every shared human-labelled set and print one table.

    python bench/meta/run.py [--judge local] [--limit 400] [--sets mtrag summedits ...]
    python bench/meta/run.py --judge openai --model qwen2.5:7b --base-url http://localhost:11434/v1

Sets larger than --limit are subsampled with a fixed seed (0). Beside each figure: the
word-overlap baseline (faithfulness: share of the answer's content words found in the
contexts; answer relevancy: share of the question's content words found in the answer), and
for MTRAG the RAGAS faithfulness the authors computed (`auto.rl_f`). Nothing in the local judge
is fitted to these sets, so every figure is out of sample. Writes bench/results/meta.json.

`--write-reference` (local judge) also writes the judge's published agreement,
src/ragmeter/judges/local/weights/reference_agreement.json: one headline per metric from
MTRAG (people's ratings of RAG answers), which reports of uncalibrated runs with exactly this
judge configuration quote.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any, get_args

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from convert import CONVERTERS, DEFAULT_DATA, DEFAULT_OUT, convert_all, subsample  # noqa: E402

from ragmeter.cases.labels import LabelledCase, label_kind  # noqa: E402
from ragmeter.config import JudgeSettings  # noqa: E402
from ragmeter.results import CaseResult  # noqa: E402
from ragmeter.run.calibrate import calibrate_async  # noqa: E402
from ragmeter.stats.agreement import Measure, binary_measures, graded_measures  # noqa: E402
from ragmeter.text import content_words  # noqa: E402
from ragmeter.vocabulary import MetricName  # noqa: E402

RESULTS = HERE.parent / "results" / "meta.json"
REFERENCE = HERE.parents[1] / "src/ragmeter/judges/local/weights/reference_agreement.json"
REFERENCE_SET = "mtrag"
REFERENCE_NAME = "MTRAG"


def overlap(part: str, whole: str, lang: str) -> float:
    """Share of `part`'s content words found in `whole` (1.0 when `part` has none)."""
    words = set(content_words(part, lang))  # type: ignore[arg-type]
    if not words:
        return 1.0
    return len(words & set(content_words(whole, lang))) / len(words)  # type: ignore[arg-type]


def baseline(case: LabelledCase, metric: str) -> float:
    lang = case.lang or "en"
    if metric == "faithfulness":
        return overlap(case.answer, "\n".join(case.contexts), lang)
    return overlap(case.question, case.answer, lang)


def measures(kind: str, scores: list[float], human: list[float], resamples: int) -> list[Measure]:
    if kind == "graded":
        return graded_measures(scores, human, resamples=resamples)
    return binary_measures(scores, human, resamples=resamples)


def fmt(m: Measure | None) -> tuple[str, str]:
    if m is None or m.value is None:
        return "—", ""
    ci = f"[{m.ci[0]:.2f}, {m.ci[1]:.2f}]" if m.ci else ""
    return f"{m.value:.3f}", ci


def build_judge(args: argparse.Namespace) -> Any:
    from ragmeter.api import build_judge as judge_from  # the door: calibrate_async takes its judge

    settings = JudgeSettings(
        kind=args.judge,
        model=args.model,
        base_url=args.base_url,
        concurrency=args.concurrency,
        threads=args.threads,
    )
    return judge_from(settings)


def load_set(name: str, data: Path, limit: int) -> list[LabelledCase]:
    path = DEFAULT_OUT / f"{name}.jsonl"
    if not path.exists():
        convert_all(data, DEFAULT_OUT, [name])
    rows = [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]
    return [LabelledCase.model_validate(r) for r in subsample(rows, limit)]


async def run_set(
    name: str, cases: list[LabelledCase], judge: Any, args: argparse.Namespace
) -> list[dict[str, Any]]:
    started = time.perf_counter()
    done: list[str] = []

    def progress(result: CaseResult) -> None:
        # one line a case on stderr: how far the run is, and why a metric went unscored
        done.append(result.id)
        verdicts = ", ".join(
            f"{metric} {r.score:.3f}"
            if r.score is not None
            else f"{metric} unscored ({r.unscored_reason})"
            for metric, r in result.metrics.items()
        )
        elapsed = time.perf_counter() - started
        print(
            f"… {name} {len(done)}/{len(cases)} at {elapsed:.0f} s: {result.id}: {verdicts}",
            file=sys.stderr,
            flush=True,
        )

    calibration = await calibrate_async(
        cases,
        judge,
        metrics=args.metrics,
        concurrency=args.concurrency,
        resamples=args.resamples,
        on_case=progress,
    )
    rows = []
    for metric, part in calibration.metrics.items():
        labelled = [c for c in cases if metric in c.labels]
        human = [c.labels[metric] for c in labelled]
        kind = label_kind(human)
        base = measures(kind, [baseline(c, metric) for c in labelled], human, args.resamples)
        extra: dict[str, Measure] = {}
        if name == "mtrag" and metric == "faithfulness":
            pairs = [
                (c.metadata["ragas_faithfulness"], c.labels[metric])
                for c in labelled
                if c.metadata.get("ragas_faithfulness") is not None
            ]
            ragas = measures(kind, [p[0] for p in pairs], [p[1] for p in pairs], args.resamples)
            extra = {m.name: m for m in ragas}
        base_by = {m.name: m for m in base}
        for m in part.measures:
            rows.append(
                {
                    "set": name,
                    "metric": metric,
                    "labels": kind,
                    "measure": m.name,
                    "value": m.value,
                    "ci": m.ci,
                    "n": m.n,
                    "unscored": part.n_unscored,
                    "overlap": base_by[m.name].value,
                    "overlap_ci": base_by[m.name].ci,
                    "ragas": extra[m.name].value if m.name in extra else None,
                }
            )
    return rows


def print_table(rows: list[dict[str, Any]]) -> None:
    head = (
        f"{'set':10s} {'metric':17s} {'measure':18s} {'judge':>6s} {'95% CI':>14s} "
        f"{'n':>4s} {'unsc':>4s} {'overlap':>7s} {'95% CI':>14s}"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        value, ci = fmt(Measure(name=r["measure"], value=r["value"], ci=r["ci"], n=r["n"]))
        ov, ov_ci = fmt(Measure(name="", value=r["overlap"], ci=r["overlap_ci"], n=r["n"]))
        line = (
            f"{r['set']:10s} {r['metric']:17s} {r['measure']:18s} {value:>6s} {ci:>14s} "
            f"{r['n']:>4d} {r['unscored']:>4d} {ov:>7s} {ov_ci:>14s}"
        )
        if r["ragas"] is not None:
            line += f"   RAGAS {r['ragas']:.3f}"
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--judge", default="local")
    parser.add_argument("--model", default=None)
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--limit", type=int, default=400, help="max cases per set (seed 0)")
    parser.add_argument("--resamples", type=int, default=500)
    parser.add_argument("--sets", nargs="*", default=list(CONVERTERS))
    parser.add_argument(
        "--metrics",
        nargs="*",
        default=None,
        choices=get_args(MetricName),
        help="judge only these metrics (default: every metric a set has labels for); "
        "cases with a label for none of them are left out",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="llama judge: server threads (default: idle cores)",
    )
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument(
        "--write-reference",
        action="store_true",
        help="write the local judge's published agreement (needs --judge local and mtrag)",
    )
    args = parser.parse_args()
    if args.write_reference and (args.judge != "local" or REFERENCE_SET not in args.sets):
        parser.error(f"--write-reference needs --judge local and the {REFERENCE_SET} set")

    judge = build_judge(args)
    all_rows: list[dict[str, Any]] = []
    timings = {}
    sizes = {}

    async def judge_sets() -> None:
        # One event loop for every set: an LLM judge's HTTP session belongs to the loop it
        # was opened on (a loop per set left every set after the first unscored).
        try:
            for name in args.sets:
                cases = load_set(name, args.data.resolve(), args.limit)
                if args.metrics:
                    cases = [c for c in cases if any(m in c.labels for m in args.metrics)]
                sizes[name] = len(cases)
                started = time.perf_counter()
                all_rows.extend(await run_set(name, cases, judge, args))
                timings[name] = round(time.perf_counter() - started, 1)
                print(f"… {name}: {len(cases)} cases in {timings[name]} s", file=sys.stderr)
        finally:
            await judge.aclose()

    asyncio.run(judge_sets())
    print_table(all_rows)
    fingerprint = judge.fingerprint()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps(
            {
                "judge": fingerprint.model_dump(),
                "judge_key": fingerprint.key(),
                "limit": args.limit,
                "seed": 0,
                "cases": sizes,
                "seconds": timings,
                "rows": all_rows,
            },
            indent=2,
            default=str,
        ),
        encoding="utf-8",
    )
    print(f"\nwritten to {args.out}")
    if args.write_reference:
        write_reference(fingerprint, all_rows, sizes, args.limit)
        print(f"reference agreement written to {REFERENCE}")


def write_reference(
    fingerprint: Any,
    rows: list[dict[str, Any]],
    sizes: dict[str, int],
    limit: int,
) -> None:
    """The local judge's headline agreement per metric on MTRAG, with every row beside it."""
    headline = []
    for r in rows:
        if r["set"] != REFERENCE_SET or r["measure"] not in ("Spearman", "AUROC"):
            continue
        headline.append(
            {
                "metric": r["metric"],
                "measure": r["measure"],
                "value": round(r["value"], 3),
                "ci": [round(v, 3) for v in r["ci"]],
                "n": r["n"],
                "labels_file": f"shared/data ({REFERENCE_NAME})",
                "reference": REFERENCE_NAME,
            }
        )
    spec = {
        "judge_key": fingerprint.key(),
        "judge": fingerprint.model_dump(),
        "script": "bench/meta/run.py --write-reference",
        "subsample": f"at most {limit} cases per set, seed 0",
        "cases": sizes,
        "note": "nothing in the local judge is fitted to these labels: every figure is "
        "out of sample",
        "headline": headline,
        "rows": rows,
    }
    REFERENCE.write_text(json.dumps(spec, indent=2, default=str) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
