"""Responders for the fake OpenAI server: they turn a chat request into the reply text.

- :func:`schema_valid` returns a minimal valid instance of the requested JSON schema;
- :class:`Scripted` returns fixed payloads per schema name (in order when a list is given);
- :class:`Smart` understands ragmeter's own judge prompts and answers them by word overlap, so
  end-to-end runs against the fake give meaningful scores.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_SCHEMA_IN_PROMPT = re.compile(r"JSON schema `(\w+)` below, no other text\.\n")
# How other frameworks (instructor's JSON mode, used by RAGAS) put the schema in the prompt.
_FOREIGN_SCHEMA = re.compile(r"json_schema:\s*(?=\{)", re.I)
_BLOCK = re.compile(r"<<<([A-Z_]+(?: \d+)?)>>>\n(.*?)\n<<<END \1>>>", re.S)


@dataclass
class FakeRequest:
    """A chat request as the fake server saw it."""

    body: dict[str, Any]
    messages: list[dict[str, Any]]
    model: str
    response_format: dict[str, Any] | None
    schema_name: str | None
    schema: dict[str, Any] | None

    @classmethod
    def parse(cls, body: dict[str, Any]) -> FakeRequest:
        messages = list(body.get("messages") or [])
        rf = body.get("response_format")
        name = schema = None
        if isinstance(rf, dict) and rf.get("type") == "json_schema":
            spec = rf.get("json_schema") or {}
            name, schema = spec.get("name"), spec.get("schema")
        else:
            for message in messages:
                text = str(message.get("content") or "")
                found = _SCHEMA_IN_PROMPT.search(text)
                if found:
                    name = found.group(1)
                    try:
                        schema = json.loads(text[found.end() :])
                    except json.JSONDecodeError:
                        schema = None
                    break
                found = _FOREIGN_SCHEMA.search(text)
                if found:
                    try:
                        schema, _ = json.JSONDecoder().raw_decode(text, found.end())
                    except json.JSONDecodeError:
                        continue
                    name = schema.get("title") if isinstance(schema, dict) else None
                    break
        return cls(body, messages, str(body.get("model", "")), rf, name, schema)

    @property
    def task_text(self) -> str:
        """The first user message: the task, even in a repair request."""
        for message in self.messages:
            if message.get("role") == "user":
                return str(message.get("content") or "")
        return ""

    @property
    def last_user_text(self) -> str:
        """The last user message (a one-token prompt after its worked examples)."""
        for message in reversed(self.messages):
            if message.get("role") == "user":
                return str(message.get("content") or "")
        return ""

    @property
    def is_repair(self) -> bool:
        return any(m.get("role") == "assistant" for m in self.messages)

    def blocks(self) -> dict[str, str]:
        """Fenced blocks of the task text by label (``QUESTION``, ``CONTEXT 0``, ...)."""
        return {m.group(1): m.group(2) for m in _BLOCK.finditer(self.task_text)}


Responder = Callable[[FakeRequest], str]


ONE_TOKEN_LABELS = {
    "Evidence": "EVIDENCE",
    "证据": "EVIDENCE",
    "Question": "QUESTION",
    "问题": "QUESTION",
    "Conversation so far": "HISTORY",
    "此前的对话": "HISTORY",
    "Statement": "STATEMENT",
    "陈述": "STATEMENT",
    "Reference answer": "REFERENCE",
    "参考答案": "REFERENCE",
    "Answer": "ANSWER",
    "回答": "ANSWER",
}
"""The paragraph labels of ragmeter's one-token prompts (``judges/llm/prompts/*/verdict_*``)."""
_LABELLED = re.compile(
    r"^(" + "|".join(re.escape(k) for k in ONE_TOKEN_LABELS) + r")[:：][ \n]?", re.S
)


def one_token_sections(text: str) -> dict[str, str]:
    """The labelled paragraphs of a one-token prompt by label (``EVIDENCE``, ``QUESTION``,
    ``STATEMENT``, ``REFERENCE``, ``ANSWER``, ``HISTORY``); an unlabelled paragraph belongs
    to the one before it, unless it is an instruction (it asks for Yes or No)."""
    sections: dict[str, str] = {}
    current: str | None = None
    paragraphs = text.split("\n\n")
    for paragraph in paragraphs:
        found = _LABELLED.match(paragraph)
        if found:
            current = ONE_TOKEN_LABELS[found.group(1)]
            sections[current] = paragraph[found.end() :]
        elif current is not None and not re.search(r"Yes (?:or|或) No", paragraph):
            sections[current] += "\n\n" + paragraph
    return sections


def schema_valid(request: FakeRequest) -> str:
    """A minimal instance of the requested schema (``{}`` when there is none)."""
    if not request.schema:
        return "{}"
    return json.dumps(minimal_instance(request.schema, request.schema))


def minimal_instance(node: dict[str, Any], root: dict[str, Any]) -> Any:
    if "$ref" in node:
        target: Any = root
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        return minimal_instance(target, root)
    for key in ("anyOf", "oneOf"):
        if key in node:
            options = [o for o in node[key] if o.get("type") != "null"] or node[key]
            return minimal_instance(options[0], root)
    if "enum" in node:
        return node["enum"][0]
    kind = node.get("type")
    if kind == "object":
        props = node.get("properties", {})
        required = node.get("required", list(props))
        return {k: minimal_instance(props[k], root) for k in required if k in props}
    if kind == "array":
        count = node.get("minItems", 0)
        return [minimal_instance(node.get("items", {}), root) for _ in range(count)]
    return {"string": "", "integer": 0, "number": 0, "boolean": False, "null": None}.get(str(kind))


@dataclass
class Scripted:
    """Fixed payloads by schema name: a dict/str, a callable of the request, or a list used in
    order (its last item repeats). Unknown names fall back to ``fallback``."""

    script: dict[str, Any]
    fallback: Responder = schema_valid
    _used: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, request: FakeRequest) -> str:
        name = request.schema_name or ""
        if name not in self.script:
            return self.fallback(request)
        item = self.script[name]
        if isinstance(item, list):
            with self._lock:
                i = self._used.get(name, 0)
                self._used[name] = i + 1
            item = item[min(i, len(item) - 1)]
        if callable(item):
            item = item(request)
        return item if isinstance(item, str) else json.dumps(item, ensure_ascii=False)


# ---- the smart responder -------------------------------------------------------------------

_STOP = frozenset(
    """
    a an the is are was were be been of to in on at for and or but with by from as that this
    it its what which who how when where why do does did can could should would will i you we
    they he she there their our your about into than then so if not no yes has have had
    """.split()  # noqa: SIM905
)

_NONCOMMITTAL = (
    "i don't know",
    "i do not know",
    "cannot answer",
    "can't answer",
    "not mentioned",
    "no information",
    "not covered",
    "unable to",
    "do not contain",
    "don't contain",
    "不知道",
    "无法回答",
    "没有提到",
    "未提及",
    "没有相关",
    "无法确定",
    "不包含",
)
_SENTENCE_END = re.compile(r"(?<=[.!?。！？；;])\s*")
_CJK = re.compile(r"[\u4e00-\u9fff]+")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def content_tokens(text: str) -> set[str]:
    """English content words and Chinese character bigrams of ``text``."""
    lowered = text.lower()
    words = {w for w in re.findall(r"[a-z0-9]+", lowered) if w not in _STOP and len(w) > 1}
    for run in _CJK.findall(lowered):
        words.update(run[i : i + 2] for i in range(len(run) - 1))
        if len(run) == 1:
            words.add(run)
    return words


def overlap(part: str, whole: str) -> float:
    """Share of ``part``'s content tokens found in ``whole``."""
    tokens = content_tokens(part)
    return len(tokens & content_tokens(whole)) / len(tokens) if tokens else 0.0


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def noncommittal(answer: str) -> bool:
    lowered = answer.lower()
    return any(p in lowered for p in _NONCOMMITTAL)


@dataclass
class Smart:
    """Answers ragmeter's judge prompts plausibly, by word overlap (deterministic)."""

    threshold: float = 0.5

    def __call__(self, request: FakeRequest) -> str:
        handler = {
            "FaithfulnessClaims": self.claims,
            "FaithfulnessVerdicts": self.verdicts,
            "AnswerRelevancy": self.relevancy,
            "ContextPrecisionVerdicts": self.precision,
            "ContextRecallPoints": self.recall,
        }.get(request.schema_name or "")
        if handler is None:
            if request.schema_name is None and request.body.get("max_tokens") == 1:
                return self.verdict(one_token_sections(request.last_user_text))
            return schema_valid(request)
        return json.dumps(handler(request.blocks(), request.task_text), ensure_ascii=False)

    @staticmethod
    def _contexts(blocks: dict[str, str]) -> list[str]:
        found = sorted(
            (int(k.split()[1]), v) for k, v in blocks.items() if re.fullmatch(r"CONTEXT \d+", k)
        )
        return [v for _, v in found]

    def claims(self, blocks: dict[str, str], task: str) -> dict[str, Any]:
        answer = blocks.get("ANSWER", "")
        return {"claims": [] if noncommittal(answer) else split_sentences(answer)}

    def verdicts(self, blocks: dict[str, str], task: str) -> dict[str, Any]:
        contexts = self._contexts(blocks)
        claims = [re.sub(r"^\d+\.\s*", "", line) for line in blocks.get("CLAIMS", "").splitlines()]
        out = []
        for i, claim in enumerate(claims):
            scores = [overlap(claim, c) for c in contexts]
            best = max(range(len(scores)), key=scores.__getitem__) if scores else None
            verdict, quote, reason = "not_verifiable", "", "no chunk mentions this"
            if best is not None and scores[best] >= self.threshold:
                chunk = contexts[best]
                sentences = split_sentences(chunk) or [chunk]
                quote = max(sentences, key=lambda s: overlap(claim, s))
                if set(_NUMBER.findall(claim)) - set(_NUMBER.findall(chunk)):
                    verdict, reason = "contradicted", "the chunk gives different figures"
                else:
                    verdict, reason = "supported", "the chunk states this"
            out.append(
                {
                    "claim_index": i,
                    "verdict": verdict,
                    "chunk_index": best if quote else None,
                    "quote": quote,
                    "reason": reason,
                }
            )
        return {"verdicts": out}

    def verdict(self, sections: dict[str, str]) -> str:
        """A one-token verdict (``verifier`` mode), by word overlap: a statement is supported
        when the evidence holds its words and numbers; a chunk is useful when it holds a
        sentence of the reference answer; an answer addresses the question when it holds
        some of the question's words. "Maybe" for a prompt it does not know."""
        evidence = sections.get("EVIDENCE")
        if evidence is not None and "STATEMENT" in sections:
            return self.verify_one(sections["STATEMENT"], evidence)
        if evidence is not None and "REFERENCE" in sections:
            points = split_sentences(sections["REFERENCE"])
            return "Yes" if any(overlap(p, evidence) >= self.threshold for p in points) else "No"
        if "ANSWER" in sections and "QUESTION" in sections:
            on_topic = overlap(sections["QUESTION"], sections["ANSWER"]) >= self.threshold / 2
            return "Yes" if on_topic else "No"
        return "Maybe"

    def verify_one(self, statement: str, evidence: str) -> str:
        """Yes when the statement's words and numbers are in the evidence."""
        if set(_NUMBER.findall(statement)) - set(_NUMBER.findall(evidence)):
            return "No"
        return "Yes" if overlap(statement, evidence) >= self.threshold else "No"

    def relevancy(self, blocks: dict[str, str], task: str) -> dict[str, Any]:
        answer, question = blocks.get("ANSWER", ""), blocks.get("QUESTION", "")
        wanted = re.search(r"(?:write|写出)\s*(\d+)", task)
        n = int(wanted.group(1)) if wanted else 3
        resolved = question
        history = blocks.get("HISTORY")
        if history:
            last_user = [ln for ln in history.splitlines() if ln.startswith("user:")]
            if last_user:
                resolved = f"{question} ({last_user[-1][5:].strip()})"
        if noncommittal(answer):
            return {"resolved_question": resolved, "noncommittal": True, "questions": []}
        sentences = split_sentences(answer) or [answer]
        zh = bool(_CJK.search(answer))
        questions = []
        for i in range(n):
            s = sentences[i % len(sentences)].rstrip(".。!！")
            questions.append(f"{s}吗？" if zh else f"Is it true that {s}?")
        return {"resolved_question": resolved, "noncommittal": False, "questions": questions}

    def precision(self, blocks: dict[str, str], task: str) -> dict[str, Any]:
        points = split_sentences(blocks.get("REFERENCE", ""))
        out = []
        for i, chunk in enumerate(self._contexts(blocks)):
            useful = any(overlap(p, chunk) >= self.threshold for p in points)
            reason = "contains facts the reference uses" if useful else "unrelated to the reference"
            out.append({"index": i, "useful": useful, "reason": reason})
        return {"chunks": out}

    def recall(self, blocks: dict[str, str], task: str) -> dict[str, Any]:
        contexts = self._contexts(blocks)
        out = []
        for point in split_sentences(blocks.get("REFERENCE", "")):
            found = [i for i, c in enumerate(contexts) if overlap(point, c) >= self.threshold]
            out.append(
                {
                    "point": point,
                    "supported": bool(found),
                    "chunk_indices": found,
                    "reason": "found in the chunks" if found else "no chunk states it",
                }
            )
        return {"points": out}
