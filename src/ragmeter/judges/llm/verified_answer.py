"""Answer relevancy from one-token verdicts (``verifier`` mode).

Two calls ask whether the answer addresses the question (its conversation included), in two
wordings (`verifier.ANSWER_PROMPTS`), and the score is the mean of their P(Yes), so an answer
about something else scores low however fluent it is; the JSON mode's reverse questions are
written by a model that has seen the question. An evasive answer (the local judge's refusal
reading: it abstains and states nothing) scores 0 without a call, and on an out-of-scope case
an answer that declines scores 1 (`rules.precheck`).
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
    phrasings = answer_messages(question_block(sample), sample.answer, sample.lang)
    try:
        replies = await ask_in_groups(ctx, sample, METRIC, [[m] for m in phrasings], spend)
    except JudgeError as exc:
        return spend.unscored(METRIC, str(exc))
    reads = [read for (read,) in replies if read is not None]
    if not reads:
        return spend.unscored(METRIC, "judge error: the verifier answered neither Yes nor No")
    p = round(sum(p for p, _ in reads) / len(reads), 4)
    if all(graded for _, graded in reads):
        said = ", ".join(f"{p_:.2f}" for p_, _ in reads)
        note = f"P(the answer addresses the question) {p:.2f} (mean of its wordings: {said})"
    else:
        said = ", ".join("Yes" if p_ >= 0.5 else "No" for p_, _ in reads)
        note = f"answered {said} (no probabilities)"
    if len(reads) < len(replies):
        note += "; one wording answered neither Yes nor No"
    return spend.scored(METRIC, p, Evidence(abstained=False, notes=[note]))
