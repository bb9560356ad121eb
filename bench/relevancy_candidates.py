"""Answer-relevancy candidates for the local judge, against people, side by side.

    .venv/bin/python bench/relevancy_candidates.py [--sets alce mtrag expertqa] [--limit 400]

On the human-labelled sets of bench/meta (the same subsample as bench/meta/run.py: at most
--limit cases, seed 0), Spearman of each candidate with the people's relevancy proxy (ALCE
utility, MTRAG appropriateness, ExpertQA informativeness). Every candidate goes through the
local judge's own rules (empty answer 0, out of scope, refusal x0.2, evasion), so only the
similarity signal differs:

- `overlap`: share of the question's content words in the answer (bench/meta's baseline, raw);
- `key words`: the judge's key-word coverage (its relevancy before e5, without MiniLM);
- `minilm`, `use`, `e5 cosine`: question/answer cosine (MiniLM English-only, USE multilingual,
  e5 query/passage);
- `e5 margin`: the e5 cosine minus the answer's mean cosine with the background questions;
- `e5 smooth`: designs measured and not adopted (2026-12-06): the margin through a logistic
  that passes the judge's floor at 0.1 and its ceiling at 0.9 (no ties), with the need;
- `e5 claims`: the mean of the answer's topicality and its statements' mean topicality (each
  statement as an e5 passage, margin as the judge's), with the need;
- `judge`: the local judge as shipped (e5 margin and the question's need: duration, date,
  number, person, place, yes/no).

Nothing is fitted: these sets measure. Writes bench/results/relevancy_candidates.json.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from common import finish, print_table

sys.path.insert(0, str(Path(__file__).resolve().parent / "meta"))

from convert import DEFAULT_OUT, subsample
from run import baseline

from ragmeter.cases.labels import LabelledCase
from ragmeter.embeddings import load_local_embedder, load_use_embedder
from ragmeter.embeddings.e5 import load_e5_embedder
from ragmeter.judges.local import LocalJudge
from ragmeter.judges.local.needs import gives, question_need
from ragmeter.judges.local.relevancy import key_coverage
from ragmeter.judges.local.topicality import MARGIN_CEILING, MARGIN_FLOOR, meter_for
from ragmeter.judges.local.view import build_view
from ragmeter.judges.rules import precheck
from ragmeter.run import build_sample
from ragmeter.stats.agreement import graded_measures

METRIC = "answer_relevancy"


def _rescale(x: float, floor: float, ceiling: float) -> float:
    return min(1.0, max(0.0, (x - floor) / (ceiling - floor)))


def _smooth(margin: float) -> float:
    middle = (MARGIN_FLOOR + MARGIN_CEILING) / 2
    slope = math.log(9) / ((MARGIN_CEILING - MARGIN_FLOOR) / 2)
    return 1 / (1 + math.exp(-slope * (margin - middle)))


def _with_need(topic: float, question: str, answer: str, lang: str) -> float:
    """The judge's combination: the mean of topicality and whether the answer gives what
    the question asks for, when the question is of a kind that says."""
    need = question_need(question, lang)  # type: ignore[arg-type]
    given = None if need is None else gives(answer, need, lang, question)  # type: ignore[arg-type]
    return topic if given is None else (topic + float(given)) / 2


def _claims_topic(meter: Any, question: str, claims: list[str], lang: str) -> float | None:
    """Mean topicality of the answer's statements, each measured as the judge measures an
    answer (None for fewer than two)."""
    if len(claims) < 2:
        return None
    return sum(meter.measure(question, c, lang).score for c in claims) / len(claims)


def score_set(name: str, limit: int) -> dict[str, Any]:
    path = DEFAULT_OUT / f"{name}.jsonl"
    rows = [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]
    cases = [LabelledCase.model_validate(r) for r in subsample(rows, limit)]
    cases = [c for c in cases if METRIC in c.labels]
    judge = LocalJudge(workers=0)
    words = LocalJudge(embedder=None, workers=0)
    minilm, use, e5 = load_local_embedder(), load_use_embedder(), load_e5_embedder()
    meter = meter_for(e5)
    out: dict[str, list[float]] = {k: [] for k in CANDIDATES}
    human: list[float] = []
    for labelled in cases:
        case = labelled.to_case()
        sample = build_sample(case, case.contexts, case.answer, case.lang or "en")
        human.append(labelled.labels[METRIC])
        out["overlap"].append(baseline(labelled, METRIC))
        out["judge"].append(judge.judge_sync(sample, (METRIC,))[METRIC].score or 0.0)
        view = build_view(sample, (METRIC,), words.settings, words.store)
        roles = [s.role for s in view.segments]
        refused = "abstention" in roles and "claim" not in roles
        deflected = "claim" not in roles and "hedge" in roles
        early = precheck(sample, METRIC, refused=refused or deflected)
        statements = [r for r in roles if r in ("claim", "hedge", "abstention")]
        evasive = sum(r != "claim" for r in statements) / len(statements) if statements else 1.0

        def rules(base: float, early=early, refused=refused, evasive=evasive) -> float:
            if early is not None:
                return early.score or 0.0
            if refused:
                return 0.2 * base
            return base * (1 - 0.5 * evasive)

        question, answer = view.resolved_question, sample.answer
        out["key words"].append(rules(min(1.0, key_coverage(view).share / 0.75)))
        if early is not None:
            for k in ("minilm", "use", "e5 cosine", "e5 margin", "e5 smooth", "e5 claims"):
                out[k].append(early.score or 0.0)
            continue
        mq, ma = minilm.embed([question, answer]) if minilm else (None, None)
        uq, ua = use.embed([question, answer])
        topic = meter.measure(question, answer, sample.lang)
        out["minilm"].append(rules(_rescale(float(mq @ ma), 0.2, 0.7)) if minilm else 0.0)
        out["use"].append(rules(_rescale(float(uq @ ua), 0.2, 0.7)))
        out["e5 cosine"].append(rules(_rescale(topic.cosine, 0.75, 0.9)))
        out["e5 margin"].append(rules(topic.score))
        lang = sample.lang
        out["e5 smooth"].append(rules(_with_need(_smooth(topic.margin), question, answer, lang)))
        claims = [s.text for s in view.segments if s.role == "claim"]
        focus = _claims_topic(meter, question, claims, lang)
        both = topic.score if focus is None else (topic.score + focus) / 2
        out["e5 claims"].append(rules(_with_need(both, question, answer, lang)))
    result: dict[str, Any] = {"cases": len(human)}
    for key, scores in out.items():
        (spearman,) = [
            m for m in graded_measures(scores, human, resamples=500) if m.name == "Spearman"
        ]
        result[key] = {"spearman": spearman.value, "ci": spearman.ci}
    return result


CANDIDATES = (
    "overlap",
    "key words",
    "minilm",
    "use",
    "e5 cosine",
    "e5 margin",
    "e5 smooth",
    "e5 claims",
    "judge",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="*", default=["alce", "mtrag", "expertqa"])
    parser.add_argument("--limit", type=int, default=400)
    args = parser.parse_args()
    results = {name: score_set(name, args.limit) for name in args.sets}
    table = [
        [name, r["cases"], *(round(r[k]["spearman"], 3) for k in CANDIDATES)]
        for name, r in results.items()
    ]
    print_table(["set", "n", *CANDIDATES], table)
    alce = results.get("alce")
    finish(
        "relevancy_candidates",
        {"ALCE Spearman >= 0.45 (the target)": bool(alce and alce["judge"]["spearman"] >= 0.45)},
        {"limit": args.limit, "seed": 0, "sets": results},
    )


if __name__ == "__main__":
    main()
