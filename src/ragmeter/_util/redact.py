"""Keep secrets out of every stored or printed string: keys, key-like tokens, URL passwords.

An endpoint may echo the API key in an error body, and a base URL may carry `user:pass@`; both
would otherwise reach results.json, reports, CI logs and the call cache.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

_KEY_LIKE = re.compile(r"\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{8,}")
_USERINFO = re.compile(r"(?<=://)[^/@\s]+@")
MASK = "***"


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with each of `secrets` (8 characters or more), anything shaped like an API key
    (`sk-…`) and the user-info part of URLs replaced by ``***``."""
    for secret in secrets:
        if secret and len(secret) >= 8:
            text = text.replace(secret, MASK)
    text = _KEY_LIKE.sub(MASK, text)
    return _USERINFO.sub(f"{MASK}@", text)


@functools.lru_cache(maxsize=64)
def redact_url(url: str) -> str:
    """:func:`redact` of an endpoint URL, remembered: every call's cache key, stored row and
    endpoint name carry the same few URLs."""
    return redact(url)


def looks_like_a_key(value: str) -> bool:
    """Whether `value` (given where a variable *name* belongs) looks like a key itself."""
    return bool(_KEY_LIKE.fullmatch(value)) or (
        len(value) >= 24 and not re.fullmatch(r"[A-Z][A-Z0-9_]*", value)
    )


__all__ = ["MASK", "looks_like_a_key", "redact", "redact_url"]
