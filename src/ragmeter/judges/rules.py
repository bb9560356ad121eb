"""Rules every judge applies the same way, so local and LLM verdicts mean the same thing.

:func:`precheck` settles the edge cases (an empty answer, a refusal, an out-of-scope case, no
ground truth, no contexts) for every judge; the README's "Edge cases" table says the same to
users, and tests/judges/test_judge_contract.py holds both judge families to it. The unscored
reasons are the words reports count and group by (worded as older results.json files have
them); each result an edge case decides also carries a stable `reason_code`. Context precision
is RAGAS's rank-weighted average precision.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..vocabulary.precision import average_precision  # noqa: F401  (the judges import it here)
from ..vocabulary.reasons import (  # noqa: F401  (BY_DESIGN: re-exported for judge authors)
    BY_DESIGN,
    NO_GROUND_TRUTH,
    OUT_OF_SCOPE,
    REFUSAL,
)
from .base import (
    GENERATION_METRICS,
    ClaimVerdict,
    Evidence,
    MetricName,
    MetricResult,
    ReasonCode,
    Sample,
)

NO_CONTEXTS_NOTE = "no contexts were retrieved"
NO_CONTEXTS_CLAIMS_NOTE = "no contexts were retrieved, so no claim can be verified"
EMPTY_ANSWER_NOTE = "empty answer: the pipeline answered nothing, so it scores 0"
OUT_OF_SCOPE_ABSTAINS = "out-of-scope question: the answer correctly abstains"
OUT_OF_SCOPE_ANSWERS = "out-of-scope question: the answer should have abstained but answered"
REFUSAL_RELEVANCY_NOTE = "the answer abstains on an answerable question"

PREVIEW_CHARS = 160
"""Characters of a chunk shown as its preview in context-precision evidence."""


def precheck(
    sample: Sample, metric: MetricName, *, refused: bool | None = None
) -> MetricResult | None:
    """The result an edge case fixes for `metric` on `sample`, or None when the judge must
    grade it. Every judge calls it before judging (and the runner fixes empty answers with
    the same results, whatever the judge).

    `refused` is the judge's own reading of the answer: for faithfulness, that it makes no
    claim to check (it refuses, deflects or only exchanges courtesies); for answer relevancy,
    that it declines to answer (the LLM judge's "noncommittal"). None means not read yet: the
    rules that need it wait, and an LLM judge calls again once its first call has read the
    answer. Refusals are read by each judge, not here: the local judge's detector would
    override the LLM judge on answers it misreads as refusals.

    The first rule that applies decides (see the README's "Edge cases"):

    - empty answer: faithfulness and answer relevancy score 0 (a failed generation, not a
      refusal and not a pass); retrieval is judged as usual.
    - faithfulness of an answer with no claims: unscored by design (REFUSAL).
    - answer relevancy on an out-of-scope case: 1 if the answer declines, else 0.
    - retrieval on an out-of-scope case, or with no ground truth: unscored by design.
    - no contexts: retrieval scores 0; faithfulness of an answer with claims scores 0 (no
      claim can be verified).

    A refusal to an answerable question scores low answer relevancy, graded by the judge
    (:func:`refusal_relevancy`).
    """
    if metric in GENERATION_METRICS:
        if not sample.answer.strip():
            return empty_answer_result(metric)
        if metric == "faithfulness":
            if refused:
                return MetricResult.unscored(
                    metric, REFUSAL, evidence=Evidence(abstained=True), reason_code="refusal"
                )
            if refused is False and not sample.contexts:
                evidence = Evidence(abstained=False, notes=[NO_CONTEXTS_CLAIMS_NOTE])
                return _fixed(metric, 0.0, "no_contexts", evidence)
            return None
        if sample.category == "out_of_scope" and refused is not None:
            note = OUT_OF_SCOPE_ABSTAINS if refused else OUT_OF_SCOPE_ANSWERS
            evidence = Evidence(abstained=refused, notes=[note])
            return _fixed(metric, 1.0 if refused else 0.0, "out_of_scope", evidence)
        return None
    if sample.category == "out_of_scope":
        return MetricResult.unscored(metric, OUT_OF_SCOPE, reason_code="out_of_scope")
    if not sample.ground_truth.strip():
        return MetricResult.unscored(metric, NO_GROUND_TRUTH, reason_code="no_ground_truth")
    if not sample.contexts:
        return _fixed(metric, 0.0, "no_contexts", Evidence(notes=[NO_CONTEXTS_NOTE]))
    return None


def empty_answer_result(metric: MetricName) -> MetricResult:
    """Faithfulness and answer relevancy of a blank answer: 0 under every judge.

    An empty answer is not a refusal (that says so in words) but a failed generation; scoring
    it 0 keeps a pipeline that answers nothing from passing a gate on the cases it did answer.
    """
    return _fixed(metric, 0.0, "empty_answer", Evidence(notes=[EMPTY_ANSWER_NOTE]))


def refusal_relevancy(score: float, evidence: Evidence) -> MetricResult:
    """Answer relevancy of a refusal to an answerable question: scored, low, as the judge
    grades it (0 under an LLM judge; at most `refusal_cap` times the question's coverage
    under the local judge)."""
    evidence.abstained = True
    if REFUSAL_RELEVANCY_NOTE not in evidence.notes:
        evidence.notes.append(REFUSAL_RELEVANCY_NOTE)
    return _fixed("answer_relevancy", score, "refusal", evidence)


def no_context_verdicts(claims: Sequence[str]) -> list[ClaimVerdict]:
    """Faithfulness verdicts on `claims` when nothing was retrieved: none can be verified."""
    return [
        ClaimVerdict(claim=c, verdict="not_verifiable", reason=NO_CONTEXTS_NOTE) for c in claims
    ]


def _fixed(metric: MetricName, score: float, code: ReasonCode, evidence: Evidence) -> MetricResult:
    return MetricResult(metric=metric, score=score, reason_code=code, evidence=evidence)
