"""Aligning a statement with its best evidence window in the retrieved contexts."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from ...text import Lang
from ...text.numbers import NumberMention, relation
from ..base import ClaimLabel, Span
from .antonyms import antonym_swap
from .features import (
    MISSING_SHOWN,
    coverage,
    missing_words,
    names,
    negated,
    numbers,
    passage_keys,
    sentences,
    statement_keys,
)
from .polarity import negation_bears_on, without_additive_not
from .search import WindowTable
from .settings import LocalSettings
from .vectors import Vectors
from .window import Window

_CLAUSE_RE = re.compile(r"[，,；;：:]|\s+(?:but|while|whereas|although)\s+")
# Lists glued without punctuation ("... trial court Whether this ...") split before a
# capitalised function word, not before a name ("open on Fridays").
_CONTEXT_CLAUSE_RE = re.compile(
    r"[，,；;：:\n]|\s+(?:but|while|whereas|although)\s+|(?<=[a-z)]) (?=(?:The|This|That|These|"
    r"Those|It|If|When|Whether|What|How|Why|Where|Who|Which|In|On|For|As|At|But|And|Or|We|You|"
    r"They|He|She|There|A|An)\b)"
)

_DURATIONS = frozenset({"second", "minute", "hour", "day", "week", "month", "year"})

if TYPE_CHECKING:
    import numpy as np


@dataclass
class Alignment:
    """The best window for a statement and the verdict drawn from it."""

    label: ClaimLabel
    reason: str
    window: Window | None = None
    lexical: float = 0.0
    similarity: float | None = None
    support: float = 0.0
    part: int | None = None
    """Which sentence of the window the verdict rests on (None: the whole window)."""
    hard: bool = False
    """Whether a rule decided the label (a conflicting number or negation, a number found
    nowhere), rather than the strength of the support."""

    @property
    def chunk(self) -> int | None:
        return self.window.chunk if self.window else None

    @property
    def span(self) -> Span | None:
        if self.window is None:
            return None
        if self.part is not None:
            start, end = self.window.part_spans[self.part]
            return Span(start=start, end=end)
        return Span(start=self.window.start, end=self.window.end)

    @property
    def evidence(self) -> str:
        if self.window is None:
            return ""
        return self.window.text if self.part is None else self.window.parts[self.part]


@dataclass
class ContextIndex:
    """Sentence windows of all chunks, with their features and (English) vectors."""

    contexts: list[str]
    lang: Lang
    vectors: Vectors = field(default_factory=lambda: Vectors({}))
    windows: list[Window] = field(default_factory=list)
    all_numbers: set[str] = field(default_factory=set)
    """Every value the contexts state, with what their dates imply (a date's year ...)."""
    dated: list[NumberMention] = field(default_factory=list)
    """Their dates, years and spans of years, which agree with more than their own value."""
    lowered: str = ""

    def __post_init__(self) -> None:
        for index, chunk in enumerate(self.contexts):
            spans = sentences(chunk, self.lang)
            for i, (start, end) in enumerate(spans):
                self._add(index, chunk, spans[i : i + 1], start, end)
                if i + 1 < len(spans):
                    self._add(index, chunk, spans[i : i + 2], start, spans[i + 1][1])
            for mention in numbers(chunk):
                self.all_numbers.update((mention.value, *mention.implied))
                if mention.years is not None or mention.date is not None:
                    self.dated.append(mention)
        self.lowered = "\n".join(self.contexts).lower()
        self.table = WindowTable(self.windows, self.lang)
        self._mentioned: dict[str, bool] = {}

    def _add(
        self, index: int, chunk: str, spans: tuple[tuple[int, int], ...], start: int, end: int
    ) -> None:
        text = chunk[start:end]
        parts = tuple(chunk[s:e] for s, e in spans)
        keys, nums = passage_keys(text, self.lang), numbers(text)
        self.windows.append(Window(index, start, end, text, parts, spans, keys, nums))

    def lexical(self, statement: str) -> np.ndarray:
        """Lexical support of `statement` by every window: the share of its key words and
        numbers the window contains."""
        return self.table.lexical(statement)

    @cached_property
    def all_keys(self) -> frozenset[str]:
        """What `passage_keys` finds in all the contexts together."""
        return passage_keys("\n".join(self.contexts), self.lang)

    def best_lexical(self, statement: str) -> float:
        """The highest lexical support of `statement` by any window (0 without windows)."""
        return self.table.best_lexical(statement)

    def candidates(self, statement: str, k: int) -> list[str]:
        """The `k` single sentences that lexically support `statement` best."""
        return [self.windows[i].text for i in self.table.candidates(statement, k)]

    def states(self, number: NumberMention) -> bool:
        """Whether the contexts state `number` or agree with it (the 1910s agree with 1914)."""
        if number.value in self.all_numbers:
            return True
        if number.years is None and number.date is None:
            return False
        return any(_agrees(number, m) for m in self.dated)

    def mentions(self, word: str) -> bool:
        """Whether the lowercased contexts contain `word` (lowercase), remembered per word."""
        found = self._mentioned.get(word)
        if found is None:
            found = self._mentioned[word] = word in self.lowered
        return found


def align(
    statement: str,
    index: ContextIndex,
    settings: LocalSettings,
    *,
    chunk: int | None = None,
) -> Alignment:
    """Find the window that best supports `statement` (optionally within one chunk) and label
    the statement supported, contradicted or not verifiable from it."""
    best = index.table.best(statement, index.vectors, settings, chunk)
    if best is None:
        return Alignment("not_verifiable", "there is no context to check it against")
    keys = statement_keys(statement, index.lang)
    nums = numbers(statement)
    lexical, sim = best.lexical, best.similarity
    window = index.windows[best.index]
    found = Alignment("supported", "", window, lexical, sim, min(1.0, settings.blend(lexical, sim)))
    key_cov = coverage(keys, window.keys)
    part_index = max(
        range(len(window.parts)),
        key=lambda k: coverage(keys, passage_keys(window.parts[k], index.lang)),
    )
    conflict = _number_conflict(keys, statement, nums, window, index, settings)
    if conflict is None and (
        reason := _polarity_conflict(statement, window.parts, index.lang, settings)
    ):
        conflict = reason, part_index
    if conflict is not None:
        found.label, found.reason = "contradicted", conflict[0]
        found.hard = True
        found.part = conflict[1] if len(window.parts) > 1 else None
        return found
    unknown = [n.value for n in nums if not index.states(n) and not _implicit(n)]
    if unknown:
        found.label = "not_verifiable"
        found.reason = f"the number {unknown[0]} appears nowhere in the contexts"
        found.hard = True
        return found
    elsewhere = [
        n.value
        for n in nums
        if not any(_supports(m, n) for m in window.numbers) and not _implicit(n)
    ]
    if elsewhere:
        found.label = "not_verifiable"
        found.reason = f"the number {elsewhere[0]} is not in the passage that matches it"
        return found
    missing = [n for n in names(statement) if not _named(n, index)]
    if missing:
        found.label = "not_verifiable"
        found.reason = f"'{missing[0]}' is never mentioned in the contexts"
        return found
    if found.support < settings.support_threshold:
        found.label = "not_verifiable"
        found.reason = f"the best passage covers only {key_cov:.0%} of its key words"
        if sim is not None:
            found.reason += f" (similarity {sim:.2f})"
        found.reason += _missing_note(statement, window, index)
        return found
    found.reason = f"the passage covers {key_cov:.0%} of its key words"
    if nums:
        found.reason += " and its numbers"
    if sim is not None and found.support < 1.0:
        found.reason += f" (similarity {sim:.2f})"
    found.reason += _missing_note(statement, window, index)
    return found


_DEMONYM_RE = re.compile(r"(?:ism|ians?|eans?|ans?|ese|ish)$")
_ROOT_MIN = 5
"""Letters a name's root must keep to be looked for ("Australian" -> austral, never "ital")."""


def _named(name: str, index: ContextIndex) -> bool:
    """Whether the contexts mention `name`, or the place or doctrine it is made from
    ("African" by Africa, "European" by Europe, "Epicureanism" by Epicurean)."""
    lower = name.lower()
    if index.mentions(lower):
        return True
    root = _DEMONYM_RE.sub("", lower)
    return root != lower and len(root) >= _ROOT_MIN and index.mentions(root)


def _missing_note(statement: str, window: Window, index: ContextIndex) -> str:
    """`; key words 'a', 'b' not found in any chunk` (and those only missing from the passage
    that matches it), or nothing when the passage holds every key word: what a support short
    of full rests on, recorded with the verdict so every report can say it."""
    if statement_keys(statement, index.lang) <= window.keys:  # nothing missing (the usual)
        return ""
    nowhere = missing_words(statement, index.lang, index.all_keys)
    elsewhere = [w for w in missing_words(statement, index.lang, window.keys) if w not in nowhere]
    parts = []
    if nowhere:
        parts.append(f"key words {_quoted(nowhere)} not found in any chunk")
    if elsewhere:
        parts.append(f"{_quoted(elsewhere)} not in this passage")
    return "; " + "; ".join(parts) if parts else ""


def _quoted(words: list[str]) -> str:
    shown = ", ".join(f"'{w}'" for w in words[:MISSING_SHOWN])
    return shown + (f" and {len(words) - MISSING_SHOWN} more" if len(words) > MISSING_SHOWN else "")


def _number_conflict(
    keys: frozenset[str],
    statement: str,
    nums: tuple[NumberMention, ...],
    window: Window,
    index: ContextIndex,
    settings: LocalSettings,
) -> tuple[str, int] | None:
    """A number of the statement replaced by another of the same kind in the sentence of the
    window that matches the clause holding the number (the reason, and that sentence)."""
    for n in nums:
        part_index = _number_part(statement, n, window, index.lang)
        part = window.parts[part_index]
        part_numbers = numbers(part)
        if any(_agrees(n, m) for m in part_numbers):
            swapped = _clause_swap(_clause_of(statement, n), n, part, index.lang)
            if swapped is not None:
                return swapped, part_index
            continue
        rivals = [m.value for m in part_numbers if relation(n, m) == "conflict"]
        if not rivals:
            continue
        overlap = coverage(keys, passage_keys(part, index.lang))  # keys hold no numbers
        needed = settings.conflict_overlap if not index.states(n) else 0.75
        if overlap >= needed:
            return f"it says {n.value} where the context says {rivals[0]}", part_index
    return None


def _clause_of(statement: str, number: NumberMention) -> str:
    """The clause of `statement` that holds `number`, with the clauses beside it that hold no
    number: "On the Pro plan, an attachment can be 250 MB" is one statement about 250, while in
    "the starter plan costs 25, the team plan 10" each clause is about its own number."""
    spans: list[tuple[int, int]] = []
    start = 0
    for piece in _CLAUSE_RE.split(statement):
        found = statement.find(piece, start)
        if found < 0:
            continue
        spans.append((found, found + len(piece)))
        start = found + len(piece)
    held = [i for i, (a, b) in enumerate(spans) if a <= number.start < b]
    if not held:
        return statement
    first = last = held[0]
    while first > 0 and not numbers(statement[slice(*spans[first - 1])]):
        first -= 1
    while last + 1 < len(spans) and not numbers(statement[slice(*spans[last + 1])]):
        last += 1
    return statement[spans[first][0] : spans[last][1]]


_SWAP_OVERLAP = 0.75
"""How much of a clause's key words the context clause must hold to be the one it restates."""


def _clause_swap(clause: str, number: NumberMention, part: str, lang: Lang) -> str | None:
    """Numbers moved between clauses ("the starter plan costs 25, the team plan 10" against
    "the starter plan costs 10, the team plan 25"): the sentence holds the number, but the
    context clause that restates `clause` holds another of its kind instead, and matches the
    clause better than the context clause holding the number does."""
    clauses = [c for c in _CONTEXT_CLAUSE_RE.split(part) if c.strip()]
    keys = statement_keys(clause, lang)  # no numbers among them
    if len(clauses) < 2 or not keys:
        return None
    scored = [
        (coverage(keys, found_keys), found_keys, numbers(c))
        for c in clauses
        for found_keys in [passage_keys(c, lang)]
    ]
    best, best_keys, best_numbers = max(scored, key=lambda item: item[0])
    if best < _SWAP_OVERLAP or any(_agrees(number, m) for m in best_numbers):
        return None
    rivals = [m.value for m in best_numbers if relation(number, m) == "conflict"]
    holders = [
        (cov, found_keys)
        for cov, found_keys, found in scored
        if any(_agrees(number, m) for m in found)
    ]
    # a true swap has the number in another clause; none holding it means the split cut it
    # ("July 5, 1984" read as "July 5" and "1984")
    if not rivals or not holders:
        return None
    holder, holder_keys = max(holders, key=lambda item: item[0])
    # the clause holding the number shares a word with the statement that the other clause
    # lacks ("250 MB on the Pro plan" for "On the Pro plan, ... 250 MB"): an enumeration of
    # values for different things, the number kept with the thing the statement names
    if holder >= best or (keys & holder_keys) - best_keys:
        return None
    return f"it says {number.value} where the context says {rivals[0]}"


def _number_part(statement: str, number: NumberMention, window: Window, lang: Lang) -> int:
    """Which sentence of the window the clause holding `number` matches best: in a
    two-sentence window each clause of the statement may rest on a different sentence."""
    if len(window.parts) == 1:
        return 0
    piece = _clause_of(statement, number)
    clause_keys = statement_keys(piece, lang)
    return max(
        range(len(window.parts)),
        key=lambda k: coverage(clause_keys, passage_keys(window.parts[k], lang)),
    )


def _implicit(number: NumberMention) -> bool:
    """One of a unit of time ("one month", "一个月"): contexts say it without a digit ("a
    month", "monthly", "每月"), so its absence there proves nothing."""
    return number.value == "1" and number.kind in _DURATIONS


def _agrees(claim: NumberMention, other: NumberMention) -> bool:
    """Whether `other` states `claim`'s number or agrees with it (March 14 with "March 14,
    2021"; the 1910s with 1914): no conflict, and maybe support."""
    return relation(claim, other) in ("same", "within", "consistent")


def _supports(other: NumberMention, claim: NumberMention) -> bool:
    """Whether `other` states all that `claim`'s number says (March 14, 2021 for "2021")."""
    return relation(claim, other) in ("same", "within")


def _polarity_conflict(
    statement: str, parts: tuple[str, ...], lang: Lang, settings: LocalSettings
) -> str | None:
    """A clause of the statement whose best-matching clause in any sentence of the window has
    the opposite polarity (one is negated, and the negation bears on a word the other states:
    `polarity`) or swaps one of its words for the opposite (`rose` for `fell`)."""
    clauses = [c for part in parts for c in _CONTEXT_CLAUSE_RE.split(part) if c.strip()]
    for piece in _CLAUSE_RE.split(statement):
        keys = statement_keys(piece, lang)
        if not keys:
            continue
        clause = max(clauses, key=lambda c: coverage(keys, passage_keys(c, lang)))
        if coverage(keys, passage_keys(clause, lang)) < settings.negation_overlap:
            continue
        # ... and the context clause must say the same thing, not just contain those words
        if coverage(statement_keys(clause, lang), passage_keys(piece, lang)) < 0.5:
            continue
        claim_neg = negated(without_additive_not(piece, lang), lang)
        context_neg = negated(without_additive_not(clause, lang), lang)
        if claim_neg != context_neg and (
            negation_bears_on(piece, clause, lang)
            if claim_neg
            else negation_bears_on(clause, piece, lang)
        ):
            if claim_neg:
                return "it is negated where the context is affirmative"
            return "it is affirmative where the context is negated"
        swap = antonym_swap(piece, clause, lang)
        if swap:
            return f"it says '{swap[0]}' where the context says the opposite, '{swap[1]}'"
    return None
