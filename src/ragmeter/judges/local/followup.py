"""Follow-up questions: whether a question leans on the conversation, and what it is about.

"How are they signed?" after "Does the app support webhooks?" asks about webhooks; "And is
there a discount for schools?" after talk of the Pro plan asks about the Pro plan. The topic
of the conversation is what the previous user turn and the assistant's reply to it share
(the words both repeat), or the previous user turn's words when the reply repeats none.
"""

from __future__ import annotations

import re

from ...text import Lang, stem
from ..base import Sample
from .features import passage_keys

_ANAPHOR_EN = re.compile(
    r"\b(?:it|its|they|them|their|theirs|this|that|these|those|one|ones|there|he|she|him|her)\b"
    r"|^\s*(?:and|also|so|then|but|or|what\s+about|how\s+about|same\s+for)\b",
    re.IGNORECASE,
)
_ANAPHOR_ZH = re.compile(
    r"它|他们|她们|其|该|此|这个|那个|这些|那些|这种|那种|^\s*(?:那|那么|还|另外|而且|也)"
)


def is_follow_up(question: str, lang: Lang) -> bool:
    """Whether `question` points back into the conversation (a pronoun, or an opening such as
    'And ...' / 那 ...)."""
    pattern = _ANAPHOR_ZH if lang == "zh" else _ANAPHOR_EN
    return bool(pattern.search(question))


def previous_exchange(sample: Sample) -> tuple[str, str]:
    """The last user turn of the history (other than the question itself) and the assistant
    reply that follows it ('' when absent)."""
    turns = sample.history
    for i in range(len(turns) - 1, -1, -1):
        turn = turns[i]
        if turn.role == "user" and turn.content.strip() != sample.question.strip():
            reply = next((t.content for t in turns[i + 1 :] if t.role == "assistant"), "")
            return turn.content, reply
    return "", ""


def topic_keys(user_keys: set[str], reply: str, lang: Lang) -> set[str]:
    """The key words of the previous user turn that the reply repeats, or all of them."""
    found = passage_keys(reply, lang)
    shared = {k for k in user_keys if stem(k) in found or (not k.isascii() and k in reply)}
    return shared or set(user_keys)
