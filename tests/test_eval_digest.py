"""The eval set's digest: what changes it, what does not, and that every run records it."""

from __future__ import annotations

import ragmeter
from factories import RAGAS_ROWS
from ragmeter.api import cases_from
from ragmeter.cases import Case
from ragmeter.cases.digest import case_digest, eval_set_digest

CASES = [
    Case(id="en1", question="How long do refunds take?", ground_truth="14 days."),
    Case(
        id="zh1",
        question="退款需要多久？",
        ground_truth="十四天。",
        reference_contexts=["退款在十四天内发放。"],
        history=[
            {"role": "user", "content": "你好"},
            {"role": "assistant", "content": "你好，有什么可以帮你？"},
        ],
    ),
]


def _with(index: int, **change: object) -> list[Case]:
    cases = [c.model_copy(deep=True) for c in CASES]
    cases[index] = cases[index].model_copy(update=change)
    return cases


def test_the_digest_is_of_the_contents_in_any_order():
    digest = eval_set_digest(CASES)
    assert digest.startswith("sha256:") and len(digest) == len("sha256:") + 64
    assert eval_set_digest(list(reversed(CASES))) == digest
    # outer whitespace, category, metadata, language and precomputed answers are not contents
    same = [
        _with(0, question="  How long do refunds take?\n"),
        _with(1, category="typo", metadata={"source": "faq"}, lang="zh"),
        _with(1, answer="十四天。", contexts=["检索到的段落"]),
    ]
    assert {eval_set_digest(cases) for cases in same} == {digest}


def test_every_part_of_a_case_in_either_language_changes_it():
    digest = eval_set_digest(CASES)
    changed = [
        _with(0, question="How long do returns take?"),
        _with(0, ground_truth="15 days."),
        _with(0, id="en2"),
        _with(1, question="退款需要几天？"),
        _with(1, ground_truth="十五天。"),
        _with(1, reference_contexts=["退款在十五天内发放。"]),
        _with(1, history=[]),
        CASES[:1],
        [*CASES, Case(id="en3", question="Can I pay by card?")],
    ]
    digests = [eval_set_digest(cases) for cases in changed]
    assert digest not in digests and len(set(digests)) == len(changed)


def test_a_run_records_the_digest_of_its_eval_set():
    result = ragmeter.evaluate(RAGAS_ROWS, metrics="faithfulness")
    assert result.run.cases_digest == eval_set_digest(result.cases)
    assert [case_digest(c) for c in result.cases] == [
        case_digest(c) for c in cases_from(RAGAS_ROWS)
    ]
