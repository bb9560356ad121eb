"""Input size limit: a case whose texts are too long to judge in reasonable time is unscored,
with a reason, instead of stalling the run.

The limit is in characters and applies to each of the question, the answer, the ground truth
and the retrieved contexts taken together (the judge reads them all). The default, 2,000,000
characters, admits the issue's case (a 1 MB answer against a 2 MB context: about 30 s with the
lexical local judge) and keeps an English case at the limit (2M-character answer and contexts)
to about a minute (`bench/text_split.py`). The judge's time follows UTF-8 bytes, so Chinese
(3 bytes a character) costs about three times as much per character: about a minute at 700,000
characters, several minutes at the limit. MiniLM embeddings (English) add the time to embed
every claim. Raise or lower the limit with the environment variable
``RAGMETER_MAX_TEXT_CHARS`` (a positive whole number; `_` and `,` separators allowed) or the
`limit` argument, which wins over the variable.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

ENV_VAR = "RAGMETER_MAX_TEXT_CHARS"
DEFAULT_MAX_TEXT_CHARS = 2_000_000


def max_text_chars(limit: int | None = None) -> int:
    """The limit in effect: `limit` when given, else ``RAGMETER_MAX_TEXT_CHARS``, else the
    default. Raises ValueError for a limit that is not a positive whole number."""
    if limit is None:
        raw = os.environ.get(ENV_VAR, "").strip().replace("_", "").replace(",", "")
        if not raw:
            return DEFAULT_MAX_TEXT_CHARS
        if not raw.isdigit():
            raise ValueError(f"{ENV_VAR} must be a whole number of characters, not {raw!r}")
        limit = int(raw)
    if limit <= 0:
        raise ValueError(f"the text size limit must be positive, not {limit}")
    return limit


def oversize_reason(
    question: str = "",
    answer: str = "",
    ground_truth: str = "",
    contexts: Sequence[str] = (),
    *,
    limit: int | None = None,
) -> str | None:
    """Why a case is too long to judge (one clause per text over the limit), or None; e.g.
    "answer is 2.5M characters, above the 2M-character limit (set RAGMETER_MAX_TEXT_CHARS to
    raise it)"."""
    cap = max_text_chars(limit)
    sizes = {
        "question is": len(question),
        "answer is": len(answer),
        "ground truth is": len(ground_truth),
        "contexts are": sum(len(c) for c in contexts),
    }
    over = [f"{what} {_chars(n)} characters" for what, n in sizes.items() if n > cap]
    if not over:
        return None
    return f"{', '.join(over)}, above the {_chars(cap)}-character limit (set {ENV_VAR} to raise it)"


def _chars(n: int) -> str:
    """1,234 -> '1,234'; 1,500,000 -> '1.5M'."""
    if n < 1_000_000:
        return f"{n:,}"
    return f"{n / 1_000_000:.2f}".rstrip("0").rstrip(".") + "M"
