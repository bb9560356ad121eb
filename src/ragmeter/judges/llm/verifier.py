"""One-token graded verdicts: the machinery every metric's ``verifier`` mode shares.

Each verdict is one call capped at one output token with token log-probabilities:
P(Yes) = P(Yes) / (P(Yes) + P(No)) over the alternatives at that token. Prompts are plain
(no system message, no markers; labelled paragraphs, evidence first): on the 1.5B llama model
the plain layout gave faithful answers higher and better-spread probabilities than a system
message with fenced blocks did (issue 32).

Evidence first, then the question, then the instruction, and the statement last: every call
on one evidence window shares everything but its last line, so llama.cpp's prompt cache
(``cache_prompt``, on by default) prefills a window once for all of a case's statements. The
llama judge sends a case's calls of every metric together, sorted by prompt
(`verdict_queue`), so each window is prefilled once for its chunk check and statements; for
other judges the calls of one window run one after another (`ask_in_groups`), so they land on
the slot that already holds it. Where the endpoint gives no log-probabilities the Yes/No
token itself decides (0/1), and the client says so once in the run's warnings.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from string import Template

from ...clients.client import ChatResponse
from ...clients.cost import Usage, count_tokens
from ...clients.logprobs import TokenLogprob, impossible_value
from ...text import char_ngrams, content_words, sentence_spans
from ..base import Lang, MetricName, Sample, Span
from .context import JudgeContext, Spend
from .prompts import load_prompt
from .verdict_queue import ACTIVE

WINDOW_TOKENS = 320
"""Most tokens of evidence in one window (a longer chunk is cut between sentences)."""
WINDOWS_PER_STATEMENT = 2
"""Evidence windows a statement is verified against: those sharing the most of its words."""
VERBATIM_OVERLAP = 0.95
"""A window holding this much of a statement (`overlap`: nearly all its content words and
character bigrams, a copied sentence) is the only one it is verified against: no other window
can hold more of it, and each call costs a prefill. On the demo set the pipeline's copied
claims scored 0.99-1.00 in their chunk; its hallucinating variant's claims, a number or name
changed, 0.77-0.92 (bench/verdicts.py)."""
YES = frozenset({"yes", "是"})
NO = frozenset({"no", "否"})
ANSWER_PROMPTS = ("verdict_answer", "verdict_answer_same_subject")
"""Answer relevancy's two phrasings of one question, one call each, the score their mean: does
the answer give the information the question asks for; does it answer the question rather than
say something else about the same subject. The 1.5B model's P(Yes) moves by a few hundredths
with the wording alone (an answer about another subject 0.37 with one phrasing and 0.40 with
the other), which decides the 0.4 line; the mean of two wordings moves less (bench/verdicts.py,
docs/llama.md)."""
PROMPTS = ("verdict_statement", "verdict_chunk", *ANSWER_PROMPTS, "verdict_question")
HISTORY_PROMPT = "verdict_history"
EXAMPLES_PROMPT = "verdict_answer_examples"

Messages = list[dict[str, str]]


@cache
def verifier_prompt_version() -> str:
    """A short hash of the one-token prompts' files."""
    digest = hashlib.sha256()
    for lang in ("en", "zh"):
        for name in (*PROMPTS, HISTORY_PROMPT, EXAMPLES_PROMPT):
            digest.update(f"{lang}/{name}\n{load_prompt(name, lang)}\n".encode())
    digest.update(f"statements see: {STATEMENT_SEES}\n".encode())
    return digest.hexdigest()[:12]


@cache
def statement_prompt_version() -> str:
    """A short hash of the statement prompt alone, the one a calibration is fitted with."""
    digest = hashlib.sha256()
    for lang in ("en", "zh"):
        digest.update(f"{lang}\n{load_prompt('verdict_statement', lang)}\n".encode())
    return digest.hexdigest()[:12]


def _user(name: str, lang: Lang, **fields: str) -> Messages:
    return [{"role": "user", "content": Template(load_prompt(name, lang)).substitute(fields)}]


STATEMENT_SEES = "the question without the conversation"
"""What a statement's call shows of the case besides the evidence (part of the prompts' version:
statements of multi-turn cases were once asked with the conversation before the question)."""


def statement_question(sample: Sample) -> str:
    """The question paragraph of a statement's call (faithfulness, context recall): the question
    alone. A statement is checked against the evidence only: earlier turns, which may hold the
    earlier answers' facts, are not evidence, and a conversation read after every window would
    be prefilled again with each call (on MTRAG a median of ~2,100 characters a call)."""
    return Template(load_prompt("verdict_question", sample.lang)).substitute(
        question=sample.question
    )


def question_block(sample: Sample) -> str:
    """The question paragraph, with the conversation before it in a multi-turn case (context
    precision, answer relevancy: what helps or answers depends on the conversation)."""
    if not sample.history:
        return statement_question(sample)
    history = "\n".join(f"{turn.role}: {turn.content}" for turn in sample.history)
    return Template(load_prompt(HISTORY_PROMPT, sample.lang)).substitute(
        history=history, question=sample.question
    )


def statement_messages(evidence: str, question: str, statement: str, lang: Lang) -> Messages:
    """Does `evidence` support every part of `statement`? (faithfulness, context recall)"""
    return _user(
        "verdict_statement", lang, evidence=evidence, question=question, statement=statement
    )


def chunk_messages(evidence: str, question: str, reference: str, lang: Lang) -> Messages:
    """Does `evidence` help answer the question? (context precision)"""
    return _user("verdict_chunk", lang, evidence=evidence, question=question, reference=reference)


def answer_messages(question: str, answer: str, lang: Lang) -> list[Messages]:
    """Does `answer` give what the question asks for? (answer relevancy) One call per phrasing
    (`ANSWER_PROMPTS`), each after the same six worked examples asked in its own words
    (`verdict_answer_examples`: three answers about a neighbouring fact, a plain "no" to a
    yes/no question, two on topic), which the 1.5B model needs to say No to a fluent answer to
    another question; they are the same for every call, so the server's prompt cache prefills
    them once a phrasing."""
    out: list[Messages] = []
    for name in ANSWER_PROMPTS:
        messages: Messages = []
        for line in load_prompt(EXAMPLES_PROMPT, lang).splitlines():
            question_, answer_, verdict = line.split("\t")
            shown = Template(load_prompt("verdict_question", lang)).substitute(question=question_)
            messages += _user(name, lang, question=shown, answer=answer_)
            messages.append({"role": "assistant", "content": verdict})
        out.append(messages + _user(name, lang, question=question, answer=answer))
    return out


def evidence_windows(
    text: str, lang: Lang, max_tokens: int = WINDOW_TOKENS
) -> list[tuple[int, int]]:
    """(start, end) of the windows `text` is cut into: whole sentences, at most `max_tokens`
    each (a longer sentence is cut by characters); the whole text when it fits."""
    if count_tokens(text) <= max_tokens:
        return [(0, len(text))]
    windows: list[tuple[int, int]] = []
    start = end = None
    for s, e in sentence_spans(text, lang) or [(0, len(text))]:
        if start is not None and count_tokens(text[start:e]) <= max_tokens:
            end = e
            continue
        if start is not None and end is not None:
            windows.append((start, end))
        start, end = s, e
        while count_tokens(text[start:end]) > max_tokens:  # one sentence too long on its own
            step = max(1, (end - start) * max_tokens // count_tokens(text[start:end]))
            windows.append((start, start + step))
            start += step
    if start is not None and end is not None and end > start:
        windows.append((start, end))
    return windows


@dataclass(frozen=True)
class Window:
    """One evidence window: its chunk, where it lies, and its text."""

    chunk_index: int
    span: Span
    text: str


def sample_windows(sample: Sample) -> list[Window]:
    """Every chunk's windows, in rank order."""
    return [
        Window(i, Span(start=s, end=e), chunk[s:e])
        for i, chunk in enumerate(sample.contexts)
        for s, e in evidence_windows(chunk, sample.lang)
    ]


def overlap(statement: str, evidence: str, lang: Lang) -> float:
    """How much of `statement` `evidence` holds: the mean of the shares of its content words
    and of its character bigrams found there (0..1)."""
    words = set(content_words(statement, lang))
    grams = char_ngrams(statement)
    word_share = len(words & set(content_words(evidence, lang))) / len(words) if words else 0.0
    gram_share = len(grams & char_ngrams(evidence)) / len(grams) if grams else 0.0
    return (word_share + gram_share) / 2


def pick_windows(
    statement: str, windows: Sequence[Window], lang: Lang, k: int = WINDOWS_PER_STATEMENT
) -> list[int]:
    """The indices of the `k` windows that hold most of `statement` (the earlier on ties),
    in window order; only the first when it holds the statement nearly word for word
    (`VERBATIM_OVERLAP`)."""
    scores = [overlap(statement, w.text, lang) for w in windows]
    ranked = sorted(range(len(windows)), key=lambda i: (-scores[i], i))
    if ranked and scores[ranked[0]] >= VERBATIM_OVERLAP:
        return ranked[:1]
    return sorted(ranked[:k])


def yes_probability(text: str, tokens: Sequence[TokenLogprob] | None) -> tuple[float, bool] | None:
    """(P(Yes), graded) of a one-token reply: from the first token's alternatives when given
    and possible (graded), else 1.0 or 0.0 from the reply itself; None when it says neither."""
    if tokens and impossible_value(tokens[:1]) is None:
        first = tokens[0]
        mass = {"yes": 0.0, "no": 0.0}
        seen: set[str] = set()
        for token, logprob in (*first.top, (first.token, first.logprob)):
            if token in seen:
                continue
            seen.add(token)
            word = token.strip().lower()
            label = "yes" if word in YES else "no" if word in NO else None
            if label is not None:
                mass[label] += math.exp(logprob)
        total = mass["yes"] + mass["no"]
        if total > 0:
            return round(mass["yes"] / total, 4), True
    word = text.strip().strip(".。!！").lower()
    if word in YES:
        return 1.0, False
    if word in NO:
        return 0.0, False
    return None


Verdict = tuple[float, bool] | None
"""(P(Yes), graded) of one call, or None when its reply said neither Yes nor No."""


async def ask_in_groups(
    ctx: JudgeContext,
    sample: Sample,
    metric: MetricName,
    groups: Sequence[Sequence[Messages]],
    spend: Spend,
) -> list[list[Verdict]]:
    """The verdict of every call of `groups`, in the same shape. In a case the llama judge
    queues (`verdict_queue`), every metric's calls go out together in the order of their
    prompts. Otherwise as many groups run at once as the client sends calls at once, the calls
    of one group in turn: a group shares its evidence, and interleaved groups would evict each
    other's prefill from the server's slots. Every call is counted in `spend`; a failed call
    raises once all have finished."""
    queue = ACTIVE.get()
    shaped: list[list[ChatResponse | BaseException | None]]
    if queue is not None:
        flat = [m for g in groups for m in g]
        answers = iter(await queue.ask(metric, flat))
        shaped = [[next(answers) for _ in g] for g in groups]
    else:
        shaped = await _in_groups(ctx, sample, metric, groups)
    out: list[list[Verdict]] = []
    failed: BaseException | None = None
    for group in shaped:
        out.append([])
        for reply in group:
            if isinstance(reply, BaseException) or reply is None:
                failed = failed or reply
                out[-1].append(None)
                continue
            spend.usage.add(Usage(1, reply.prompt_tokens, reply.completion_tokens))
            spend.raw_ids.append(reply.key)
            out[-1].append(yes_probability(reply.text, reply.logprobs))
    if failed is not None:
        raise failed
    return out


async def _in_groups(
    ctx: JudgeContext, sample: Sample, metric: MetricName, groups: Sequence[Sequence[Messages]]
) -> list[list[ChatResponse | BaseException | None]]:
    """Each group's calls in turn, as many groups at once as the client sends calls; a call
    after a failed one in its group is not sent (None)."""
    client = ctx.caller.client
    lanes = asyncio.Semaphore(max(1, client.concurrency))
    out: list[list[ChatResponse | BaseException | None]] = [[None] * len(g) for g in groups]

    async def run(g: int) -> None:
        async with lanes:
            for c, messages in enumerate(groups[g]):
                try:
                    out[g][c] = await client.complete(
                        messages,
                        metric=metric,
                        case_id=sample.case_id,
                        salt=sample.repeat,
                        max_tokens=1,
                    )
                except Exception as exc:
                    out[g][c] = exc
                    return

    await asyncio.gather(*(run(g) for g in range(len(groups))))
    return out


__all__ = [
    "ANSWER_PROMPTS",
    "VERBATIM_OVERLAP",
    "WINDOWS_PER_STATEMENT",
    "WINDOW_TOKENS",
    "Window",
    "answer_messages",
    "ask_in_groups",
    "chunk_messages",
    "evidence_windows",
    "overlap",
    "pick_windows",
    "question_block",
    "sample_windows",
    "statement_messages",
    "statement_prompt_version",
    "statement_question",
    "verifier_prompt_version",
    "yes_probability",
]
