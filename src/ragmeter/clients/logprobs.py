"""Verdict probabilities read from a reply's token log-probabilities, in the same call.

An OpenAI-compatible endpoint asked for ``logprobs`` with ``top_logprobs`` returns, per output
token, its log-probability and the most likely alternatives at that position. A JSON verdict
such as ``"verdict": "supported"`` or ``"useful": true`` is decided at the token where its value
starts; the alternatives there say how sure the model was. :func:`field_probabilities` finds
every occurrence of a field in the reply, in order, and turns the alternatives at its value into
a distribution over the field's labels. Nothing is guessed: a value whose position or
alternatives cannot be read gives None (the caller keeps the 0/1 verdict).
"""

from __future__ import annotations

import bisect
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any, overload

import orjson

from .jsonblock import decode_json

_VALUE_LEAD = ' \t\r\n"'


@dataclass(frozen=True)
class TokenLogprob:
    """One output token: its text, log-probability and the top alternatives at its position."""

    token: str
    logprob: float
    top: tuple[tuple[str, float], ...] = ()


def from_choice(choice: Any) -> list[TokenLogprob] | None:
    """The tokens of an OpenAI ``Choice`` (``choice.logprobs.content``), None when absent.

    `choice` is the decoded JSON object of the reply (as :class:`ChatClient` reads it) or an
    SDK ``Choice`` object."""
    if not isinstance(choice, dict):
        return _from_choice_object(choice)
    logprobs = choice.get("logprobs")
    content = logprobs.get("content") if isinstance(logprobs, dict) else None
    if not content:
        return None
    return [
        TokenLogprob(
            item["token"],
            float(item["logprob"]),
            tuple([(alt["token"], float(alt["logprob"])) for alt in item["top_logprobs"] or ()]),
        )
        for item in content
    ]


LOGPROB_SLACK = 1e-6
"""How far above 0 a log-probability may be and still be taken for a rounded 0."""


def impossible_value(tokens: Sequence[TokenLogprob]) -> float | None:
    """The first log-probability among `tokens` and their alternatives that no probability
    has (NaN, or above 0 by more than rounding), None when all can be. ``-inf`` can be: a
    probability of 0."""
    for token in tokens:
        if not token.logprob <= LOGPROB_SLACK:  # NaN compares false
            return token.logprob
        for _text, logprob in token.top:
            if not logprob <= LOGPROB_SLACK:
                return logprob
    return None


def mentions(tokens: Sequence[TokenLogprob], secret: str, dumped: str | None = None) -> bool:
    """Whether the text `tokens` spell, or an alternative's, contains `secret`; `dumped`, the
    :func:`dumps` text of `tokens` when at hand, answers for the alternatives at once (each is
    a JSON string there; a key needs no escaping)."""
    if secret in "".join(token_texts(tokens)):
        return True
    if dumped is not None:
        return secret in dumped
    return any(secret in text for token in tokens for text, _ in token.top)


def _from_choice_object(choice: Any) -> list[TokenLogprob] | None:
    content = getattr(getattr(choice, "logprobs", None), "content", None)
    if not content:
        return None
    tokens = []
    for item in content:
        top = tuple((alt.token, float(alt.logprob)) for alt in (item.top_logprobs or ()))
        tokens.append(TokenLogprob(item.token, float(item.logprob), top))
    return tokens


def dumps(tokens: Sequence[TokenLogprob] | None) -> str | None:
    """JSON text of `tokens` for the cache (None stays None).

    Every token's text and log-probability as plain lists, and each position's alternatives as
    a JSON text of its own: a reader then decodes the alternatives only where a verdict's value
    is read (a few of a reply's ~100 positions), which was most of what a cache hit cost."""
    if tokens is None:
        return None
    # orjson: a reply has ~100 positions, and the standard library's encoder, called once for
    # each, was a tenth of the client's time per call.
    encode = orjson.dumps
    texts = [t.token for t in tokens]
    values = [t.logprob for t in tokens]
    top = [encode(t.top) for t in tokens]
    text = encode({"texts": texts, "logprobs": values, "top": [t.decode() for t in top]})
    if b"null" in text:  # orjson writes an infinite log-probability (of -inf) as null
        return json.dumps(
            {"texts": texts, "logprobs": values, "top": [json.dumps(t.top) for t in tokens]}
        )
    return text.decode()


def loads(text: str | None) -> Sequence[TokenLogprob] | None:
    """Tokens from :func:`dumps` text, or from the list of ``[token, logprob, top]`` that
    caches written before it hold; decoded when first read (see :class:`StoredTokens`)."""
    if not text:
        return None
    return StoredTokens(text)


class StoredTokens(Sequence[TokenLogprob]):
    """The tokens of a cached reply, decoded from their JSON the first time they are read, and
    each token built only when it is looked at (its alternatives decoded then).

    Only the graded verdicts read the tokens (recall, precision, claim verdicts), and of those
    only the text of every token and the alternatives at a few values."""

    __slots__ = ("_built", "_logprobs", "_text", "_texts", "_top")

    def __init__(self, text: str) -> None:
        self._text = text
        self._texts: list[str] | None = None
        self._logprobs: list[float] = []
        self._top: list[Any] = []  # per position: its alternatives' JSON text, or the pairs
        self._built: dict[int, TokenLogprob] = {}

    def texts(self) -> list[str]:
        """Every token's text, without building the tokens."""
        if self._texts is None:
            data = decode_json(self._text)
            if isinstance(data, dict):
                self._texts, self._logprobs, self._top = (
                    data["texts"],
                    data["logprobs"],
                    data["top"],
                )
            else:  # the older layout: [token, logprob, [[alternative, logprob], ...]] each
                self._texts = [item[0] for item in data]
                self._logprobs = [item[1] for item in data]
                self._top = [item[2] for item in data]
        return self._texts

    def _token(self, index: int) -> TokenLogprob:
        token = self._built.get(index)
        if token is None:
            texts = self.texts()
            top = self._top[index]
            pairs = decode_json(top) if isinstance(top, str) else top
            token = TokenLogprob(
                texts[index], self._logprobs[index], tuple([(a, lp) for a, lp in pairs])
            )
            self._built[index] = token
        return token

    @overload
    def __getitem__(self, index: int) -> TokenLogprob: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[TokenLogprob]: ...

    def __getitem__(self, index: int | slice) -> TokenLogprob | Sequence[TokenLogprob]:
        if isinstance(index, slice):
            return [self._token(i) for i in range(len(self))[index]]
        return self._token(range(len(self))[index])  # a negative index, or IndexError

    def __len__(self) -> int:
        return len(self.texts())


def token_texts(tokens: Sequence[TokenLogprob]) -> list[str]:
    """The text of each of `tokens`."""
    if isinstance(tokens, StoredTokens):
        return tokens.texts()
    return [t.token for t in tokens]


def _label_of(token: str, labels: Mapping[str, str]) -> str | None:
    """The one label whose written form `token` begins (or that `token` begins), else None."""
    piece = token.lstrip(_VALUE_LEAD).lower()
    if not piece:
        return None
    found = [
        label
        for label, written in labels.items()
        if written.startswith(piece) or piece.startswith(written)
    ]
    return found[0] if len(found) == 1 else None


def distribution_at(token: TokenLogprob, labels: Mapping[str, str]) -> dict[str, float] | None:
    """P(label) from the alternatives at `token`'s position, normalised over the labels seen;
    None when no alternative names a label, or one has a log-probability no probability has
    (a reply cached before such values were refused)."""
    seen: dict[str, float] = {}
    for text, logprob in (*token.top, (token.token, token.logprob)):
        if not logprob <= LOGPROB_SLACK:  # NaN compares false
            return None
        if text in seen:
            continue
        seen[text] = logprob
    mass: dict[str, float] = {}
    for text, logprob in seen.items():
        label = _label_of(text, labels)
        if label is not None:
            mass[label] = mass.get(label, 0.0) + math.exp(logprob)
    total = sum(mass.values())
    if total <= 0:
        return None
    return {label: mass.get(label, 0.0) / total for label in labels}


def field_probabilities(
    text: str,
    tokens: Sequence[TokenLogprob] | None,
    field: str,
    labels: Mapping[str, str],
) -> list[dict[str, float] | None]:
    """For each occurrence of ``"field":`` in the reply `text`, in order, the distribution over
    `labels` (label → its written JSON form, e.g. ``{"supported": "supported"}`` or
    ``{True: "true"}`` keyed by name) at the token where the value starts.

    Returns one entry per occurrence (None where it cannot be read); an empty list when the
    tokens do not spell out `text` (a server that reports other text than it returned). Tokens
    that spell `text` inside more (llama.cpp returns the JSON of a reply the model wrapped in a
    Markdown code fence, while its tokens keep the fence) are read at `text`'s one place there.
    """
    if not tokens or not text:
        return []
    texts = token_texts(tokens)
    spelled = "".join(texts)
    if spelled.count(text) != 1:
        return []
    base = spelled.index(text)
    starts = list(accumulate(map(len, texts), initial=0))  # where each token begins
    out: list[dict[str, float] | None] = []
    for match in re.finditer(rf'"{re.escape(field)}"\s*:\s*"?', text):
        position = base + match.end()
        if position >= base + len(text):
            out.append(None)
            continue
        index = bisect.bisect_right(starts, position) - 1
        token = tokens[index]
        if token.token[position - starts[index] :].strip(_VALUE_LEAD) == "" and index + 1 < len(
            tokens
        ):
            token = tokens[index + 1]  # the value starts in the next token
        out.append(distribution_at(token, labels))
    return out


__all__ = [
    "StoredTokens",
    "TokenLogprob",
    "distribution_at",
    "dumps",
    "field_probabilities",
    "from_choice",
    "impossible_value",
    "loads",
    "mentions",
    "token_texts",
]
