"""Training pairs for the verifier: sampling, evidence windows, encoding.

Pairs come from ../shared/data/train only (never an evaluation set). Two choices matter:
- **Overlap-balanced sampling.** On the raw NLI / fact-verification mix, how many of the
  claim's words the evidence contains predicts the label, and a briefly trained model learns
  that shortcut (../shared/MODELS.md: unfaithful answers that reuse the evidence's words scored
  0.8-0.97). So pairs are weighted so that, within each language and each tenth of word
  overlap, supported and unsupported pairs weigh the same: overlap alone ranks the sample at
  AUROC 0.5 and only meaning is left to learn.
- **Evidence windows.** Long premises (document-level pairs) are cut to the run of sentences
  that shares most words with the claim, as ragmeter's local judge aligns a claim with its
  best context window before asking the verifier.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from runtime import build_sequence

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "train"
LANG_WEIGHT = {"en": 0.6, "zh": 0.4}
GROUP_WEIGHT = {  # RAG-shaped pairs (claim vs retrieved evidence, documents) weigh more
    ("en", "nli"): 0.3,
    ("en", "factver"): 0.4,
    ("en", "doc"): 0.3,
    ("zh", "nli"): 0.4,
    ("zh", "doc"): 0.5,
    ("zh", "para"): 0.1,
}
BINS = 10
CLAIM_TOKENS = 64
MAX_TOKENS = 160  # <s> claim </s></s> evidence </s>

_WORD = re.compile(r"[a-z0-9]+")
_CJK = re.compile(r"[\u3400-\u9fff]")
_SENTENCE = re.compile(r"(?<=[.!?。！？；;])\s*|\n+")


@dataclass
class Pair:
    premise: str
    claim: str
    label: int
    lang: str
    group: str


def key_words(text: str) -> set[str]:
    """Lower-cased words of two or more characters and single CJK characters."""
    low = text.lower()
    return {w for w in _WORD.findall(low) if len(w) > 1} | set(_CJK.findall(text))


def overlap(claim: str, premise: str) -> float:
    words = key_words(claim)
    return len(words & key_words(premise)) / len(words) if words else 0.0


def load_pairs(data: Path = DATA) -> list[Pair]:
    pairs = []
    for name in ("en.jsonl", "zh.jsonl"):
        with (data / name).open(encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                pairs.append(
                    Pair(r["premise"], r["hypothesis"], int(r["label"]), r["lang"], r["group"])
                )
    return pairs


def natural_weights(pairs: list[Pair]) -> np.ndarray:
    """Per-pair probabilities with the language and group shares above and nothing else:
    within a group, pairs keep the label and overlap mix their sources have."""
    w = np.zeros(len(pairs))
    groups: dict[tuple[str, str], list[int]] = {}
    for i, p in enumerate(pairs):
        groups.setdefault((p.lang, p.group), []).append(i)
    for key, idx in groups.items():
        w[idx] = LANG_WEIGHT[key[0]] * GROUP_WEIGHT[key] / len(idx)
    return w / w.sum()


def mixed_weights(pairs: list[Pair], natural: float) -> np.ndarray:
    """`natural` of the probability mass drawn as the sources have it, the rest
    overlap-balanced: the balanced part teaches meaning where words are shared, the natural
    part that an answer sharing few of the evidence's words is seldom supported."""
    return (1.0 - natural) * sampling_weights(pairs) + natural * natural_weights(pairs)


def sampling_weights(pairs: list[Pair]) -> np.ndarray:
    """Per-pair probabilities: language and group shares as above; inside each language, the
    two labels weigh the same in every overlap decile (overlap carries no label signal)."""
    ov = np.array([overlap(p.claim, p.premise) for p in pairs])
    lang = np.array([p.lang for p in pairs])
    label = np.array([p.label for p in pairs])
    w = natural_weights(pairs)
    for lg in LANG_WEIGHT:
        in_lang = lang == lg
        edges = np.quantile(ov[in_lang], np.linspace(0, 1, BINS + 1)[1:-1])
        bins = np.digitize(ov, edges)
        for b in range(BINS):
            cell = in_lang & (bins == b)
            pos, neg = cell & (label == 1), cell & (label == 0)
            if not pos.any() or not neg.any():
                w[cell] = 0.0  # a decile with one label only would teach overlap again
                continue
            half = w[cell].sum() / 2
            w[pos] *= half / w[pos].sum()
            w[neg] *= half / w[neg].sum()
    return w / w.sum()


@dataclass
class Split:
    """Which pairs train the verifier and which two slices stay out of every phase."""

    held: np.ndarray
    """Held out, drawn overlap-balanced (seed 0)."""
    held_natural: np.ndarray
    """Held out, drawn as the sources have them (overlap predicts the label there)."""
    balanced_order: np.ndarray
    """The balanced phase's training order."""


def split(pairs: list[Pair], heldout: int, balanced_pairs: int, length: int) -> Split:
    """The held-out slices and the balanced order, reproducibly: anything fitted or measured
    on pairs the verifier never saw (the held-out log in train.py, the check in export.py)
    takes them from here."""
    weights = sampling_weights(pairs)
    rng = np.random.default_rng(0)
    held = rng.choice(len(pairs), size=heldout, replace=False, p=weights)
    weights[held] = 0.0
    weights /= weights.sum()
    order = rng.choice(len(pairs), size=length, replace=True, p=weights)
    natural = natural_weights(pairs)
    natural[held] = 0.0
    natural[order[:balanced_pairs]] = 0.0  # pairs the balanced phase already saw
    natural /= natural.sum()
    held_natural = np.random.default_rng([0, 1]).choice(
        len(pairs), size=heldout, replace=False, p=natural
    )
    return Split(held, held_natural, order)


def best_window(claim: str, premise: str, tokenizer, budget: int) -> list[int]:
    """Token ids of the run of premise sentences (within `budget` tokens) sharing the most
    key words with the claim; the premise's first `budget` tokens when it has one sentence."""
    ids = tokenizer.encode(premise).ids
    if len(ids) <= budget:
        return ids
    sentences = [s for s in _SENTENCE.split(premise) if s and s.strip()]
    if len(sentences) < 2:
        return ids[:budget]
    encoded = [tokenizer.encode(s).ids for s in sentences]
    words = key_words(claim)
    best, best_score = ids[:budget], -1.0
    for start in range(len(sentences)):
        window: list[int] = []
        text = []
        for j in range(start, len(sentences)):
            if window and len(window) + len(encoded[j]) > budget:
                break
            window += encoded[j]
            text.append(sentences[j])
        score = len(words & key_words(" ".join(text)))
        if score > best_score:
            best, best_score = window[:budget], score
    return best


def encode_pair(claim_ids: list[int], evidence_ids: list[int]) -> list[int]:
    """`<s> claim </s></s> evidence </s>` with this training's lengths (runtime.py builds it)."""
    return build_sequence(claim_ids, evidence_ids, CLAIM_TOKENS, MAX_TOKENS)


def encode(p: Pair, tokenizer) -> list[int]:
    claim = tokenizer.encode(p.claim).ids[:CLAIM_TOKENS]
    evidence = best_window(p.claim, p.premise, tokenizer, MAX_TOKENS - len(claim) - 4)
    return encode_pair(claim, evidence)


def batches(
    pairs: list[Pair], order: np.ndarray, tokenizer, size: int, rng: np.random.Generator
) -> Iterator[tuple[list[list[int]], list[int], int]]:
    """Batches of `size` from `order`, grouped by length 50 batches at a time; each batch
    comes with the position in `order` after its chunk (where a resumed run starts)."""
    chunk = size * 50
    for start in range(0, len(order), chunk):
        idx = order[start : start + chunk]
        seqs = [(encode(pairs[i], tokenizer), pairs[i].label) for i in idx]
        seqs.sort(key=lambda s: len(s[0]))
        groups = [seqs[i : i + size] for i in range(0, len(seqs), size)]
        for g in rng.permutation(len(groups)):
            yield [s[0] for s in groups[g]], [s[1] for s in groups[g]], start + len(idx)


def pad(seqs: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    width = max(len(s) for s in seqs)
    ids = np.ones((len(seqs), width), dtype=np.int64)  # <pad> = 1
    mask = np.zeros((len(seqs), width), dtype=np.int64)
    for i, s in enumerate(seqs):
        ids[i, : len(s)] = s
        mask[i, : len(s)] = 1
    return ids, mask
