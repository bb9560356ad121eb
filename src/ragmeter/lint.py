"""Lint an eval set: what it lacks (size, tricky cases) and what is wrong (duplicates, gaps)."""

from __future__ import annotations

import math
import unicodedata
from collections import Counter, defaultdict
from typing import Literal

from pydantic import BaseModel, Field

from .cases import KNOWN_CATEGORIES, Case, assigned_ids, case_lang
from .plural import counted

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


def lint_cases(cases: list[Case], *, source: str = "") -> LintReport:
    """Check an eval set for size, coverage of tricky cases, duplicates and missing data."""
    findings: list[Finding] = []
    findings += _size(cases)
    findings += _coverage(cases)
    findings += _duplicates(cases)
    findings += _missing(cases)
    findings += _informational(cases)
    order = {"error": 0, "warning": 1, "info": 2}
    findings.sort(key=lambda f: order[f.severity])
    by_category = Counter(c.category for c in cases)
    by_lang = Counter(case_lang(c) for c in cases)
    return LintReport(
        source=source,
        total=len(cases),
        by_category=dict(by_category.most_common()),
        by_lang=dict(by_lang.most_common()),
        findings=findings,
    )


def _size(cases: list[Case]) -> list[Finding]:
    n = len(cases)
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


def _coverage(cases: list[Case]) -> list[Finding]:
    categories = {c.category for c in cases}
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
    if "multi_turn" not in categories and not any(c.history for c in cases):
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
    from .text import normalize

    return normalize(unicodedata.normalize("NFKC", text).casefold())


def _duplicates(cases: list[Case]) -> list[Finding]:
    # Cases are only comparable when their earlier turns are the same.
    groups: dict[tuple[str, ...], list[Case]] = defaultdict(list)
    for case in cases:
        groups[tuple(f"{t.role}:{_normalize(t.content)}" for t in case.history)].append(case)
    findings = []
    for group in groups.values():
        exact: dict[str, list[str]] = defaultdict(list)
        families: dict[str, set[str]] = defaultdict(set)
        for case in group:
            exact[_normalize(case.question)].append(case.id)
            families[_normalize(case.question)].add(_family(case))
        for text, ids in exact.items():
            if len(families[text]) > 1:
                findings.append(
                    Finding(
                        severity="error",
                        code="duplicate-question",
                        message=f"cases {_ids(ids)} ask the same question; a duplicate counts "
                        "twice in every mean: remove or reword all but one",
                        case_ids=ids,
                    )
                )
        representatives = [(ids[0], text) for text, ids in exact.items() if text]
        family_of = {ids[0]: families[text] for text, ids in exact.items()}
        for (a, b), similarity in _near_pairs(representatives):
            if len(family_of[a] | family_of[b]) == 1:
                continue  # a variant and its origin (`ragmeter vary`): near by design
            findings.append(
                Finding(
                    severity="warning",
                    code="near-duplicate-question",
                    message=f"cases {a} and {b} ask nearly the same question "
                    f"(similarity {similarity:.2f}); keep both only if the difference matters",
                    case_ids=[a, b],
                )
            )
    return findings


def _family(case: Case) -> str:
    """The case a `ragmeter vary` variant was made from, else the case itself: a variant
    repeats (shuffled or distractor contexts) or nearly repeats (a typo) its origin's
    question by design, which is not a duplicate."""
    spec = case.metadata.get("vary")
    origin = spec.get("origin") if isinstance(spec, dict) else None
    return origin if isinstance(origin, str) and origin else case.id


def _grams(text: str, n: int = 3) -> set[str]:
    if len(text) <= n:
        return {text}
    return {text[i : i + n] for i in range(len(text) - n + 1)}


def _near_pairs(
    items: list[tuple[str, str]], threshold: float = NEAR_DUPLICATE_THRESHOLD
) -> list[tuple[tuple[str, str], float]]:
    """Pairs of (id, normalised text) whose character 3-gram Jaccard is at least `threshold`.

    Prefix filtering: two sets with Jaccard >= t share at least one of the rarest
    |A| - ceil(t*|A|) + 1 grams of each, so only pairs sharing a prefix gram are compared.
    """
    sets = [_grams(text) for _, text in items]
    frequency = Counter(g for s in sets for g in s)
    index: dict[str, list[int]] = defaultdict(list)
    pairs = []
    for i, grams in enumerate(sets):
        ordered = sorted(grams, key=lambda g: (frequency[g], g))
        prefix = ordered[: len(grams) - math.ceil(threshold * len(grams)) + 1]
        candidates = {j for g in prefix for j in index[g]}
        for j in sorted(candidates):
            other = sets[j]
            small, large = sorted((len(grams), len(other)))
            if small < threshold * large:
                continue
            shared = len(grams & other)
            similarity = shared / (len(grams) + len(other) - shared)
            if similarity >= threshold:
                pairs.append(((items[j][0], items[i][0]), similarity))
        for g in prefix:
            index[g].append(i)
    return pairs


def _missing(cases: list[Case]) -> list[Finding]:
    findings = []
    empty = [c.id for c in cases if not c.ground_truth.strip()]
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
    lonely = [c.id for c in cases if c.category == "multi_turn" and not c.history]
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


def _informational(cases: list[Case]) -> list[Finding]:
    findings = []
    unknown = Counter(c.category for c in cases if c.category not in KNOWN_CATEGORIES)
    if unknown:
        names = ", ".join(f"'{name}' ({count})" for name, count in sorted(unknown.items()))
        findings.append(
            Finding(
                severity="info",
                code="unknown-category",
                message=f"custom categories {names}; they are reported like the built-in ones "
                f"({', '.join(KNOWN_CATEGORIES)}): check the spelling if not intended",
                case_ids=[c.id for c in cases if c.category in unknown],
            )
        )
    variants = [c.id for c in cases if _family(c) != c.id]
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
    numbered = assigned_ids(cases)
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
