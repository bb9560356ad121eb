"""Input size limit: a case whose texts are too long to judge in reasonable time is unscored,
with a reason, instead of stalling the run.

The limit is in bytes of UTF-8 and applies to each of the question, the answer, the ground truth
and the retrieved contexts taken together (the judge reads them all). Bytes, not characters:
the local judge's time follows the bytes in both languages (a Chinese character is 3 bytes and
costs about three English letters). At the default, 2 MB, the lexical local judge takes about a
minute for a case with a 2 MB answer and 2 MB of contexts, English or Chinese, and about 30 s
for a 1 MB answer against a 2 MB context (`bench/text_split.py`; MiniLM embeddings, English
only, add the time to embed every claim). Set the environment variable
``RAGMETER_MAX_TEXT_BYTES`` (a positive whole number; `_` and `,` separators allowed) or pass
`limit`, which wins over the variable, to raise or lower it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

ENV_VAR = "RAGMETER_MAX_TEXT_BYTES"
DEFAULT_MAX_TEXT_BYTES = 2_000_000


def max_text_bytes(limit: int | None = None) -> int:
    """The limit in effect: `limit` when given, else ``RAGMETER_MAX_TEXT_BYTES``, else the
    default. Raises ValueError for a limit that is not a positive whole number."""
    if limit is None:
        raw = os.environ.get(ENV_VAR, "").strip().replace("_", "").replace(",", "")
        if not raw:
            return DEFAULT_MAX_TEXT_BYTES
        if not raw.isdigit():
            raise ValueError(f"{ENV_VAR} must be a whole number of bytes, not {raw!r}")
        limit = int(raw)
    if limit <= 0:
        raise ValueError(f"the text size limit must be positive, not {limit}")
    return limit


def text_bytes(text: str) -> int:
    """Size of `text` in UTF-8 (lone surrogates count as 3 bytes, as they would be written)."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


def oversize_reason(
    question: str = "",
    answer: str = "",
    ground_truth: str = "",
    contexts: Sequence[str] = (),
    *,
    limit: int | None = None,
) -> str | None:
    """Why a case is too long to judge (one clause per text over the limit), or None; e.g.
    "answer is 2.5 MB, above the 2 MB limit (set RAGMETER_MAX_TEXT_BYTES to raise it)"."""
    cap = max_text_bytes(limit)
    sizes = {
        "question is": text_bytes(question),
        "answer is": text_bytes(answer),
        "ground truth is": text_bytes(ground_truth),
        "contexts are": sum(text_bytes(c) for c in contexts),
    }
    over = [f"{what} {_size(n)}" for what, n in sizes.items() if n > cap]
    if not over:
        return None
    return f"{', '.join(over)}, above the {_size(cap)} limit (set {ENV_VAR} to raise it)"


def _size(n: int) -> str:
    """1,234 -> '1,234 bytes'; 2,500,000 -> '2.5 MB' (decimal megabytes)."""
    if n < 1_000_000:
        return f"{n:,} bytes"
    return f"{n / 1_000_000:.2f}".rstrip("0").rstrip(".") + " MB"
