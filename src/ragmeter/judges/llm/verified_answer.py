"""Answer relevancy from one one-token verdict (``verifier`` mode).

One call asks whether the answer addresses the question (its conversation included) and the
score is P(Yes), so an answer about something else scores low however fluent it is; the JSON
mode's reverse questions are written by a model that has seen the question. An evasive answer
(the local judge's refusal reading: it abstains and states nothing) scores 0 without a call,
and on an out-of-scope case an answer that declines scores 1 (`rules.precheck`).
"""

from __future__ import annotations

from ..._exceptions import JudgeError
from ..base import Evidence, MetricName, MetricResult, Sample
from ..local.claims import is_refusal
from ..rules import precheck, refusal_relevancy
from .context import JudgeContext, Spend
from .verifier import answer_messages, ask_in_groups, question_block

METRIC: MetricName = "answer_relevancy"
EVASIVE_NOTE = "answer is evasive or noncommittal"


async def verify_answer_relevancy(ctx: JudgeContext, sample: Sample) -> MetricResult:
    if (early := precheck(sample, METRIC)) is not None:  # an empty answer: no call
        return early
    refused = is_refusal(sample.answer, sample.lang)
    if (early := precheck(sample, METRIC, refused=refused)) is not None:
        return early  # an out-of-scope case
    if refused:
        return refusal_relevancy(0.0, Evidence(abstained=True, notes=[EVASIVE_NOTE]))
    spend = Spend()
    messages = answer_messages(question_block(sample), sample.answer, sample.lang)
    try:
        ((read,),) = await ask_in_groups(ctx, sample, METRIC, [[messages]], spend)
    except JudgeError as exc:
        return spend.unscored(METRIC, str(exc))
    if read is None:
        return spend.unscored(METRIC, "judge error: the verifier answered neither Yes nor No")
    p, graded = read
    note = (
        f"P(the answer addresses the question) {p:.2f}"
        if graded
        else f"answered {'Yes' if p >= 0.5 else 'No'} (no probabilities)"
    )
    return spend.scored(METRIC, p, Evidence(abstained=False, notes=[note]))
