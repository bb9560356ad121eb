"""Where the local judge's answer-relevancy scale comes from: e5 margins on the demo set.

    .venv/bin/python bench/relevancy_margin.py

The local judge reads answer relevancy with multilingual-e5-small: the cosine of the question
(e5 query) and the answer (e5 passage), minus the answer's mean cosine with fixed background
questions in its language (`ragmeter.judges.local.background`), is the answer's margin. The
margin is mapped onto [0, 1] between two fixed points taken from the demo set (the package's
own cases, not an evaluation set): the median margin of a question with another question's
reference answer (an answer about another subject of the same product) and the first
quartile of a question with its own reference. Per language, this prints those percentiles
and writes bench/results/relevancy_margin.json; the judge's constants
(`topicality.MARGIN_FLOOR`, `MARGIN_CEILING`) are these figures rounded, both languages
together.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from common import finish, print_table

from ragmeter.embeddings.e5 import load_e5_embedder
from ragmeter.judges.local.background import BACKGROUND
from ragmeter.judges.local.topicality import MARGIN_CEILING, MARGIN_FLOOR

EVALSET = Path(__file__).resolve().parents[1] / "src/ragmeter/demo/data/evalset.jsonl"


def margins(lang: str) -> tuple[np.ndarray, np.ndarray]:
    """Margins of each question with its own reference and with every other one's."""
    e5 = load_e5_embedder()
    rows = [json.loads(line) for line in EVALSET.read_text("utf-8").splitlines() if line]
    rows = [
        r
        for r in rows
        if r["lang"] == lang and r["category"] != "out_of_scope" and r["ground_truth"]
    ]
    questions = e5.embed_queries([r["question"] for r in rows])
    answers = e5.embed_passages([r["ground_truth"] for r in rows])
    baseline = (e5.embed_queries(list(BACKGROUND[lang])) @ answers.T).mean(axis=0)
    table = questions @ answers.T - baseline[None, :]
    own = np.diag(table)
    other = table[~np.eye(len(rows), dtype=bool)]
    return own, other


def main() -> None:
    out: dict[str, dict[str, float]] = {}
    table = []
    for lang in ("en", "zh"):
        own, other = margins(lang)
        out[lang] = {
            "pairs_own": len(own),
            "other_median": float(np.median(other)),
            "other_p90": float(np.percentile(other, 90)),
            "own_q1": float(np.percentile(own, 25)),
            "own_median": float(np.median(own)),
        }
        table.append([lang, len(own), *(round(v, 3) for v in list(out[lang].values())[1:])])
    print_table(
        ["lang", "questions", "other: median", "other: p90", "own: q1", "own: median"], table
    )
    print(f"judge: margin {MARGIN_FLOOR} -> 0, {MARGIN_CEILING} -> 1")
    floor = np.mean([v["other_median"] for v in out.values()])
    ceiling = np.mean([v["own_q1"] for v in out.values()])
    finish(
        "relevancy_margin",
        {
            "floor within 0.01 of the median margin of other questions' answers": bool(
                abs(floor - MARGIN_FLOOR) <= 0.01
            ),
            "ceiling within 0.01 of the first quartile of the questions' own answers": bool(
                abs(ceiling - MARGIN_CEILING) <= 0.01
            ),
        },
        {"margins": out, "floor": MARGIN_FLOOR, "ceiling": MARGIN_CEILING},
    )


if __name__ == "__main__":
    main()
