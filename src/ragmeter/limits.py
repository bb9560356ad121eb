"""Input size limit: a case whose texts are too long to judge in reasonable time is unscored,
with a reason, instead of stalling the run.

The limit is in characters and applies to each of the question, the answer, the ground truth
and the retrieved contexts taken together (the judge reads them all). The default,
1,000,000 characters, keeps the local judge around a minute for a case at the limit
(`bench/text_split.py`: an English 1 MB answer against a 2 MB context takes about 30 s with the
lexical judge; Chinese costs about three times as much per character). Raise or lower it with
the environment variable ``RAGMETER_MAX_TEXT_CHARS`` (a positive whole number) or the `limit`
argument, which wins over the variable.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

ENV_VAR = "RAGMETER_MAX_TEXT_CHARS"
DEFAULT_MAX_TEXT_CHARS = 1_000_000


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
    "answer is 1.5M characters, above the 1M-character limit (set RAGMETER_MAX_TEXT_CHARS to
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
