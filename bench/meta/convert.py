"""Convert the shared human-labelled sets into ragmeter's labelled-case JSONL format.

    python bench/meta/convert.py [--data ../shared/data] [--out bench/meta/out]

One file per set in --out (generated, not committed). Each line is a labelled case
(question, history, contexts, answer, ground_truth, lang, labels, label_meta, metadata); graded
human ratings are normalised to [0, 1]. See bench/meta/README.md for the mapping of each set.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parents[1] / ".." / "shared" / "data"
DEFAULT_OUT = HERE / "out"

Record = dict[str, Any]


def read_jsonl(path: Path) -> Iterator[Record]:
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def scale(value: float, low: float, high: float) -> float:
    """A rating on [low, high] mapped onto [0, 1], rounded to 4 places."""
    return round((value - low) / (high - low), 4)


def mtrag(data: Path) -> Iterator[Record]:
    """MTRAG human eval: one case per rated response; faithfulness and appropriateness
    (answer-relevancy proxy) medians of 2-3 raters on 1-4."""
    for task in read_jsonl(data / "mtrag_human_eval" / "mtrag_human_eval_by_task.jsonl"):
        turns = task["conversation"]
        history = [
            {"role": "user" if t["speaker"] == "user" else "assistant", "content": t["text"]}
            for t in turns[:-1]
        ]
        for response in task["responses"]:
            human = response["human"]
            labels = {}
            if "faithfulness" in human:
                labels["faithfulness"] = scale(human["faithfulness"]["median"], 1, 4)
            if "appropriateness" in human:
                labels["answer_relevancy"] = scale(human["appropriateness"]["median"], 1, 4)
            if not labels:
                continue
            yield {
                "id": f"{task['task_id']}::{response['model_id']}",
                "question": task["question"],
                "history": history,
                "contexts": [c["text"] for c in task["contexts"]],
                "answer": response["response"],
                "ground_truth": task.get("reference_answer") or "",
                "lang": "en",
                # the corpus cannot answer it: the right response abstains
                "category": "out_of_scope"
                if "UNANSWERABLE" in (task.get("answerability") or [])
                else "normal",
                "labels": labels,
                "label_meta": {
                    "scale": "1-4 median",
                    "raters": len(human.get("faithfulness", {}).get("per_annotator", [])),
                },
                "metadata": {
                    "set": "mtrag",
                    "model": response["model_id"],
                    "answerability": task.get("answerability"),
                    "ragas_faithfulness": (response.get("auto") or {}).get("rl_f"),
                },
            }


_INFORMATIVENESS = {
    "Very relevant": 1.0,
    "A bit relevant": 0.6667,
    "Not too important": 0.3333,
    "Uninformative": 0.0,
}


def expertqa(data: Path) -> Iterator[Record]:
    """ExpertQA: each claim judged by an expert against its cited evidence (Complete = 1);
    informativeness as a graded relevancy label of the claim to the question."""
    for row in read_jsonl(data / "expertqa" / "expertqa_claims_rand_test.jsonl"):
        labels: dict[str, float] = {"faithfulness": float(row["supported_binary"])}
        info = _INFORMATIVENESS.get(row.get("informativeness") or "")
        if info is not None:
            labels["answer_relevancy"] = info
        yield {
            "id": row["id"],
            "question": row["question"],
            "contexts": [e["text"] for e in row["evidence"]],
            "answer": row["claim"],
            "lang": "en",
            "labels": labels,
            "label_meta": {"support": row["support"], "informativeness": row["informativeness"]},
            "metadata": {"set": "expertqa", "system": row["system"], "field": row["field"]},
        }


def summedits(data: Path) -> Iterator[Record]:
    """SummEdits: is the (possibly edited) summary consistent with the document?"""
    for row in read_jsonl(data / "summedits" / "summedits_sample.jsonl"):
        yield {
            "id": row["id"],
            "question": "Summarize the document.",
            "contexts": [row["doc"]],
            "answer": row["summary"],
            "lang": "en",
            "labels": {"faithfulness": float(row["label_consistent"])},
            "label_meta": {"edit_types": row.get("edit_types") or []},
            "metadata": {"set": "summedits", "domain": row["domain"]},
        }


def begin(data: Path) -> Iterator[Record]:
    """BEGIN: is the dialogue response fully attributable to the knowledge snippet?"""
    for row in read_jsonl(data / "begin" / "begin_dev_wow_cmu_sample.jsonl"):
        yield {
            "id": row["id"],
            "question": row["message"],
            "contexts": [row["knowledge"]],
            "answer": row["response"],
            "lang": "en",
            "category": "generic" if row["begin_label"] == "Generic" else "normal",
            "labels": {"faithfulness": float(row["attributable_binary"])},
            "label_meta": {"begin_label": row["begin_label"]},
            "metadata": {"set": "begin", "source": row["data_source"], "model": row["model_name"]},
        }


_GLUED = re.compile(r"(?<=[a-z0-9)\]][.!?])(?=[A-Z])")


def halueval(data: Path) -> Iterator[Record]:
    """HaluEval QA: right vs ChatGPT-hallucinated answer given the same knowledge (labels are
    by construction, not by people). Knowledge paragraphs come glued ('century.First'):
    a space is put back between them."""
    for row in read_jsonl(data / "halueval" / "halueval_qa_first300_pairs.jsonl"):
        yield {
            "id": row["id"],
            "question": row["question"],
            "contexts": [_GLUED.sub(" ", row["knowledge"])],
            "answer": row["answer"],
            "lang": "en",
            "labels": {"faithfulness": float(1 - row["label_hallucinated"])},
            "label_meta": {"answer_type": row["answer_type"], "source": "construction"},
            "metadata": {"set": "halueval", "qid": row["qid"]},
        }


_URL_ONLY = re.compile(r"^(?:https?://\S+\s*)+$")


def halluqa(data: Path) -> Iterator[Record]:
    """HalluQA (zh): human-written correct (1) and wrong (0) answers against the evidence.
    About three questions in five give only a web address as evidence; there is no text to be
    faithful to, so those are left out."""
    for row in read_jsonl(data / "halluqa" / "halluqa.jsonl"):
        evidence = (row.get("source_evidence") or "").strip()
        if not evidence or _URL_ONLY.match(evidence):
            continue
        for kind, answers, value in (
            ("correct", row["correct_answers"], 1.0),
            ("wrong", row["wrong_answers"], 0.0),
        ):
            for i, answer in enumerate(answers):
                if not answer.strip():
                    continue
                yield {
                    "id": f"halluqa{row['question_id']}:{kind}{i}",
                    "question": row["question"],
                    "contexts": [evidence],
                    "answer": answer,
                    "lang": "zh",
                    "labels": {"faithfulness": value},
                    "label_meta": {"answer": kind},
                    "metadata": {"set": "halluqa", "category": row["category"]},
                }


_CITATION = re.compile(r"\s*\[\d+\]")


def alce(data: Path) -> Iterator[Record]:
    """ALCE: usefulness of a long-form answer to the question (1-5), an answer-relevancy
    proxy. No passages; citation markers [n] are dropped (their documents are absent)."""
    for row in read_jsonl(data / "alce_utility" / "alce_human_utility.jsonl"):
        yield {
            "id": row["id"],
            "question": row["question"],
            "contexts": [],
            "answer": _CITATION.sub("", row["answer"]).strip(),
            "lang": "en",
            "labels": {"answer_relevancy": scale(row["utility_score_1to5"], 1, 5)},
            "label_meta": {"scale": "1-5"},
            "metadata": {"set": "alce", "dataset": row["dataset"], "system": row["system"]},
        }


CONVERTERS: dict[str, Callable[[Path], Iterator[Record]]] = {
    "mtrag": mtrag,
    "expertqa": expertqa,
    "summedits": summedits,
    "begin": begin,
    "halueval": halueval,
    "halluqa": halluqa,
    "alce": alce,
}


def convert_all(data: Path, out: Path, names: list[str] | None = None) -> dict[str, Path]:
    """Write out/<set>.jsonl for each set; return the paths."""
    out.mkdir(parents=True, exist_ok=True)
    written = {}
    for name, converter in CONVERTERS.items():
        if names and name not in names:
            continue
        path = out / f"{name}.jsonl"
        rows = list(converter(data))
        with path.open("w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        written[name] = path
    return written


def subsample(rows: list[Record], limit: int, seed: int = 0) -> list[Record]:
    """At most `limit` rows, drawn with a fixed seed (all rows when fewer)."""
    if len(rows) <= limit:
        return rows
    picked = sorted(random.Random(seed).sample(range(len(rows)), limit))
    return [rows[i] for i in picked]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("sets", nargs="*", help=f"subset of: {', '.join(CONVERTERS)}")
    args = parser.parse_args()
    for name, path in convert_all(args.data.resolve(), args.out, args.sets).items():
        count = sum(1 for _ in path.open(encoding="utf-8"))
        print(f"{name:10s} {count:5d} cases → {path}")


if __name__ == "__main__":
    main()
