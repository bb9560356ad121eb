"""Dry-run estimate of the calls and tokens an LLM-judged run would spend."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from ...clients.client import estimate_prompt_tokens
from ...clients.cost import Estimate, MetricEstimate, PriceTable, count_tokens
from ...clients.structured import SCHEMA_INSTRUCTION, OutputMode, response_format, strict_schema
from ..base import MetricName, Sample
from ..local.claims import is_refusal
from ..rules import precheck
from .context import messages_for
from .prompts import fence
from .schemas import (
    AnswerRelevancy,
    ContextPrecisionVerdicts,
    ContextRecallPoints,
    FaithfulnessClaims,
    FaithfulnessVerdicts,
)
from .verified_claims import statements, with_question
from .verifier import (
    answer_messages,
    chunk_messages,
    pick_windows,
    question_block,
    sample_windows,
    statement_messages,
    statement_question,
)

_SENTENCE_END = re.compile(r"(?<=[.!?。！？；;])\s*")
# Completion tokens per output item, observed on typical judge replies.
PER_CLAIM_VERDICT = 45
PER_CHUNK_RATING = 25
PER_POINT = 30


def sentences(text: str) -> list[str]:
    """Sentences of ``text`` (English or Chinese punctuation)."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def estimate_run(
    samples: Sequence[Sample],
    metrics: Sequence[MetricName],
    *,
    model: str,
    n_questions: int,
    prices: PriceTable,
    mode: OutputMode = "json_schema",
    verifier: Sequence[MetricName] = (),
    batch_share: float | None = None,
) -> Estimate:
    """Calls and prompt tokens as the prompts would be sent (claims approximated by the
    answer's sentences), expected completion tokens, and the cost; metrics in `verifier` are
    estimated in verifier mode (the one-token calls `verified_*` makes, counted exactly). With a
    `batch_share` (`--batch`), the cost is that share of the online price."""
    by_metric = {m: MetricEstimate() for m in metrics}

    def add(
        metric: MetricName,
        sample: Sample,
        prompt: str,
        schema: type,
        completion: int,
        **extra: object,
    ) -> None:
        messages = messages_for(sample, prompt, **extra)
        tokens = estimate_prompt_tokens(messages, response_format(mode, schema), model)
        if mode != "json_schema":
            instruction = SCHEMA_INSTRUCTION.replace("$name", schema.__name__).replace(
                "$schema", json.dumps(strict_schema(schema), ensure_ascii=False)
            )
            tokens += count_tokens(instruction, model)
        est = by_metric[metric]
        est.calls += 1
        est.prompt_tokens += tokens
        est.completion_tokens += completion

    def add_one_token(metric: MetricName, messages: list[dict[str, str]]) -> None:
        est = by_metric[metric]
        est.calls += 1
        est.prompt_tokens += estimate_prompt_tokens(messages, None, model)
        est.completion_tokens += 1

    def add_statements(metric: MetricName, sample: Sample, texts: list[str]) -> None:
        windows = sample_windows(sample)
        question = statement_question(sample)
        for text in texts:
            for w in pick_windows(text, windows, sample.lang):
                add_one_token(
                    metric, statement_messages(windows[w].text, question, text, sample.lang)
                )

    def add_verified(metric: MetricName, s: Sample) -> None:
        """The one-token calls of `metric` in verifier mode, as `verified_*` makes them."""
        edge = precheck(s, metric)
        if metric == "faithfulness" and edge is None and s.contexts:
            add_statements(metric, s, statements(s.answer, s.question, s.lang))
        elif metric == "context_recall" and edge is None:
            points = statements(s.ground_truth, s.question, s.lang) or [
                with_question(s.question, s.ground_truth, s.lang)
            ]
            add_statements(metric, s, points)
        elif metric == "context_precision" and edge is None:
            question = question_block(s)
            for w in sample_windows(s):
                add_one_token(metric, chunk_messages(w.text, question, s.ground_truth, s.lang))
        elif metric == "answer_relevancy" and edge is None:
            refused = is_refusal(s.answer, s.lang)
            if precheck(s, metric, refused=refused) is None and not refused:
                for messages in answer_messages(question_block(s), s.answer, s.lang):
                    add_one_token(metric, messages)

    for s in samples:
        has_answer = bool(s.answer.strip())
        retrieval_ok = s.category != "out_of_scope" and bool(s.ground_truth.strip())
        for metric in metrics:
            if metric in verifier:
                add_verified(metric, s)
            elif metric == "faithfulness" and has_answer:
                claims = sentences(s.answer) or [s.answer]
                add(
                    metric,
                    s,
                    "faithfulness_claims",
                    FaithfulnessClaims,
                    int(count_tokens(s.answer, model) * 1.1) + 10,
                )
                if s.contexts:
                    numbered = "\n".join(f"{i}. {c}" for i, c in enumerate(claims))
                    add(
                        metric,
                        s,
                        "faithfulness_verify",
                        FaithfulnessVerdicts,
                        PER_CLAIM_VERDICT * len(claims) + 10,
                        claims=fence("CLAIMS", numbered),
                        n_claims=len(claims),
                    )
            elif metric == "answer_relevancy" and has_answer:
                q = count_tokens(s.question, model)
                add(
                    metric,
                    s,
                    "answer_relevancy",
                    AnswerRelevancy,
                    (n_questions + 1) * (q + 8) + 15,
                    n_questions=n_questions,
                )
            elif metric == "context_precision" and retrieval_ok and s.contexts:
                add(
                    metric,
                    s,
                    "context_precision",
                    ContextPrecisionVerdicts,
                    PER_CHUNK_RATING * len(s.contexts) + 10,
                    n_chunks=len(s.contexts),
                )
            elif metric == "context_recall" and retrieval_ok and s.contexts:
                points = len(sentences(s.ground_truth)) or 1
                add(
                    metric,
                    s,
                    "context_recall",
                    ContextRecallPoints,
                    int(count_tokens(s.ground_truth, model) * 1.2) + PER_POINT * points,
                )
    prompt = sum(e.prompt_tokens for e in by_metric.values())
    completion = sum(e.completion_tokens for e in by_metric.values())
    cost = prices.cost(model, prompt, completion)
    from ...clients.cost import _tiktoken_encoder

    return Estimate(
        model=model,
        cases=len(samples),
        calls=sum(e.calls for e in by_metric.values()),
        prompt_tokens=prompt,
        completion_tokens=completion,
        cost=None if cost is None else cost * (batch_share if batch_share is not None else 1.0),
        batch=batch_share is not None,
        by_metric={m: e for m, e in by_metric.items()},
        tokenizer="tiktoken"
        if _tiktoken_encoder(model) is not None
        else Estimate.model_fields["tokenizer"].default,
    )
