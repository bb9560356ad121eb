"""Lint an eval set: what it lacks (size, tricky cases) and what is wrong (duplicates, gaps)."""

from __future__ import annotations

import sys
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, Field

from .._util.plural import counted
from ..text import normalize
from ..text.near_duplicates import MAX_COMPARED, MAX_LOOKED_AT, NearGroups, near_groups
from ._case import KNOWN_CATEGORIES, Case, assigned_ids, case_lang

Severity = Literal["error", "warning", "info"]

MIN_CASES = 20
MAX_CASES = 500
NEAR_DUPLICATE_THRESHOLD = 0.85
_SHOWN_IDS = 10


class Finding(BaseModel):
    """One thing the linter noticed about the eval set."""

    severity: Severity
    """`error` (the set should not be used as is), `warning` (it measures less than it could)
    or `info`."""
    code: str
    """Stable identifier, e.g. `duplicate-question`."""
    message: str
    """What is wrong and how to fix it."""
    case_ids: list[str] = Field(default_factory=list)
    """The cases involved, if any."""


class LintReport(BaseModel):
    """Findings and a summary of an eval set."""

    source: str = ""
    """Where the cases came from (a file path), for display."""
    total: int
    """Number of cases."""
    by_category: dict[str, int]
    """Case count per category, largest first."""
    by_lang: dict[str, int]
    """Case count per language (given, or detected from the text)."""
    findings: list[Finding] = Field(default_factory=list)
    """Errors first, then warnings, then info."""

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "warning"]

    @property
    def exit_code(self) -> int:
        """1 when any finding is an error, else 0."""
        return 1 if self.errors else 0

    def headline(self) -> str:
        """One line: the source, case counts per category and language, and finding counts."""
        categories = ", ".join(f"{name} {count}" for name, count in self.by_category.items())
        langs = ", ".join(f"{name} {count}" for name, count in self.by_lang.items())
        counts = Counter(f.severity for f in self.findings)
        found = ", ".join(
            f"{counts[s]} {s}{'s' if counts[s] != 1 and s != 'info' else ''}"
            for s in ("error", "warning", "info")
            if counts[s]
        )
        prefix = f"{self.source}: " if self.source else ""
        detail = f" ({categories}; {langs})" if self.total else ""
        return f"{prefix}{counted(self.total, 'case')}{detail}: {found or 'no findings'}"


def lint_cases(cases: Iterable[Case], *, source: str = "") -> LintReport:
    """Check an eval set for size, coverage of tricky cases, duplicates and missing data.

    Reads `cases` once, keeping a few fields of each (a :class:`~ragmeter.cases.CaseFile`
    is never held whole), and takes time linear in their number."""
    seen = _Seen()
    for case in cases:
        seen.add(case)
    findings: list[Finding] = []
    findings += _size(seen.total)
    findings += _coverage(seen)
    findings += _duplicates(seen)
    findings += _missing(seen)
    findings += _informational(seen)
    order = {"error": 0, "warning": 1, "info": 2}
    findings.sort(key=lambda f: order[f.severity])
    return LintReport(
        source=source,
        total=seen.total,
        by_category=dict(seen.by_category.most_common()),
        by_lang=dict(seen.by_lang.most_common()),
        findings=findings,
    )


class _Same:
    """The cases asking one question (normalised) after the same earlier turns."""

    __slots__ = ("families", "ids")

    def __init__(self, case_id: str, family: str) -> None:
        self.ids = [case_id]
        self.families: str | set[str] = family

    def add(self, case_id: str, family: str) -> None:
        self.ids.append(case_id)
        if isinstance(self.families, str):
            if family == self.families:
                return
            self.families = {self.families}
        self.families.add(family)

    @property
    def family(self) -> str | None:
        """The one family of these cases, or None when they come from several."""
        return self.families if isinstance(self.families, str) else None


class _Seen:
    """What the checks need of each case, gathered in one pass."""

    def __init__(self) -> None:
        self.total = 0
        self.by_category: Counter[str] = Counter()
        self.by_lang: Counter[str] = Counter()
        self.categories: list[str] = []
        self.ids: list[str] = []
        self.any_history = False
        self.questions: dict[tuple[str, ...], dict[str, _Same]] = defaultdict(dict)
        self.empty_truth: list[str] = []
        self.lonely: list[str] = []
        self.variants: list[str] = []
        self.numbered: list[str] = []

    def add(self, case: Case) -> None:
        self.total += 1
        category = sys.intern(case.category)
        self.by_category[category] += 1
        self.by_lang[case_lang(case)] += 1
        self.categories.append(category)
        self.ids.append(case.id)
        self.any_history = self.any_history or bool(case.history)
        # Cases are only comparable when their earlier turns are the same.
        earlier = tuple(f"{t.role}:{_normalize(t.content)}" for t in case.history)
        question = _normalize(case.question)
        family = _family(case)
        same = self.questions[earlier].get(question)
        if same is None:
            self.questions[earlier][question] = _Same(case.id, family)
        else:
            same.add(case.id, family)
        if not case.ground_truth.strip():
            self.empty_truth.append(case.id)
        if case.category == "multi_turn" and not case.history:
            self.lonely.append(case.id)
        if family != case.id:
            self.variants.append(case.id)
        if assigned_ids([case]):
            self.numbered.append(case.id)


def _size(n: int) -> list[Finding]:
    if n < MIN_CASES:
        return [
            Finding(
                severity="warning",
                code="too-few-cases",
                message=f"only {counted(n, 'case')}; with fewer than {MIN_CASES} the confidence "
                "intervals are too wide to tell a real change from noise: aim for "
                f"{MIN_CASES}-{MAX_CASES}",
            )
        ]
    if n > MAX_CASES:
        return [
            Finding(
                severity="info",
                code="many-cases",
                message=f"{n} cases; more than {MAX_CASES} rarely narrows the intervals enough "
                "to pay for the extra judge calls: consider a stratified sample for routine runs",
            )
        ]
    return []


def _coverage(seen: _Seen) -> list[Finding]:
    categories = seen.by_category.keys()
    findings = []
    if "typo" not in categories:
        findings.append(
            Finding(
                severity="warning",
                code="no-typo-cases",
                message="no 'typo' cases: add questions with misspellings and abbreviations "
                "as users really type them, to see whether retrieval survives them",
            )
        )
    if "out_of_scope" not in categories:
        findings.append(
            Finding(
                severity="warning",
                code="no-out-of-scope-cases",
                message="no 'out_of_scope' cases: add questions your documents cannot answer, "
                "with a ground truth that abstains, to catch confident made-up answers",
            )
        )
    if "multi_turn" not in categories and not seen.any_history:
        findings.append(
            Finding(
                severity="warning",
                code="no-multi-turn-cases",
                message="no 'multi_turn' cases: add follow-up questions with a 'history' "
                "(e.g. 'and how much does it cost?') to test coreference",
            )
        )
    return findings


def _normalize(text: str) -> str:
    return normalize(unicodedata.normalize("NFKC", text).casefold())


def _duplicates(seen: _Seen) -> list[Finding]:
    findings = []
    bounded = 0
    for questions in seen.questions.values():
        for same in questions.values():
            if same.family is None:
                findings.append(
                    Finding(
                        severity="error",
                        code="duplicate-question",
                        message=f"cases {_ids(same.ids)} ask the same question; a duplicate "
                        "counts twice in every mean: remove or reword all but one",
                        case_ids=same.ids,
                    )
                )
        # One case per question (the first asking it) stands for the rest.
        texts = [text for text in questions if text]
        firsts = [questions[text] for text in texts]
        near = near_groups(texts, [same.family for same in firsts], NEAR_DUPLICATE_THRESHOLD)
        bounded += near.bounded
        for group in near.groups:
            findings.append(_near_duplicate([firsts[i].ids[0] for i in group], group, near))
    if bounded:
        findings.append(
            Finding(
                severity="info",
                code="near-duplicate-check-bounded",
                message="the near-duplicate check looks, for each question, at no more than "
                f"{MAX_LOOKED_AT} questions under each part of its 3-grams, nearest in length "
                f"first, and stops after {MAX_COMPARED} that are not near; "
                f"{counted(bounded, 'question')} reached a bound (many questions share most "
                "of their wording), so a near duplicate of them may be missing above",
            )
        )
    return findings


def _near_duplicate(ids: list[str], group: list[int], near: NearGroups) -> Finding:
    if len(ids) == 2:
        similarity = near.similarity[(group[0], group[1])]
        message = (
            f"cases {ids[0]} and {ids[1]} ask nearly the same question "
            f"(similarity {similarity:.2f}); keep both only if the difference matters"
        )
    else:
        message = (
            f"cases {_ids(ids)} ask nearly the same question (each at least "
            f"{NEAR_DUPLICATE_THRESHOLD:.2f} similar to another of them); keep them all only if "
            "the differences matter"
        )
    return Finding(
        severity="warning", code="near-duplicate-question", message=message, case_ids=ids
    )


def _family(case: Case) -> str:
    """The case a `ragmeter vary` variant was made from, else the case itself: a variant
    repeats (shuffled or distractor contexts) or nearly repeats (a typo) its origin's
    question by design, which is not a duplicate."""
    spec = case.metadata.get("vary")
    origin = spec.get("origin") if isinstance(spec, dict) else None
    return origin if isinstance(origin, str) and origin else case.id


def _missing(seen: _Seen) -> list[Finding]:
    findings = []
    empty = seen.empty_truth
    if empty:
        findings.append(
            Finding(
                severity="error",
                code="empty-ground-truth",
                message=f"{counted(len(empty), 'case')} {_have(empty)} no ground_truth "
                f"({_ids(empty)}); recall and the diagnosis need a reference answer: write what "
                "a correct answer says (for out-of-scope cases, the abstention)",
                case_ids=empty,
            )
        )
    lonely = seen.lonely
    if lonely:
        findings.append(
            Finding(
                severity="error",
                code="multi-turn-without-history",
                message=f"{counted(len(lonely), 'multi_turn case')} {_have(lonely)} no history "
                f"({_ids(lonely)}); add the earlier turns the question refers to, or change the "
                "category",
                case_ids=lonely,
            )
        )
    return findings


def _informational(seen: _Seen) -> list[Finding]:
    findings = []
    unknown = {c: n for c, n in seen.by_category.items() if c not in KNOWN_CATEGORIES}
    if unknown:
        names = ", ".join(f"'{name}' ({count})" for name, count in sorted(unknown.items()))
        findings.append(
            Finding(
                severity="info",
                code="unknown-category",
                message=f"custom categories {names}; they are reported like the built-in ones "
                f"({', '.join(KNOWN_CATEGORIES)}): check the spelling if not intended",
                case_ids=[
                    i for i, c in zip(seen.ids, seen.categories, strict=True) if c in unknown
                ],
            )
        )
    variants = seen.variants
    if variants:
        findings.append(
            Finding(
                severity="info",
                code="variants",
                message=f"{counted(len(variants), 'variant')} made by `ragmeter vary`: a "
                "variant's question repeats or nearly repeats its origin's by design (not a "
                "duplicate), and the set's means mix variants with the originals; "
                "`ragmeter vary check RUN` reads them",
                case_ids=variants,
            )
        )
    numbered = seen.numbered
    if numbered:
        findings.append(
            Finding(
                severity="info",
                code="assigned-ids",
                message=f"{counted(len(numbered), 'case')} had no id and "
                f"{'was numbered by its' if len(numbered) == 1 else 'were numbered by their'} "
                f"position ({_ids(numbered)}); add ids so results stay comparable when the file "
                "changes",
                case_ids=numbered,
            )
        )
    return findings


def _have(ids: list[str]) -> str:
    return "has" if len(ids) == 1 else "have"


def _ids(ids: list[str]) -> str:
    shown = ", ".join(ids[:_SHOWN_IDS])
    return shown + (f" and {len(ids) - _SHOWN_IDS} more" if len(ids) > _SHOWN_IDS else "")
