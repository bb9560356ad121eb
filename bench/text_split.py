"""Long inputs: sentence splitting and the whole local judge at 100 KB, 1 MB and 2 MB.

    .venv/bin/python bench/text_split.py [--sizes 100000 1000000 2000000] [--runs 3]
                                         [--judge-runs 3] [--minilm]

Texts are built from the demo corpus (English or Chinese): its sentences in random order, each
with its numbers redrawn and one word swapped for another word of the corpus, so no two
sentences are alike (a repeated text would be served from caches), in paragraphs of 2-6
sentences. `split` times `text.split_sentences` on one text of the size. `judge` times
`LocalJudge.judge_sync` on all four metrics for a case whose answer and one context are both
of the size, and the issue's case: a 1 MB answer with a 2 MB context. The judge is lexical
unless `--minilm` (MiniLM embeddings for English: slower, it embeds every claim). Each figure
is the median of `--runs` (split) or `--judge-runs` (judge) runs, a fresh judge each time.
Prints a table and writes bench/results/text_split.json.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import time
from collections.abc import Callable
from typing import Any

from common import finish, print_table

from ragmeter.demo import demo_cases_path
from ragmeter.judges.base import Sample
from ragmeter.judges.local import LocalJudge
from ragmeter.text import Lang, split_sentences

QUESTIONS = {
    "en": ("How long do deleted notes stay in the trash?", "Deleted notes stay 30 days."),
    "zh": ("删除的笔记在回收站里保留多久？", "删除的笔记在回收站保留30天。"),
}
TARGET_SECONDS = 60.0
"""The issue's case (1 MB answer, 2 MB context) must be judged in well under a minute."""


def corpus_sentences(lang: Lang) -> list[str]:
    corpus = demo_cases_path().parent / "corpus" / lang
    texts = [p.read_text(encoding="utf-8") for p in sorted(corpus.glob("*.md"))]
    return [s for text in texts for s in split_sentences(text, lang) if len(s) > 20]


def varied_text(lang: Lang, size: int, seed: int) -> str:
    """About `size` bytes (UTF-8) of distinct sentences made from the demo corpus."""
    rng = random.Random(seed)
    sentences = corpus_sentences(lang)
    word = r"\b[a-z]{4,}\b" if lang == "en" else r"[\u4e00-\u9fff]{2}"
    vocabulary = sorted({w for s in sentences for w in re.findall(word, s)})
    paragraphs: list[str] = []
    total = 0
    while total < size:
        picked = [
            _vary(rng.choice(sentences), rng, word, vocabulary) for _ in range(rng.randint(2, 6))
        ]
        paragraph = (" " if lang == "en" else "").join(picked)
        paragraphs.append(paragraph)
        total += len(paragraph.encode()) + 2
    return "\n\n".join(paragraphs)


def _vary(sentence: str, rng: random.Random, word: str, vocabulary: list[str]) -> str:
    sentence = re.sub(r"\d+", lambda _: str(rng.randint(1, 999)), sentence)
    matches = list(re.finditer(word, sentence))
    if not matches:
        return sentence
    m = rng.choice(matches)
    return sentence[: m.start()] + rng.choice(vocabulary) + sentence[m.end() :]


def median_seconds(run: Callable[[], Any], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def judge_once(lang: Lang, answer: str, context: str, embedder: Any) -> dict[str, Any]:
    question, truth = QUESTIONS[lang]
    sample = Sample(
        case_id="long", lang=lang, question=question, ground_truth=truth, contexts=[context],
        answer=answer,
    )  # fmt: skip
    results = LocalJudge(embedder=embedder).judge_sync(sample)
    return {m: r.score if r.scored else r.unscored_reason for m, r in results.items()}


def clear_caches() -> None:
    """Empty the memoised text features (module-level caches that outlive a judge)."""
    from ragmeter import text
    from ragmeter.judges.local import antonyms, claims, features

    for module in (features, claims, antonyms, text):
        for value in vars(module).values():
            mine = getattr(value, "__module__", "") == module.__name__
            # loading jieba (text._jieba) is a one-off, not a cost of the input
            if mine and hasattr(value, "cache_clear") and value.__name__ != "_jieba":
                value.cache_clear()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000, 2_000_000])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--judge-runs", type=int, default=3)
    parser.add_argument("--minilm", action="store_true", help="Judge with MiniLM embeddings.")
    args = parser.parse_args()
    embedder = None
    if args.minilm:
        from ragmeter.judges.local.vectors import load_embedder

        embedder = load_embedder()
    judge_once("zh", "退款需要14天。", "退款需要14天。", embedder)  # loads jieba and the weights
    rows: list[dict[str, Any]] = []
    cases = [(lang, s, s) for s in args.sizes for lang in ("en", "zh")]
    cases += [("en", 1_000_000, 2_000_000), ("zh", 1_000_000, 2_000_000)]
    for lang in ("en", "zh"):
        for size in args.sizes:
            text = varied_text(lang, size, seed=1)
            seconds = median_seconds(lambda t=text, g=lang: split_sentences(t, g), args.runs)
            count = len(split_sentences(text, lang))
            rows.append({"what": "split", "lang": lang, "answer_bytes": size,
                         "context_bytes": 0, "sentences": count, "seconds": seconds})  # fmt: skip
            print(f"  split {lang} {size:,}: {seconds:.3f} s", flush=True)
    for lang, answer_size, context_size in cases:
        answer = varied_text(lang, answer_size, seed=1)
        context = varied_text(lang, context_size, seed=2)
        scores: dict[str, Any] = {}

        def run(a: str = answer, c: str = context, g: Lang = lang, out: dict = scores) -> None:
            clear_caches()  # each run starts cold, as a new input would
            out.update(judge_once(g, a, c, embedder))

        seconds = median_seconds(run, args.judge_runs)
        rows.append({"what": "judge", "lang": lang, "answer_bytes": answer_size,
                     "context_bytes": context_size, "seconds": seconds,
                     "scores": scores})  # fmt: skip
        print(f"  judge {lang} {answer_size:,} + {context_size:,}: {seconds:.1f} s", flush=True)
    mode = "lexical+MiniLM" if embedder is not None else "lexical"
    print(f"\nmedian seconds; judge: local ({mode}), all four metrics, one context\n")
    print_table(
        ["what", "lang", "answer", "context", "sentences", "seconds"],
        [
            [r["what"], r["lang"], _size(r["answer_bytes"]), _size(r["context_bytes"]),
             r.get("sentences", ""), round(r["seconds"], 3)]
            for r in rows
        ],
    )  # fmt: skip
    issue = [r for r in rows if r["what"] == "judge" and r["context_bytes"] == 2_000_000]
    targets = {
        f"1 MB answer + 2 MB context judged in < {TARGET_SECONDS:.0f} s ({r['lang']})": r["seconds"]
        < TARGET_SECONDS
        for r in issue
    }
    name = "text_split_minilm" if embedder is not None else "text_split"
    finish(name, targets, {"judge": mode, "runs": args.runs, "judge_runs": args.judge_runs,
                           "rows": rows})  # fmt: skip


def _size(n: int) -> str:
    if not n:
        return "-"
    return f"{n / 1_000_000:g} MB" if n >= 1_000_000 else f"{n / 1000:g} KB"


if __name__ == "__main__":
    main()
