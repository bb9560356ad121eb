"""Answer relevancy: how well questions written back from the answer match the question.

One call writes ``n_questions`` questions from the answer, rewrites the question as a standalone
one (multi-turn cases) and flags noncommittal answers; the score is the mean cosine similarity of
the written questions with the (resolved) question, 0 for a noncommittal answer. For out-of-scope
cases the right answer is an abstention: 1 if the answer abstains, else 0 (`rules.precheck`).
"""

from __future__ import annotations

from ..base import Evidence, MetricName, MetricResult, Sample
from ..rules import precheck, refusal_relevancy
from .context import JudgeContext, Spend
from .schemas import AnswerRelevancy

METRIC: MetricName = "answer_relevancy"


async def judge_answer_relevancy(ctx: JudgeContext, sample: Sample) -> MetricResult:
    spend = Spend()
    if (early := precheck(sample, METRIC)) is not None:  # an empty answer: no call
        return early

    def check(out: AnswerRelevancy) -> str | None:
        if not out.noncommittal and not [q for q in out.questions if q.strip()]:
            return "judge wrote no questions for an answer it did not flag as noncommittal"
        return None

    res = await ctx.ask(
        sample,
        METRIC,
        "answer_relevancy",
        AnswerRelevancy,
        check=check,
        n_questions=ctx.n_questions,
    )
    spend.add(res)
    if res.value is None:
        return spend.unscored(METRIC, res.error or "judge error")
    out = res.value
    questions = [q.strip() for q in out.questions if q.strip()][: ctx.n_questions]
    if (early := precheck(sample, METRIC, refused=out.noncommittal)) is not None:
        early.evidence.generated_questions = questions  # an out-of-scope case
        return spend.settle(early)
    evidence = Evidence(generated_questions=questions, abstained=out.noncommittal)
    if out.noncommittal:
        evidence.notes.append("answer is evasive or noncommittal")
        return spend.settle(refusal_relevancy(0.0, evidence))
    anchor = sample.question
    if sample.history and out.resolved_question.strip():
        anchor = out.resolved_question.strip()
        evidence.notes.append(f"question resolved with the history: {anchor}")
    sims = await ctx.similarity.similarity(anchor, questions, sample.lang)
    evidence.notes.append("similarities: " + ", ".join(f"{s:.3f}" for s in sims))
    return spend.scored(METRIC, sum(sims) / len(sims), evidence)
