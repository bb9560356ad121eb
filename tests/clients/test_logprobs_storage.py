"""Token log-probabilities as the cache stores them: what is read back is what was written,
in the layout written now and in the one caches written before it hold."""

from __future__ import annotations

import json

import pytest

from ragmeter.clients.logprobs import TokenLogprob, dumps, field_probabilities, loads

LABELS = {"supported": "supported", "contradicted": "contradicted"}
REPLY = '{"verdict": "supported"}'
TOKENS = [
    TokenLogprob('{"', -0.01, (('{"', -0.01), ("{", -4.6))),
    TokenLogprob("verdict", -0.001, (("verdict", -0.001),)),
    TokenLogprob('": "', -0.002, ()),
    TokenLogprob("supported", -0.22, (("supported", -0.22), ("contr", -1.6), ("不", -7.0))),
    TokenLogprob('"}', 0.0, (('"}', 0.0),)),
]


def legacy_layout(tokens: list[TokenLogprob]) -> str:
    """What caches written before the current layout hold: [token, logprob, top] each."""
    return json.dumps([(t.token, t.logprob, t.top) for t in tokens])


@pytest.mark.parametrize("layout", ["current", "legacy"])
def test_tokens_read_back_are_the_tokens_written(layout):
    text = dumps(TOKENS) if layout == "current" else legacy_layout(TOKENS)
    stored = loads(text)
    assert stored is not None
    assert len(stored) == len(TOKENS)
    assert list(stored) == TOKENS
    assert stored[-1] == TOKENS[-1] and list(stored[1:3]) == TOKENS[1:3]
    with pytest.raises(IndexError):
        stored[len(TOKENS)]


@pytest.mark.parametrize("layout", ["current", "legacy"])
def test_a_cached_verdict_reads_the_same_probability_as_the_reply_did(layout):
    text = dumps(TOKENS) if layout == "current" else legacy_layout(TOKENS)
    fresh = field_probabilities(REPLY, TOKENS, "verdict", LABELS)
    assert field_probabilities(REPLY, loads(text), "verdict", LABELS) == fresh
    assert fresh[0] is not None and fresh[0]["supported"] > 0.7


def test_no_tokens_stay_none():
    assert dumps(None) is None
    assert loads(None) is None and loads("") is None
