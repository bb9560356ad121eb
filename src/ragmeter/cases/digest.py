"""One digest of an eval set's contents, so that runs of two eval sets that reuse case ids are
told apart (`gate`, `compare` and `merge` read it from `run.cases_digest`).

A case contributes its id, question, reference answer, earlier turns and reference contexts:
what the eval set says, not what the pipeline retrieved or answered (an eval set that carries
precomputed answers and contexts is the pipeline under test, and two of them are compared).
Category and metadata are left out: changing them does not change what a case asks. The
digest does not depend on the order of the cases, and a shard's run records the digest of
the whole eval set, so the shards of one run carry the same digest as the unsharded run.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import Protocol

from ..vocabulary import Turn

PREFIX = "sha256:"


class CaseText(Protocol):
    """What the digest reads of a case: an eval-set `Case` and a `CaseResult` both have it."""

    @property
    def id(self) -> str: ...

    @property
    def question(self) -> str: ...

    @property
    def ground_truth(self) -> str: ...

    @property
    def history(self) -> Sequence[Turn]: ...

    @property
    def reference_contexts(self) -> Sequence[str]: ...


def case_digest(case: CaseText) -> str:
    """The hex SHA-256 of one case's contents (question and reference stripped of outer
    whitespace, as the case-by-case check of `compare` reads them)."""
    content = [
        case.id,
        case.question.strip(),
        case.ground_truth.strip(),
        [[turn.role, turn.content] for turn in case.history],
        list(case.reference_contexts),
    ]
    text = json.dumps(content, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def combine(case_digests: Iterable[str]) -> str:
    """The eval set's digest from its cases' :func:`case_digest` values, in any order."""
    ordered = sorted(case_digests)
    whole = hashlib.sha256(f"{len(ordered)}\n{chr(10).join(ordered)}".encode("ascii"))
    return PREFIX + whole.hexdigest()


def eval_set_digest(cases: Iterable[CaseText]) -> str:
    """`sha256:<hex>` of every case's contents (see the module docstring)."""
    return combine(case_digest(case) for case in cases)


def short(digest: str) -> str:
    """The digest as messages show it: its first 12 hex digits."""
    return digest.removeprefix(PREFIX)[:12]


__all__ = ["CaseText", "case_digest", "combine", "eval_set_digest", "short"]
