"""Answers files in `ragmeter run`: run alone as the eval set, or matched to one by id.

An answers file holding the questions too (a RAGAS-style file: `question`/`user_input`,
`contexts`/`retrieved_contexts`, `answer`/`response`, optionally `ground_truth`/`reference`)
is a complete eval set: :func:`answers_as_eval_set`. Given with an eval set, it must answer
exactly the eval set's cases (:func:`check_answers_match`): an answer for an unknown id, or a
case without an answer, is an error naming the ids, before any work.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .._exceptions import CaseFileError
from ..cases import Case, assigned_ids, load_cases
from ..vocabulary import MetricName, needs_contexts
from . import AnswersFilePipeline, PrecomputedPipeline

SHOWN_IDS = 5
"""Ids named in an error before the rest are only counted."""


def few_ids(ids: Sequence[str], limit: int = SHOWN_IDS) -> str:
    """`'a', 'b', 'c'`, or the first `limit` and `… (N in all)`."""
    shown = ", ".join(f"'{i}'" for i in ids[:limit])
    return shown if len(ids) <= limit else f"{shown}, … ({len(ids)} in all)"


def answers_as_eval_set(
    path: str | Path, metrics: Sequence[MetricName] | None = None
) -> tuple[list[Case], PrecomputedPipeline]:
    """The cases of an answers file that carries its questions, and the pipeline that returns
    each record's own contexts and answer (named `answers:FILE`).

    Every record needs a question and an answer, and contexts unless only metrics that do not
    read them are judged (`metrics`, None for all); a record without an `id` is numbered by
    its position. Raises :class:`CaseFileError` naming what is missing.
    """
    path = Path(path).expanduser()
    try:
        cases = load_cases(path)
    except CaseFileError as exc:
        if exc.field in ("question", "user_input") and exc.message.startswith("missing question"):
            raise CaseFileError(
                path,
                "missing question: without --cases the answers file is the eval set, so each "
                "record needs its question ('question', or 'user_input' in RAGAS files); or "
                "pass --cases FILE with the questions",
                line=exc.line,
                field=exc.field,
            ) from None
        raise
    contexts_needed = needs_contexts(metrics)
    for field, alias, lacking in (
        (
            "contexts",
            "retrieved_contexts",
            [c.id for c in cases if c.contexts is None and contexts_needed],
        ),
        ("answer", "response", [c.id for c in cases if c.answer is None]),
    ):
        if lacking:
            raise CaseFileError(
                path,
                f"{_count(len(lacking), 'record')} without '{field}' (or '{alias}'): "
                f"{few_ids(lacking)}; every record of an answers file needs the retrieved "
                "contexts (unless only answer_relevancy is judged) and the answer",
            )
    pipeline = PrecomputedPipeline(needs_contexts=contexts_needed)
    pipeline.name = f"answers:{path.name}"
    return cases, pipeline


def check_answers_match(
    cases: Sequence[Case], answers: AnswersFilePipeline, cases_file: str | Path | None = None
) -> None:
    """Raise :class:`CaseFileError` (on the answers file) unless it answers exactly the eval
    set's cases: the ids of answers not in the eval set and of cases without an answer are
    named (the first few and how many)."""
    case_ids = [case.id for case in cases]
    known = set(case_ids)
    unknown = sorted(answers.ids - known)
    missing = [i for i in case_ids if i not in answers.ids]
    if not unknown and not missing:
        return
    where = f" {Path(cases_file).name}" if cases_file else ""
    problems = []
    if unknown:
        problems.append(
            f"{_count(len(unknown), 'answer')} for ids not in the eval set{where}: "
            f"{few_ids(unknown)}"
        )
    if missing:
        problems.append(
            f"{_count(len(missing), 'eval case')} without an answer: {few_ids(missing)}"
        )
    hint = (
        " (the eval set's records without an id are numbered 1, 2, … by position)"
        if assigned_ids(cases)
        else ""
    )
    raise CaseFileError(
        answers.path,
        "; ".join(problems) + "; an answers file must answer exactly the eval set's cases, "
        f"matched by id{hint}: fix the ids, or remove the extra answers or cases",
    )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
