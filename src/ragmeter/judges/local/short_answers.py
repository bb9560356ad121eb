"""An answer too short to stand alone, read with its question.

"No." to "Is SSO included in the free plan?" states that SSO is not included in the free plan;
"30." to "How many days do refunds take?" that refunds take 30 days; 不能。 to "免费版能不能
导出？" that 免费版不能导出. Such an answer (a bare yes or no, or one fragment: a number, a
name, a phrase) makes one claim, shown as the question followed by the answer.

A yes or no asserts or denies the question itself: it is checked as the question's words with
the answer's polarity. A fragment asserts only itself, the question being its premise (a
question's names and numbers are not the answer's to prove): it is checked as the fragment,
a bare number with the question's unit ("how many days" + "30." -> 30 days, 多少天 -> 30天),
and read once more with the question, its numbers left out, for a contradiction ("Which plan
includes SSO? The free plan." against "SSO is not available on the free plan").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ...text import Lang, has_negation, split_sentences
from ...text.numbers import find_numbers
from .claims import Segment, is_clause, strip_reply

_WH_EN = re.compile(
    r"^\s*(?:how\s+(?:many|much|long|often|far|old|big|large|soon)|what|which|who|whom|whose|"
    r"where|when|why|how)\b\s*",
    re.IGNORECASE,
)
_AMOUNT_EN = re.compile(r"^\s*how\s+(?:many|much)\s+([A-Za-z]+)\b\s*", re.IGNORECASE)
_YES_NO_EN = re.compile(
    r"^\s*(?:is|are|was|were|am|do|does|did|can|could|will|would|shall|should|may|might|must|"
    r"has|have|had|isn't|aren't|wasn't|weren't|don't|doesn't|didn't|can't|won't)\b",
    re.IGNORECASE,
)
# 能不能 -> 能, 可不可以 -> 可以, 有没有 -> 有, 支不支持 -> 支持: the question asks, not negates
_A_NOT_A = re.compile(r"([\u4e00-\u9fff])[不没]\1")
_WHETHER_ZH = re.compile(r"是否|能否|可否")
_WH_ZH = re.compile(
    r"什么时候|多少|哪里|哪儿|哪个|哪些|哪一|什么|何时|为什么|怎么样|怎么|如何|几|谁|哪"
)
_TRAILING_ZH = re.compile(r"[吗么呢吧啊]?\s*[？?。！!]*\s*$")
_QUESTION_END = ("?", "？")
_COMPARING = re.compile(
    r"\b(?:both|same|all|each|every|either|neither|than)\b|都|同一|一样|相同|还是|更",
    re.IGNORECASE,
)
_AUXILIARIES_EN = frozenset(
    re.findall(
        r"\S+",
        "is are was were be been being am has have had do does did can could will would shall "
        "should may might must isn't aren't wasn't weren't don't doesn't didn't can't won't",
    )
)
_PRONOUNS_EN = frozenset(re.findall(r"\S+", "it they this that these those he she its their"))
_PRONOUNS_ZH = ("它", "这", "那", "他", "她")


@dataclass(frozen=True)
class QuestionClaim:
    """The claim a short answer makes: as shown in reports, and as checked."""

    shown: str
    checked: str
    guard: str | None = None
    """A fragment read with its question, checked for a contradiction only."""


def read_with_question(
    answer: str, question: str, segments: Sequence[Segment], lang: Lang
) -> QuestionClaim | None:
    """The claim `answer` makes about `question` when it cannot stand alone: a bare yes or no
    (the answer has no claim of its own) or a single fragment; None otherwise."""
    answer = answer.strip()
    asked = _asked(question, lang)
    if not answer or not asked:
        return None
    roles = [s.role for s in segments]
    if "abstention" in roles or "hedge" in roles:
        return None
    claims = [s.text for s in segments if s.role == "claim"]
    # "No.", "No, it is not.", 不是。, or a lowercase "no" without its full stop
    bare_reply = not claims and (
        strip_reply(answer, lang) != answer or not strip_reply(answer.rstrip(" .!") + ".", lang)
    )
    fragment = len(claims) == 1 and len(segments) == 1 and _is_fragment(claims[0], lang)
    if not (bare_reply or fragment) or not _is_question(asked, lang):
        return None
    if fragment and not _asks_what(asked, lang):
        return None  # a phrase after a yes-or-no question answers nothing it asks
    joiner = "" if lang == "zh" else " "
    shown = f"{asked}{joiner}{answer}"
    if bare_reply:
        return QuestionClaim(shown, _asserted(asked, answer, lang))
    premise = _without_numbers(asked)
    return QuestionClaim(shown, _alone(asked, answer, lang), _composed(premise, answer, lang))


def _asserted(asked: str, reply: str, lang: Lang) -> str:
    """A yes-or-no question as the statement the reply makes: its words, negated by a no
    (不是, 没有, 不能 become 不, whose own characters a passage need not hold)."""
    if _COMPARING.search(asked) and has_negation(reply, lang):
        # "No" to "Are both X and Y bands?" denies that both are, not that either is: a
        # passage calling X a band does not contradict it, so no polarity is checked
        return _composed_en(asked, "") if lang == "en" else _question_body_zh(asked)
    if lang == "en":
        return _composed_en(asked, reply)
    body = _question_body_zh(asked)
    return f"{body} 不" if has_negation(reply, "zh") else body


def _question_body_zh(asked: str) -> str:
    return _TRAILING_ZH.sub("", _WHETHER_ZH.sub("", _A_NOT_A.sub(r"\1", asked)))


def _composed(asked: str, answer: str, lang: Lang) -> str:
    return _composed_zh(asked, answer) if lang == "zh" else _composed_en(asked, answer)


def _without_numbers(text: str) -> str:
    for mention in reversed(find_numbers(text)):
        text = text[: mention.start] + " " + text[mention.end :]
    return text


def _alone(asked: str, answer: str, lang: Lang) -> str:
    """A fragment as checked: itself, a bare number with the unit the question asks in."""
    number = _bare_number(answer)
    if number is None:
        return answer
    if lang == "zh":
        wh = _WH_ZH.search(asked)
        unit = re.match(r"个?[\u4e00-\u9fff]", asked[wh.end() :]) if wh else None
        return f"{number}{unit.group()}" if unit else number
    amount = _AMOUNT_EN.match(asked)
    return f"{number} {amount.group(1)}" if amount else number


def _is_fragment(claim: str, lang: Lang) -> bool:
    """A phrase that says nothing without the question: not a clause, a few words without a
    verb of being or doing ("The Business plan."), or a short sentence about "it" ("It is
    free.", 它是免费的)."""
    if not is_clause(claim, lang):
        return True
    if lang == "zh":
        return len(claim) <= 12 and claim.startswith(_PRONOUNS_ZH)
    words = re.findall(r"[\w'’]+", claim.lower())
    if len(words) <= 4 and not _AUXILIARIES_EN & set(words):
        return True
    return len(words) <= 6 and words[0] in _PRONOUNS_EN


def _asked(question: str, lang: Lang) -> str:
    """The sentence of `question` that asks (its last question, else its last sentence)."""
    sentences = split_sentences(question.strip(), lang)
    if not sentences:
        return ""
    asking = [s for s in sentences if s.rstrip().endswith(_QUESTION_END)]
    return (asking or sentences)[-1].strip()


def _is_question(sentence: str, lang: Lang) -> bool:
    if sentence.rstrip().endswith(_QUESTION_END):
        return True
    if lang == "zh":
        return bool(_WH_ZH.search(sentence) or _WHETHER_ZH.search(sentence))
    return bool(_WH_EN.match(sentence) or _YES_NO_EN.match(sentence))


def _asks_what(sentence: str, lang: Lang) -> bool:
    """Whether the question asks for a thing (who, how many, 哪个), which a fragment names."""
    if lang == "zh":
        return bool(_WH_ZH.search(sentence))
    return bool(_WH_EN.match(sentence)) or (
        bool(re.search(r"\b(?:what|which|who|where|when|how)\b", sentence, re.IGNORECASE))
        and not _YES_NO_EN.match(sentence)
    )


def _bare_number(answer: str) -> str | None:
    """The number an answer is made of, when it is only a number without a unit ("30.")."""
    found = find_numbers(answer)  # "30." whole: not a list marker
    if len(found) != 1 or found[0].kind:
        return None
    rest = (answer[: found[0].start] + answer[found[0].end :]).strip(" .。!！")
    return None if rest else answer[found[0].start : found[0].end]


def _composed_en(asked: str, answer: str) -> str:
    body = asked.rstrip(" ?？")
    reply = answer.rstrip(" .!")
    number = _bare_number(answer)
    amount = _AMOUNT_EN.match(body)
    if amount and number is not None:
        return f"{body[amount.end() :]} {number} {amount.group(1)}"
    wh = _WH_EN.match(body)
    if wh:
        body = body[wh.end() :]
    return f"{body} {reply}"


def _composed_zh(asked: str, answer: str) -> str:
    body = _question_body_zh(asked)
    reply = answer.rstrip(" 。.!！")
    wh = _WH_ZH.search(body)
    if wh is None:
        return f"{body}{reply}"
    after = body[wh.end() :]
    if _bare_number(answer) is None and after[:1] and reply.endswith(after[:1]):
        after = after[1:]  # 多少天 answered 30天: the unit once
    return f"{body[: wh.start()]}{reply}{after}"
