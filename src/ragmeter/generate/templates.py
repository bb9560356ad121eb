"""Questions a person would ask, made from one sentence of a document by templates.

A template matches the sentence's grammar and moves its parts the way a question does; a
sentence no template fits is skipped with the reason, never forced into a question. English:

- how-to: ``To X, …`` / ``If you want to X, …`` → ``How do I X?``;
  ``You can use A to X`` → ``How can I X?``; ``You can/should X`` → ``Can/Should I X?``
- definition: ``S is a/an/the …`` → ``What is S?``
- amount: a number of a unit in an adjunct moved to the front
  (``S are kept in the trash for 30 days`` → ``For how many days are S kept in the trash?``),
  an object (``S has 240 employees`` → ``How many employees does S have?``), a price
  (``S costs $8 a month`` → ``How much does S cost a month?``), a year or version
  (``S was removed in version 22.0`` → ``In which version was S removed?``)
- what: ``S defaults to / returns / means …`` → ``What does S default to?``
- yes/no: the auxiliary or a ``do`` moved before the subject
  (``S supports X`` → ``Does S support X?``, ``S will retain X`` → ``Will S retain X?``)

Chinese (questions keep the statement's word order): how-to ``如需X，…`` → ``如何X？``; a
number asked in place (``保留 30 天`` → ``保留多少天？``); ``S是…`` → ``S是什么？``;
``S支持/可以/需要…`` → ``S支持…吗？``; ``你可以X`` → ``我可以X吗？``.

The question keeps the sentence's first clause only (a question does not go on with ``, which``
or ``(…)``), and is refused when it would hold code, a URL, a pronoun or a word such as
``this``/``above`` whose referent lies outside it, a first person (``we``), or more than
:data:`MAX_WORDS` words. A question records its subject and the pronoun that stands for it,
for follow-up questions.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from ..text import _jieba
from ..vocabulary import Lang

MAX_WORDS = 20
"""The longest English question kept, in words (Chinese: :data:`MAX_ZH_CHARS` characters)."""
MAX_ZH_CHARS = 40

SKIP_NO_TEMPLATE = "no question a person would ask fits the sentence"
SKIP_REFERS = "the question would point outside itself (this, it, above, we…)"
SKIP_CODE = "the question would hold code or a URL"
SKIP_LONG = "the question would be too long to read as a person's"


@dataclass(frozen=True)
class Question:
    """A question made from a sentence: its text, the template's kind, and its subject as the
    text writes it with the pronoun that can stand for it (empty when it has none)."""

    text: str
    kind: str
    subject: str = ""
    pronoun: str = ""


class Casing:
    """Whether a word keeps its capital letter inside a question: it does when the documents
    write it capitalised more often than not in the middle of a sentence (``Black``, ``HTTPX``),
    not when they write it in lower case (``Support``)."""

    def __init__(self, texts: Iterable[str] = ()) -> None:
        self.upper: Counter[str] = Counter()
        self.lower: Counter[str] = Counter()
        for text in texts:
            for found in _MID_SENTENCE_WORD.finditer(text):
                word = found.group(1)
                (self.upper if word[0].isupper() else self.lower)[word.casefold()] += 1

    def inside(self, phrase: str) -> str:
        """`phrase` (a sentence's opening words) as written inside a question."""
        first, _, rest = phrase.partition(" ")
        key = re.sub(r"'s$|[^\w-]", "", first).casefold()
        lower = first.lower()
        plain = first[1:] == lower[1:] and not any(char.isdigit() for char in first)
        if first[:1].isupper() and (
            lower in _EN_DETERMINERS or (plain and self.upper[key] <= self.lower[key])
        ):
            first = lower
        return f"{first} {rest}".strip()


_MID_SENTENCE_WORD = re.compile(r"(?<=[a-z,] )([A-Za-z][A-Za-z-]*)")

# --- English ----------------------------------------------------------------------------------

_EN_DETERMINERS = frozenset(
    [
        "the",
        "a",
        "an",
        "each",
        "every",
        "all",
        "some",
        "most",
        "many",
        "no",
        "any",
        "both",
        "either",
        "neither",
        "another",
    ]
)
_EN_BAD_SUBJECT_START = frozenset(
    re.findall(
        r"\w+",
        "if when while although though because since as after before unless once for in on at "
        "by with without from to of only also note then otherwise however so but and or "
        "here there this that these those it its they them their he she we our us i my you "
        "your what which who how why where there's it's such other both just even now today "
        "instead usually typically generally currently finally first second next last another "
        "same one many several",
    )
)
_EN_NOT_IN_SUBJECT = frozenset(
    re.findall(
        r"\w+",
        "that which who whom whose it they them you your we our us i me my if when where "
        "because while this these those is are was were be been has have had do does did "
        "time times second third former latter previous",
    )
)
_EN_BE = {"is": "sg", "are": "pl", "was": "sg", "were": "pl"}
_EN_MODALS = {
    "can": "Can",
    "cannot": "Can",
    "can't": "Can",
    "could": "Could",
    "will": "Will",
    "won't": "Will",
    "should": "Should",
    "shouldn't": "Should",
    "must": "Must",
    "may": "Can",
    "might": "Could",
    "would": "Would",
}
_EN_VERBS = sorted(
    set(
        re.findall(
            r"\w+",
            "support require provide accept allow include contain handle ignore remove add "
            "return format run send store keep create show display print mean need expect "
            "raise respect skip treat wrap split join work apply cost take enable disable "
            "convert generate produce preserve follow give delete get detect cache ensure exit "
            "fail refuse reject retry encrypt sync expire renew charge load save install parse "
            "emit replace rename move copy sort merge default recommend prefer lack verify "
            "validate reformat respond redirect resolve decode encode compress track collect "
            "notify remain belong depend let help understand know remember",
        )
    )
)


def _third_person(verb: str) -> str:
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


_EN_VERB_BASE = {_third_person(verb): verb for verb in _EN_VERBS}
_EN_WHAT_VERBS = {"default": "to", "return": "", "mean": "", "require": "", "expect": ""}
"""Verbs whose object the question asks for (``What does S return?``), with their particle."""

_EN_UNITS = frozenset(
    re.findall(
        r"\w+",
        "seconds minutes hours days weeks months years milliseconds ms bytes kb mb gb tb "
        "characters lines columns members users seats times attempts retries requests calls "
        "connections files pages items entries cases tokens workers threads processes levels "
        "steps spaces pixels employees people devices projects notes rows results questions "
        "cores chunks documents words digits percent",
    )
)
_EN_MEASURE = re.compile(
    r"(?:(?<=\s)|^)(?P<prep>(?:for|within|after|in|up to|at least|at most|about|every|over|"
    r"under|than|to|by|of)\s+)?(?P<num>\d[\d,]*(?:\.\d+)?)\s+(?P<unit>[a-z]+)\b"
)
_EN_MONEY = re.compile(r"(?:US)?[$€£]\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:million|billion|k))?")
_EN_WHEN = re.compile(
    r"\s(?P<prep>in|since|from|until|as of|starting with|starting in)\s+"
    r"(?P<what>version\s+v?\d+(?:\.\d+)*|v\d+(?:\.\d+)*|(?:19|20)\d{2})(?=$|[\s,;])"
)
_EN_CLAUSE_END = re.compile(
    r",|;|:|\s[-–—]\s|\s(?:which|so that|because|unless|whereas|while|although|but|e\.g\.|i\.e\.)\s"
    r"|\sand (?:is|are|was|were|has|have|can|will|must|should|does|do)\s"
)
_EN_PUNCTUATION_END = re.compile(r",|;|:|\s[-–—]\s")
_EN_REFERS = re.compile(
    r"\b(?:this|these|those|it|its|they|them|their|theirs|here|there|above|below|following|"
    r"such|former|latter|aforementioned|e\.g|i\.e|etc|we|our|ours|us|me|my|mine)\b",
    re.I,
)
_EN_CODE = re.compile(
    r"[{}<>=\\|`#@]|://|\bwww\.|\w\(|\)\w|\s--?\w|\w/\w|\.(?:py|toml|cfg|ini|json|yaml|yml|sh)\b"
    r"|\b\w+\.\w+\.\w+|\b[a-z]+_[a-z_]+\b|[A-Za-z]\.[A-Za-z]|\s\.(?:md|rst|txt|ipynb)\b"
)
_EN_NO_ANSWER = re.compile(
    r"^(?:then )?(?:see|refer|read|visit|check out)\b|\b(?:this|these|those|it|them|do so|"
    r"do that|that too)\b",
    re.I,
)
"""A how-to's instruction that sends the reader elsewhere instead of answering."""
_EN_PURPOSE_BAD = frozenset(
    [
        "be",
        "date",
        "sum",
        "summarize",
        "summarise",
        "conclude",
        "recap",
        "illustrate",
        "clarify",
        "wit",
        "begin",
        "start",
        "this",
        "that",
        "some",
        "a",
        "an",
        "the",
        "do",
    ]
)


def _trimmed(rest: str, subordinate: bool = True) -> str:
    """A clause's first part: up to a comma, semicolon, dash or (`subordinate`) a subordinate
    clause, with parentheses dropped."""
    rest = re.sub(r"\s*\([^()]*\)", "", rest)
    found = (_EN_CLAUSE_END if subordinate else _EN_PUNCTUATION_END).search(rest)
    return (rest[: found.start()] if found else rest).strip()


def _second_to_first_person(text: str) -> str | None:
    """`your` → `my`, `you` (an object) → `me`; None when the reader is the subject elsewhere."""
    text = re.sub(r"\byour\b", "my", text)
    text = re.sub(r"\byourself\b", "myself", text)
    text = re.sub(
        r"\b(let|lets|allow|allows|help|helps|enable|enables|for|to|with) you\b", r"\1 me", text
    )
    return None if re.search(r"\byou\b", text, re.I) else text


def _finish(text: str, kind: str, subject: str = "", pronoun: str = "") -> Question | str:
    text = " ".join(text.split())
    text = text[0].upper() + text[1:] + "?"
    if _EN_CODE.search(text):
        return SKIP_CODE
    if _EN_REFERS.search(text):
        return SKIP_REFERS
    if len(text.split()) > MAX_WORDS:
        return SKIP_LONG
    return Question(text, kind, subject, pronoun)


def _en_how_to(sentence: str) -> Question | str | None:
    found = re.match(
        r"(?:To|In order to|If you (?:want|need|wish|would like) to|"
        r"When you (?:want|need) to) ([a-z][^,;:]{3,90}), (.+)$",
        sentence,
    )
    if found:
        purpose = _second_to_first_person(re.sub(r"\s*\([^()]*\)", "", found.group(1)))
        main = found.group(2).split()[0]
        if (
            purpose is None
            or len(purpose.split()) < 2
            or purpose.split()[0] in _EN_PURPOSE_BAD
            or re.search(r"\b(?:is|are|was|were|[A-Z])\b", purpose)
            or _EN_NO_ANSWER.search(found.group(2))
            or not (
                (main.islower() and main not in _EN_DETERMINERS and main not in _EN_NOT_IN_SUBJECT)
                or main.lower() == "you"
            )
        ):
            return SKIP_NO_TEMPLATE
        return _finish(f"how do I {purpose}", "how-to")
    found = re.match(r"You can (?:use|run|call|pass|set|add) (.+?) to ([a-z].+)$", sentence)
    if found:
        purpose = _second_to_first_person(_trimmed(found.group(2), subordinate=False))
        if purpose is None:
            return SKIP_REFERS
        return _finish(f"how can I {purpose}", "how-to")
    found = re.match(
        r"You (can|may|should|must|need to|have to|don't need to|do not need to|"
        r"don't have to|do not have to) ([a-z].+)$",
        sentence,
    )
    if found:
        ask = {"can": "can I", "may": "can I", "should": "should I", "must": "do I have to"}.get(
            found.group(1), "do I need to"
        )
        rest = _second_to_first_person(_trimmed(found.group(2)))
        if rest is None:
            return SKIP_REFERS
        rest = re.sub(r"^(?:also|even|still|now|just|simply|then|always|optionally) ", "", rest)
        if len(rest.split()) < 3:
            return SKIP_NO_TEMPLATE
        return _finish(f"{ask} {rest}", "yes-no")
    return None


def _split_subject(words: list[str]) -> tuple[int, str] | None:
    """The index of the verb that ends the subject, and the subject's number (`sg`, `pl`):
    the first auxiliary, modal or form of "be", else the first verb in -s."""
    for i, word in enumerate(words[:8]):
        if i == 0:
            continue
        if words[i - 1].endswith((",", ";", ":")):
            return None
        low = word.lower()
        if low in _EN_BE:
            return i, _EN_BE[low]
        if low in ("has", "does", "doesn't"):
            return i, "sg"
        if low in ("have", "do", "don't"):
            return i, "pl"
        if low in _EN_MODALS:
            return i, "pl" if _looks_plural(words[i - 1]) else "sg"
        if low in _EN_VERB_BASE and word.islower() and _may_end_subject(words[i - 1]):
            break  # a verb in -s comes first: the auxiliary belongs to a later clause
    for i, word in enumerate(words[:8]):
        if i == 0:
            continue
        if words[i - 1].endswith((",", ";", ":")):
            return None
        low = word.lower()
        if low in _EN_VERB_BASE and word.islower() and _may_end_subject(words[i - 1]):
            return i, "sg"
    return None


def _may_end_subject(word: str) -> bool:
    """Whether a verb in -s can follow `word`: not after a plural noun (`code blocks`), but
    after a name (`Nimbus Notes supports`)."""
    return word[:1].isupper() or not _looks_plural(word)


def _looks_plural(word: str) -> bool:
    low = word.lower()
    return low.endswith("s") and not low.endswith(("ss", "us", "is", "ics")) and len(low) > 3


def _en_subject_question(sentence: str, casing: Casing) -> Question | str:
    words = sentence.split()
    split = _split_subject(words)
    if split is None:
        return SKIP_NO_TEMPLATE
    i, number = split
    subject_words = words[:i]
    if (
        subject_words[0].lower() in _EN_BAD_SUBJECT_START
        or not (subject_words[0][0].isupper() or subject_words[0][0].isdigit())
        or len(subject_words) > 6
        or any(word.lower().strip(",") in _EN_NOT_IN_SUBJECT for word in subject_words)
        or subject_words[0].lower().endswith("ly")
        or (len(subject_words) == 1 and subject_words[0].lower() in _EN_DETERMINERS)
        or subject_words[0].lower() in ("some", "many", "most", "several", "few", "certain")
    ):
        return SKIP_NO_TEMPLATE
    subject = casing.inside(" ".join(subject_words))
    pronoun = "they" if number == "pl" else "it"
    verb = words[i].lower()
    after = words[i + 1 :]
    negated = bool(after) and after[0].lower() == "not"
    if negated:
        after = after[1:]
    rest_full = " ".join(after)
    if not after:
        return SKIP_NO_TEMPLATE
    if verb in ("does", "do", "doesn't", "don't"):
        if not (verb.endswith("n't") or negated):
            return SKIP_NO_TEMPLATE
        aux = "does" if number == "sg" else "do"
        return _yes_no(aux, subject, rest_full, pronoun)
    if verb in _EN_BE:
        if after[0].lower().endswith("ing"):
            return SKIP_NO_TEMPLATE  # "is being", "are fixing": no question reads well
        if (
            not negated
            and number == "sg"
            and after[0].lower() in ("a", "an", "the")
            and len(after) >= 3
        ):
            return _finish(f"what {verb} {subject}", "definition", subject, pronoun)
        return _aux_question(verb, subject, rest_full, pronoun)
    if verb in _EN_MODALS:
        return _aux_question(_EN_MODALS[verb].lower(), subject, rest_full, pronoun)
    if verb in ("has", "have"):
        if after[0].lower() in ("been", "become", "got") or after[0].endswith("ed"):
            return _aux_question(verb, subject, rest_full, pronoun)
        base, aux = "have", ("does" if number == "sg" else "do")
    else:
        base, aux = _EN_VERB_BASE[verb], "does"
    return _do_question(aux, base, subject, rest_full, pronoun)


def _measure(rest: str) -> re.Match[str] | None:
    for found in _EN_MEASURE.finditer(rest):
        unit = found.group("unit")
        if unit in _EN_UNITS and found.group("num") != "1":
            return found
    return None


def _aux_question(aux: str, subject: str, rest: str, pronoun: str) -> Question | str:
    """A question that moves `aux` before the subject, asking for an amount, a year or a
    version when the clause names one, else yes or no."""
    when = _EN_WHEN.search(" " + rest)
    if when is not None:
        what = "which year" if when.group("what")[:2] in ("19", "20") else "which version"
        prep = when.group("prep")
        left = (" " + rest)[: when.start()] + (" " + rest)[when.end() :]
        return _finish(f"{prep} {what} {aux} {subject} {_trimmed(left)}", "when", subject, pronoun)
    measure = _measure(rest)
    if (
        measure is not None
        and measure.group("prep")
        and rest.split()[0].lower() not in ("to", "a", "an", "the")
        and not re.search(r"\b(?:that|which|who|where)\b", rest[: measure.start()])
    ):
        before = rest[: measure.start()].split()
        if not before or before[-1].lower() not in ("of", "to", "than", "with", "a", "the", "and"):
            prep = measure.group("prep").strip()
            left = rest[: measure.start()] + rest[measure.end() :]
            if prep == "every":
                head = rest[: measure.start()].rstrip()
                left = (
                    re.sub(r"\b(?:(?:at most|at least) )?once$", "", head) + (rest[measure.end() :])
                )
                return _finish(
                    f"how often {aux} {subject} {_trimmed(left)}", "amount", subject, pronoun
                )
            return _finish(
                f"{prep} how many {measure.group('unit')} {aux} {subject} {_trimmed(left)}",
                "amount",
                subject,
                pronoun,
            )
    return _yes_no(aux, subject, rest, pronoun)


def _yes_no(aux: str, subject: str, rest: str, pronoun: str) -> Question | str:
    if ":" in rest:
        return SKIP_NO_TEMPLATE  # what the colon introduces is what the sentence says
    trimmed = _second_to_first_person(_trimmed(rest))
    if trimmed is None:
        return SKIP_REFERS
    if len(trimmed.split()) < 2 or (
        re.search(r"\b(?:both|either|between)\b", trimmed)
        and not re.search(r"\b(?:and|or)\b", trimmed)
    ):
        return SKIP_NO_TEMPLATE
    return _finish(f"{aux} {subject} {trimmed}", "yes-no", subject, pronoun)


def _do_question(aux: str, base: str, subject: str, rest: str, pronoun: str) -> Question | str:
    money = _EN_MONEY.match(rest)
    if money is not None and base == "cost":
        left = _trimmed(rest[money.end() :])
        return _finish(f"how much {aux} {subject} cost {left}", "amount", subject, pronoun)
    measure = _measure(rest)
    if measure is not None and measure.start() == 0 and not measure.group("prep"):
        left = _trimmed(rest[measure.end() :])
        unit = measure.group("unit")
        return _finish(f"how many {unit} {aux} {subject} {base} {left}", "amount", subject, pronoun)
    if base in _EN_WHAT_VERBS and not (base == "require" and rest.startswith("that")):
        particle = _EN_WHAT_VERBS[base]
        if particle and not rest.startswith(particle + " "):
            return SKIP_NO_TEMPLATE
        return _finish(f"what {aux} {subject} {base} {particle}", "what", subject, pronoun)
    return _yes_no(f"{aux}", subject, f"{base} {rest}", pronoun)


def english_question(sentence: str, casing: Casing) -> Question | str:
    """The question `sentence` answers, or why none is made."""
    sentence = " ".join(sentence.split()).rstrip(".! ")
    made = _en_how_to(sentence)
    if made is not None:
        return made
    return _en_subject_question(sentence, casing)


# --- Chinese ----------------------------------------------------------------------------------

_ZH_HOW_TO = re.compile(
    r"^(?:如果(?:你|您)?(?:想|要|需要|希望)|如需|若要|若需|要想|想要|为了)"
    r"([^，,；。]{2,25}?)[，,]"
)
_ZH_YOU = re.compile(r"^(?:你|您)(可以|能|需要|必须|应该|应当|无需|不必)(.+)$")
_ZH_YES_NO_VERBS = {
    "支持": "支持",
    "不支持": "支持",
    "可以": "可以",
    "能": "能",
    "能够": "能",
    "不能": "能",
    "无法": "能",
    "会": "会",
    "不会": "会",
    "需要": "需要",
    "不需要": "需要",
    "允许": "允许",
    "不允许": "允许",
    "提供": "提供",
    "包含": "包含",
    "包括": "包括",
    "必须": "必须",
    "应该": "应该",
}
_ZH_PREDICATE_START = frozenset(
    re.findall(
        r"\S+",
        "是 在 会 可以 可 于 每 约 不 只 还 也 都 需要 支持 提供 有 没有 将 能 为 对 按 仅 "
        "最多 至少 包含 不会 不能 必须 通常 已 已经 能够 无法 允许 不允许 不支持 不需要 包括 应该",
    )
)
_ZH_BAD_SUBJECT_START = (
    "如果",
    "在",
    "当",
    "对于",
    "由于",
    "因为",
    "为了",
    "通过",
    "使用",
    "但",
    "而",
    "并",
    "也",
    "它",
    "这",
    "那",
    "该",
    "此",
    "其",
    "我",
    "你",
    "您",
    "他",
    "她",
    "所以",
    "因此",
    "另外",
    "此外",
    "同时",
    "然后",
    "如",
    "若",
    "请",
    "注意",
    "例如",
    "比如",
    "与",
    "和",
    "从",
    "把",
)
_ZH_REFERS = re.compile("[它这那该此其]|上述|以下|如下|下面|上面|我们")
_ZH_CODE = re.compile(r"[{}<>=\\|`#@]|://|www\.|\w\(|\w/\w|\w\.\w+\.\w")


def _zh_subject(sentence: str) -> tuple[str, str, str] | None:
    """The subject, the predicate's first word and the rest of a Chinese sentence (a space
    kept where the sentence has one between them, as after a Latin name), or None when the
    subject does not visibly end at a predicate word (jieba's cut)."""
    tokens = _jieba().lcut(sentence)
    for i, token in enumerate(tokens[:10]):
        if token in "，,；：:":
            return None
        if i and token.strip() in _ZH_PREDICATE_START:
            subject = "".join(tokens[:i]).strip()
            if not 2 <= len(subject) <= 15 or subject.startswith(_ZH_BAD_SUBJECT_START):
                return None
            gap = " " if "".join(tokens[:i])[-1:].isspace() else ""
            rest = "".join(tokens[i + 1 :]).rstrip()
            return subject + gap, token.strip(), rest
    return None


def _zh_finish(text: str, kind: str, subject: str = "") -> Question | str:
    text = " ".join(text.split()).rstrip("。！；，,？") + "？"
    if _ZH_CODE.search(text):
        return SKIP_CODE
    if _ZH_REFERS.search(text.replace(subject, "") if subject else text):
        return SKIP_REFERS
    if len(text) > MAX_ZH_CHARS:
        return SKIP_LONG
    return Question(text, kind, subject, "它" if subject else "")


def _zh_first_clause(text: str) -> str:
    text = re.sub(r"（[^（）]*）|\([^()]*\)", "", text)
    return re.split(r"[，,；;：:]", text, maxsplit=1)[0].rstrip()


def chinese_question(sentence: str, cloze: str | None) -> Question | str:
    """The question `sentence` answers (`cloze`: the sentence with its number asked for, when
    it has one), or why none is made."""
    sentence = sentence.strip().rstrip("。！；")
    found = _ZH_HOW_TO.match(sentence)
    if found:
        return _zh_finish(f"如何{found.group(1).strip()}", "how-to")
    found = _ZH_YOU.match(sentence)
    if found:
        rest = _zh_first_clause(found.group(2)).replace("你的", "我的").replace("您的", "我的")
        if re.search("[你您]", rest):
            return SKIP_REFERS
        verb = {"无需": "需要", "不必": "需要"}.get(found.group(1), found.group(1))
        return _zh_finish(f"我{verb}{rest}吗", "yes-no")
    parts = _zh_subject(sentence)
    subject = parts[0] if parts else ""
    if cloze is not None:
        clauses = re.split(r"(?<=[，,；;])", cloze)
        asked = next(i for i, clause in enumerate(clauses) if re.search("多少|哪", clause))
        while asked + 1 < len(clauses) and (
            re.search(r"(?:后|时|前|之后|以后|时候)[，,；;]$", clauses[asked])
            or (asked == 0 and re.match("如果|若|假如|一旦|当", clauses[0]))
        ):
            asked += 1  # a clause of time or condition goes on into the next
        cloze = "".join(clauses[: asked + 1])
        if not re.search(r"[\d：:]", cloze):
            named = subject.strip() if cloze.startswith(subject.strip()) else ""
            return _zh_finish(cloze, "amount", named)
        parts = None  # another number beside the one asked for: no cloze, no other question
    if parts is None:
        return SKIP_NO_TEMPLATE
    subject, verb, rest = parts
    if verb == "是" and len(rest) >= 4 and not rest.endswith("的") and "，" not in rest:
        return _zh_finish(f"{subject}是什么", "definition", subject.strip())
    if verb in _ZH_YES_NO_VERBS:
        rest = _zh_first_clause(rest)
        if len(rest.strip()) < 2:
            return SKIP_NO_TEMPLATE
        space = " " if rest[-1:].isascii() and rest[-1:].isalnum() else ""
        text = f"{subject}{_ZH_YES_NO_VERBS[verb]}{rest}{space}吗"
        return _zh_finish(text, "yes-no", subject.strip())
    return SKIP_NO_TEMPLATE


def make_text_question(
    sentence: str, lang: Lang, casing: Casing, cloze: str | None = None
) -> Question | str:
    """The question `sentence` answers in `lang`, or why none is made (module docstring)."""
    if lang == "zh":
        return chinese_question(sentence, cloze)
    return english_question(sentence, casing)


def with_pronoun(question: Question) -> str | None:
    """`question` with its subject named by its pronoun (`Does it support …?`), or None."""
    if not question.subject or question.kind in ("definition", "how-to"):
        return None
    at = question.text.find(question.subject)
    if at < 0:
        return None
    pronoun = question.pronoun.capitalize() if at == 0 else question.pronoun
    after = question.text[at + len(question.subject) :]
    return question.text[:at] + pronoun + (after.lstrip() if pronoun == "它" else after)


__all__ = [
    "MAX_WORDS",
    "SKIP_CODE",
    "SKIP_LONG",
    "SKIP_NO_TEMPLATE",
    "SKIP_REFERS",
    "Casing",
    "Question",
    "chinese_question",
    "english_question",
    "make_text_question",
    "with_pronoun",
]
