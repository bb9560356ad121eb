"""Whether two model names are the same model family (a judge rating its own family's answers).

Names arrive in every provider's spelling: `gpt-4o-mini-2024-07-18`, `openai/gpt-4o-mini`,
`qwen2.5:7b`, `Qwen/Qwen2.5-7B-Instruct-GGUF`, `qwen2.5-7b-instruct-q4_k_m.gguf`. Sizes,
dates, quantisations, file extensions, tuning suffixes and Meta's vendor prefix are dropped;
what is left is the family, and one family that extends the other at a word boundary counts as
the same (`gpt-4o` and `gpt-4o-mini`; `qwen2.5` and `qwen2.5-coder`), since self-preference
follows the training lineage.
"""

from __future__ import annotations

import re

# Removed before splitting at '-' and '_', which they contain: 2024-07-18, q4_k_m, iq4_xs.
_JOINED = re.compile(
    r"\b(?:19|20)\d{2}-?[01]\d-?[0-3]\d\b|(?<![a-z0-9])i?[qf]\d+(?:_[a-z0-9]+)*(?![a-z0-9])"
)
_DROP = re.compile(
    r"""
    (?:\d{4})                               # short dates: 0613, 2407
    | (?:\d+x)?\d+(?:\.\d+)?[bmk]            # sizes: 7b, 1.5b, 8x7b, 125m
    | instruct|chat|it|latest|preview|gguf|hf|awq|gptq|base|meta
    """,
    re.VERBOSE,
)


def model_family(name: str) -> str:
    """The family part of a model name, lower-case, words joined by '-' ('' for a blank name)."""
    text = _JOINED.sub(" ", name.strip().lower().rsplit("/", 1)[-1].removesuffix(".gguf"))
    words = [w for w in re.split(r"[-_:\s]+", text) if w and not _DROP.fullmatch(w)]
    joined: list[str] = []
    for word in words:  # a version after a name belongs to it: llama-3.1 -> llama3.1
        if joined and joined[-1].isalpha() and word[0].isdigit():
            joined[-1] += word
        else:
            joined.append(word)
    return "-".join(joined)


def same_family(first: str, second: str) -> bool:
    """Whether `first` and `second` name the same model or one family extends the other."""
    a, b = model_family(first), model_family(second)
    if not a or not b:
        return False
    short, long = sorted((a, b), key=len)
    return long == short or long.startswith(short + "-")
