"""Answer relevancy: does the answer address the (history-resolved) question?"""

from __future__ import annotations

from dataclasses import dataclass

from ...text import Lang, char_ngrams, is_stopword, stem, tokenize
from ..base import Evidence, MetricName, MetricResult
from ..rules import precheck, refusal_relevancy
from .abstention import is_social_turn
from .features import passage_keys, word_similarity
from .followup import is_follow_up, previous_exchange, topic_keys
from .needs import gives, question_needs
from .view import SampleView

# Interrogative filler that an answer need not repeat ("how long" -> "14 days").
_QUESTION_WORDS = frozenset(
    """long much many often soon far way ways kind type sort tell know explain need want like
    possible able happen take takes 多久 多长时间 多少钱 什么样 怎么办 是否
    能否 哪个 哪种 告诉 知道 请问 一下 几次 几个 几天 多大 多长 哪些 哪里""".split()  # noqa: SIM905
)
_QA_FLOOR, _QA_CEILING = 0.2, 0.7
_OFF_SUBJECT_CAP = 0.3
"""Highest score of an answer that never mentions the topic a follow-up question is about."""


def question_keys(text: str, lang: Lang) -> set[str]:
    """Key words of a question, unstemmed: content words minus interrogative filler and
    single Chinese characters."""
    keys: set[str] = set()
    for token in tokenize(text, lang):
        if is_stopword(token) or token in _QUESTION_WORDS:
            continue
        if token.isascii() or len(token) > 1:
            keys.add(token)
    return keys


def _match(key: str, words: frozenset[str], stems: frozenset[str], typo: float) -> float:
    """How well the answer contains `key`: 1 for the word (or its stem), partial credit for a
    typo (English) or for the share of its character bigrams (Chinese)."""
    if key in words or stem(key) in stems:
        return 1.0
    if not key.isascii():
        grams = char_ngrams(key, 2)
        return len(grams & words) / len(grams)
    if len(key) < 4:
        return 0.0
    best = max((word_similarity(key, w) for w in words | stems if w.isascii()), default=0.0)
    return best if best >= typo else 0.0


@dataclass(frozen=True)
class Coverage:
    """How much of what the question asks about the answer mentions."""

    share: float
    """Weighted share of the question's key words in the answer; words of the conversation
    count only when the answer uses them (a follow-up answer need not repeat its topic)."""
    subject: tuple[str, ...] = ()
    """A follow-up's topic words (from the previous exchange) that the answer never mentions,
    when it mentions none of them."""


def key_coverage(view: SampleView) -> Coverage:
    """Weighted share of the question's key words in the answer, with the conversation's
    words as a bonus: a follow-up's topic words weigh fully, other earlier words less."""
    lang, settings = view.lang, view.settings
    words = passage_keys_raw(view.sample.answer, lang)
    stems = passage_keys(view.sample.answer, lang)
    typo = settings.typo_similarity
    own = question_keys(view.sample.question, lang)
    matched = sum(_match(k, words, stems, typo) for k in own)
    total = float(len(own))
    previous, reply = previous_exchange(view.sample)
    before = question_keys(previous, lang)
    earlier = before - own
    follow_up = bool(before) and is_follow_up(view.sample.question, lang)
    topic = topic_keys(before, reply, lang) if follow_up else set()
    for key in earlier:
        found = _match(key, words, stems, typo)
        weight = 1.0 if key in topic else settings.history_weight
        matched += weight * found
        total += weight * found
    if not total:
        return Coverage(1.0 if not own else 0.0)
    missing = (
        sorted(topic) if topic and not any(_match(k, words, stems, typo) for k in topic) else []
    )
    return Coverage(matched / total, tuple(missing))


def _dominant_word(view: SampleView) -> str | None:
    """The answer's most repeated key word (twice or more) when the conversation never uses
    it: what a follow-up answer is about if it is not the conversation's topic."""
    lang = view.lang
    said = " ".join([view.sample.question, *(t.content for t in view.sample.history)])
    known = passage_keys(said, lang) | passage_keys_raw(said, lang)
    counts: dict[str, int] = {}
    for token in tokenize(view.sample.answer, lang):
        key = stem(token.lower()) if token.isascii() else token
        if is_stopword(token) or (not token.isascii() and len(token) < 2) or key in known:
            continue
        counts[key] = counts.get(key, 0) + 1
    best = max(counts, key=lambda k: counts[k], default=None)
    return best if best is not None and counts[best] >= 2 else None


def passage_keys_raw(text: str, lang: Lang) -> frozenset[str]:
    """Unstemmed words of `text` plus, for Chinese, its character bigrams and characters."""
    words = set(tokenize(text, lang))
    if lang == "zh":
        words |= passage_keys(text, lang)
    return frozenset(words)


def score_answer_relevancy(view: SampleView) -> MetricResult:
    """Whether the answer addresses the question by meaning (e5 topicality and the question's
    need; key words when e5 is unavailable), minus a penalty for evasion; refusals score low
    unless the case is out of scope; a courteous reply to a social turn ("Thank you!") is
    fully relevant."""
    metric: MetricName = "answer_relevancy"
    roles = [s.role for s in view.segments]
    refused = "abstention" in roles and "claim" not in roles
    deflected = "claim" not in roles and "hedge" in roles
    # Declining an out-of-scope question (refusing or deflecting) is right: 1, answering 0.
    if (early := precheck(view.sample, metric, refused=refused or deflected)) is not None:
        return early
    if is_social_turn(view.sample.question) and "filler" in roles and "claim" not in roles:
        note = "a social turn (thanks, a greeting): a courteous reply is the relevant answer"
        return MetricResult(metric=metric, score=1.0, evidence=Evidence(notes=[note]))
    coverage = key_coverage(view)
    base, notes = _meaning(view) if view.topicality is not None else _words(view, coverage.share)
    if coverage.subject and (other := _dominant_word(view)) is not None:
        words = ", ".join(coverage.subject[:3])
        notes.append(f"the answer is about {other}, not {words} (the subject of the conversation)")
        base = min(base, _OFF_SUBJECT_CAP)
    if refused:
        score = view.settings.refusal_cap * base
        return refusal_relevancy(_clip(score), Evidence(notes=notes))
    statements = [r for r in roles if r in ("claim", "hedge", "abstention")]
    evasive = sum(r != "claim" for r in statements) / len(statements) if statements else 1.0
    if evasive:
        notes.append(f"the answer is evasive ({evasive:.0%} of its statements deflect)")
    score = base * (1 - view.settings.evasive_penalty * evasive)
    return MetricResult(
        metric=metric, score=_clip(score), evidence=Evidence(abstained=False, notes=notes)
    )


_NEED_WORDS = {
    "duration": "a duration",
    "date": "a date or time",
    "number": "a number",
    "person": "a person",
    "place": "a place",
    "yes_no": "a yes or no",
}


def _meaning(view: SampleView) -> tuple[float, list[str]]:
    """Topicality by e5 (see `topicality`), averaged in equal parts with whether the answer
    gives what the question asks for when the question is of a kind that says (`needs`; the
    share of them given when it asks for several)."""
    assert view.topicality is not None
    topic = view.topicality.score
    notes = [
        f"the answer is about the question: {topic:.0%} (e5 similarity "
        f"{view.topicality.cosine:.2f}, {view.topicality.margin:+.3f} above questions in general)"
    ]
    sample, lang = view.sample, view.lang
    verdicts = []
    for need in question_needs(sample.question, lang):
        given = gives(sample.answer, need, lang, sample.question)
        if given is not None:
            said = "gives" if given else "does not give"
            notes.append(f"the question asks for {_NEED_WORDS[need]}; the answer {said} one")
            verdicts.append(float(given))
    if not verdicts:
        return topic, notes
    return (topic + sum(verdicts) / len(verdicts)) / 2, notes


def _words(view: SampleView, share: float) -> tuple[float, list[str]]:
    """Without e5: key-word coverage (typo-tolerant), blended with MiniLM question/answer
    similarity in English."""
    lexical = min(1.0, share / view.settings.full_coverage)
    vectors = view.vectors
    cosine = vectors.cosine(vectors.get(view.resolved_question), vectors.get(view.sample.answer))
    notes = [f"the answer covers {share:.0%} of the question's key words"]
    if cosine is None:
        return lexical, notes
    closeness = min(1.0, max(0.0, (cosine - _QA_FLOOR) / (_QA_CEILING - _QA_FLOOR)))
    notes.append(f"question/answer similarity {cosine:.2f}")
    return 0.5 * lexical + 0.5 * closeness, notes


def _clip(value: float) -> float:
    return round(min(1.0, max(0.0, value)), 6)
