"""Run an exported verifier with onnxruntime + tokenizers, as ragmeter's runtime will.

Kept beside the training scripts until a verifier beats word overlap on shared/data and ships
inside the package (then this moves to `ragmeter.judges.local`). bench/verifier_local.py uses
it to measure an export inside the local judge. Needs ragmeter's `embeddings` extra
(onnxruntime, tokenizers), not torch.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

BOS, EOS, PAD = 0, 2, 1


def build_sequence(
    claim_ids: list[int], evidence_ids: list[int], claim_tokens: int, max_tokens: int
) -> list[int]:
    """`<s> claim </s></s> evidence </s>`: the claim first, cut to `claim_tokens`, the
    evidence to what fits in `max_tokens`. Training (data.encode_pair) and this runtime both
    build their sequences here, so the two cannot drift apart."""
    claim_ids = claim_ids[:claim_tokens]
    room = max_tokens - len(claim_ids) - 4
    return [BOS, *claim_ids, EOS, EOS, *evidence_ids[:room], EOS]


class Verifier:
    """Scores (claim, evidence) pairs; the sequence is built exactly as in training:
    `<s> claim </s></s> evidence </s>`, the claim cut to `claim_tokens`, the evidence to
    what fits in `max_tokens`."""

    def __init__(self, directory: Path) -> None:
        import numpy as np
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self._np = np
        self.meta: dict[str, Any] = json.loads((directory / "verifier.json").read_text("utf-8"))
        layout = self.meta["layout"]
        self.claim_tokens = int(layout["claim_tokens"])
        self.max_tokens = int(layout["max_tokens"])
        self.supported_index = int(layout["supported_index"])
        self.tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        options = ort.SessionOptions()
        # one process judges many cases at once: two threads per call is the sweet spot on
        # small machines and leaves the event loop responsive
        options.intra_op_num_threads = min(2, os.cpu_count() or 1)
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(
            str(directory / "verifier.onnx"), options, providers=["CPUExecutionProvider"]
        )

    @property
    def version(self) -> str:
        return str(self.meta["version"])

    def encode(self, claim: str, evidence: str) -> list[int]:
        return build_sequence(
            self.tokenizer.encode(claim).ids,
            self.tokenizer.encode(evidence).ids,
            self.claim_tokens,
            self.max_tokens,
        )

    def probabilities(self, pairs: Sequence[tuple[str, str]], batch: int = 32) -> list[float]:
        """P(supported) for each (claim, evidence) pair, batched by length."""
        np = self._np
        seqs = [self.encode(claim, evidence) for claim, evidence in pairs]
        order = sorted(range(len(seqs)), key=lambda i: len(seqs[i]))
        out = [0.0] * len(seqs)
        for start in range(0, len(order), batch):
            idx = order[start : start + batch]
            width = max(len(seqs[i]) for i in idx)
            ids = np.full((len(idx), width), PAD, dtype=np.int64)
            mask = np.zeros((len(idx), width), dtype=np.int64)
            for row, i in enumerate(idx):
                ids[row, : len(seqs[i])] = seqs[i]
                mask[row, : len(seqs[i])] = 1
            logits = self.session.run(None, {"input_ids": ids, "attention_mask": mask})[0]
            for row, i in enumerate(idx):
                z = logits[row]
                other = z[1 - self.supported_index]
                out[i] = 1.0 / (1.0 + math.exp(float(other - z[self.supported_index])))
        return out


def passage_around(
    chunk: str, start: int, end: int, spans: Sequence[tuple[int, int]], budget: int = 480
) -> str:
    """The window `chunk[start:end]` grown by whole neighbouring sentences (`spans`), one
    after and one before in turn, while it stays within `budget` characters: the verifier was
    trained on runs of sentences around the best match, not on single sentences."""
    inside = [i for i, (s, e) in enumerate(spans) if s < end and e > start]
    if not inside:
        return chunk[start:end]
    first, last = inside[0], inside[-1]
    lo, hi = spans[first][0], spans[last][1]
    grown = True
    while grown:
        grown = False
        if last + 1 < len(spans) and spans[last + 1][1] - lo <= budget:
            last += 1
            hi = spans[last][1]
            grown = True
        if first > 0 and hi - spans[first - 1][0] <= budget:
            first -= 1
            lo = spans[first][0]
            grown = True
    return chunk[lo:hi]
