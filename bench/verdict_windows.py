"""What checking a copied statement in its best window only changes, on labelled sets.

    python bench/verdict_windows.py --sets summedits mtrag --limit 60 --max-statements 12

The verifier checks a statement in its two best evidence windows, but in one only when a
window holds it nearly word for word (`verifier.VERBATIM_OVERLAP`). For each statement of
the sets' answers (bench/meta's cases, the same subsample, seed 0) that rule cuts to one
window, this asks the bundled 1.5B model about both windows (the call cache on; P calibrated
as the judge does) and counts how often the second window would have given the higher
P(supported), and by how much: whether the faithfulness scores move. Measuring only: nothing
is fitted. Writes bench/results/verdict_windows.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "meta"))

from common import machine, print_table, write_json  # noqa: E402
from convert import DEFAULT_OUT, subsample  # noqa: E402

from ragmeter.cases.labels import LabelledCase  # noqa: E402
from ragmeter.judges.base import Sample  # noqa: E402

NAME = "verdict_windows.json"


def affected(name: str, limit: int) -> list[tuple[Sample, str, list[int]]]:
    """(case, statement, its two best windows, best first) for every statement of the set's
    subsample that a window holds nearly word for word, where the case has two windows."""
    from ragmeter.judges.llm.verified_claims import statements
    from ragmeter.judges.llm.verifier import VERBATIM_OVERLAP, overlap, sample_windows

    rows = [json.loads(line) for line in (DEFAULT_OUT / f"{name}.jsonl").open(encoding="utf-8")]
    out = []
    for row in subsample(rows, limit):
        case = LabelledCase.model_validate(row)
        sample = Sample(
            case_id=case.id or "",
            question=case.question,
            history=case.history,
            contexts=case.contexts,
            answer=case.answer,
            ground_truth=case.ground_truth or "",
            lang=case.lang or "en",
        )
        windows = sample_windows(sample)
        if len(windows) < 2:
            continue
        for statement in statements(sample.answer, sample.question, sample.lang):
            scores = [overlap(statement, w.text, sample.lang) for w in windows]
            ranked = sorted(range(len(windows)), key=lambda i: (-scores[i], i))
            if scores[ranked[0]] >= VERBATIM_OVERLAP:
                out.append((sample, statement, ranked[:2]))
    return out


async def run(args: argparse.Namespace) -> None:
    from ragmeter.judges.llama import LlamaServer, resolve_model
    from ragmeter.judges.llama.judge import start_llama_judge
    from ragmeter.judges.llm.calibration import calibrate
    from ragmeter.judges.llm.context import Spend
    from ragmeter.judges.llm.verifier import (
        ask_in_groups,
        question_block,
        sample_windows,
        statement_messages,
    )

    judge = start_llama_judge(LlamaServer(resolve_model(None, None)))
    calibration = judge.config.calibration
    found: list[dict[str, Any]] = []
    try:
        for name in args.sets:
            todo = affected(name, args.limit)[: args.max_statements]
            for sample, statement, picked in todo:
                windows = sample_windows(sample)
                groups = [
                    [
                        statement_messages(
                            windows[w].text, question_block(sample), statement, sample.lang
                        )
                    ]
                    for w in picked
                ]
                replies = await ask_in_groups(
                    judge.context, sample, "faithfulness", groups, Spend()
                )
                best, second = (
                    calibrate(r[0][0], calibration) if r[0] and calibration else None
                    for r in replies
                )
                found.append(
                    {
                        "set": name,
                        "case": sample.case_id,
                        "statement": statement[:120],
                        "p_best": best,
                        "p_second": second,
                    }
                )
                print(f"… {found[-1]}", file=sys.stderr)
    finally:
        await judge.aclose()
    table = []
    for name in args.sets:
        got = [f for f in found if f["set"] == name and None not in (f["p_best"], f["p_second"])]
        higher = [f for f in got if f["p_second"] > f["p_best"]]
        crossed = [f for f in higher if (f["p_best"] >= 0.5) != (f["p_second"] >= 0.5)]
        table.append(
            [
                name,
                len(got),
                len(higher),
                max((f["p_second"] - f["p_best"] for f in higher), default=0.0),
                len(crossed),
                round(sum(f["p_best"] for f in got) / max(1, len(got)), 3),
            ]
        )
    print_table(
        [
            "set",
            "statements checked",
            "2nd window higher",
            "largest gain",
            "crossing 0.5",
            "mean P best window",
        ],
        table,
    )
    write_json(NAME, {"machine": {**machine(), "loadavg": os.getloadavg()}, "rows": found})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sets", nargs="+", default=["summedits", "mtrag"])
    parser.add_argument("--limit", type=int, default=60)
    parser.add_argument("--max-statements", type=int, default=12)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
