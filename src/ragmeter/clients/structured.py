"""Ask an endpoint for JSON matching a pydantic model, whatever the endpoint supports.

Output modes, best first: ``json_schema`` (``response_format`` with the schema), ``json_object``
(JSON mode, schema in the prompt), ``prompt`` (schema in the prompt, JSON block extracted from
free text). The first mode an endpoint accepts is remembered per (base_url, model), in memory
and in the cache database, so detection happens once. Replies are validated; an invalid reply
gets one repair round (the error is sent back), then one fresh retry, then the caller gets the
error and the ids of the raw outputs.
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from .._exceptions import JudgeError
from .client import ChatClient, ChatResponse, Message
from .cost import Usage
from .errors import ResponseFormatRejected
from .jsonblock import extract_json
from .logprobs import TokenLogprob

OutputMode = Literal["json_schema", "json_object", "prompt"]
MODES: tuple[OutputMode, ...] = ("json_schema", "json_object", "prompt")
M = TypeVar("M", bound=BaseModel)

DEFAULT_REPAIR = (
    "Your previous reply could not be used: $error\n"
    "Reply again with only the corrected JSON object, nothing else."
)
SCHEMA_INSTRUCTION = (
    "Reply with only one JSON object that matches the JSON schema `$name` below, no other "
    "text.\n$schema"
)

_KNOWN_MODES: dict[str, OutputMode] = {}


def forget_output_modes() -> None:
    """Forget the in-memory output modes detected so far (the cache database keeps its own)."""
    _KNOWN_MODES.clear()


@dataclass
class StructuredResult(Generic[M]):
    """A validated reply, or the reason there is none; raw-output ids and usage either way.

    ``usage`` counts every call behind this result, cached ones included, so it is the same
    on a re-run.
    """

    value: M | None
    error: str | None = None
    raw_ids: list[str] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    text: str = ""
    """The raw reply `value` was read from."""
    logprobs: Sequence[TokenLogprob] | None = None
    """That reply's token log-probabilities, when the endpoint returned them."""


@functools.cache
def _cached_schema(model: type[BaseModel]) -> tuple[dict[str, Any], str]:
    """The strict schema of ``model`` and its JSON text, computed once per class (building a
    JSON schema costs milliseconds, more than the rest of a call's client-side work)."""
    schema = strict_schema(model)
    return schema, json.dumps(schema, ensure_ascii=False)


def strict_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema in the form strict structured outputs accept: every property
    required, no additional properties, no defaults."""
    schema = copy.deepcopy(model.model_json_schema())

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            node.pop("default", None)
            if node.get("type") == "object" and "properties" in node:
                node["additionalProperties"] = False
                node["required"] = list(node["properties"])
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for item in node:
                visit(item)

    visit(schema)
    return schema


class StructuredCaller:
    """Structured (pydantic-validated) calls through a :class:`ChatClient`."""

    def __init__(self, client: ChatClient, *, mode: OutputMode | None = None) -> None:
        self.client = client
        if mode is not None:
            _KNOWN_MODES[client.endpoint] = mode
        elif client.endpoint not in _KNOWN_MODES:
            stored = client.cache.get_mode(client.endpoint)
            if stored in MODES:
                _KNOWN_MODES[client.endpoint] = stored
        self._guess_failed = False
        self.rejected_calls = 0

    @property
    def mode(self) -> OutputMode | None:
        """The output mode known to work with this endpoint, None until detected."""
        return _KNOWN_MODES.get(self.client.endpoint)

    async def ask(
        self,
        messages: list[Message],
        model: type[M],
        *,
        check: Callable[[M], str | None] | None = None,
        repair_prompt: str = DEFAULT_REPAIR,
        metric: str | None = None,
        case_id: str | None = None,
        repeat: int = 0,
    ) -> StructuredResult[M]:
        """Ask for an instance of ``model``; ``check`` may reject a valid one with a reason
        (e.g. a wrong verdict count). Never raises :class:`JudgeError`: failures come back as
        ``error`` (call failures, spent budget, or the last validation problem). ``repeat`` > 0
        re-judges: its calls get their own cache keys so they really reach the endpoint."""
        result: StructuredResult[M] = StructuredResult(value=None)
        try:
            for salt in (2 * repeat, 2 * repeat + 1):
                reply = await self._send(messages, model, salt, metric, case_id)
                self._note(result, reply)
                value, error = _parse(reply.text, model, check)
                if value is None and salt == 2 * repeat:
                    repair = [
                        *messages,
                        {"role": "assistant", "content": reply.text},
                        {"role": "user", "content": repair_prompt.replace("$error", error or "")},
                    ]
                    reply = await self._send(repair, model, 2 * repeat, metric, case_id)
                    self._note(result, reply)
                    value, error = _parse(reply.text, model, check)
                if value is not None:
                    result.value, result.error = value, None
                    result.text, result.logprobs = reply.text, reply.logprobs
                    return result
                result.error = error
        except JudgeError as exc:
            result.error = str(exc)
        return result

    @staticmethod
    def _note(result: StructuredResult[Any], reply: ChatResponse) -> None:
        result.raw_ids.append(reply.key)
        result.usage.add(reply.usage)

    async def _send(
        self,
        messages: list[Message],
        model: type[BaseModel],
        salt: int,
        metric: str | None,
        case_id: str | None,
    ) -> ChatResponse:
        while True:
            mode = self.mode
            # Until a mode is known, every call tries the best one at once: a rejection is
            # cheap, while detecting under the lock would queue the first burst behind it.
            guess = mode or (None if self._guess_failed else MODES[0])
            if guess is not None:
                try:
                    reply = await self._call(guess, messages, model, salt, metric, case_id)
                except ResponseFormatRejected:
                    if guess == "prompt":
                        raise
                    if self.mode == guess:  # the endpoint changed: redetect
                        _KNOWN_MODES.pop(self.client.endpoint, None)
                    self._guess_failed = mode is None
                    self.rejected_calls += 1
                else:
                    if self.mode is None:
                        self._remember(guess)
                    return reply
            async with self.client.detect_lock:
                if self.mode is not None:
                    continue  # detected by another call while this one waited
                start = 1 if self._guess_failed else 0
                for candidate in MODES[start:]:
                    try:
                        reply = await self._call(candidate, messages, model, salt, metric, case_id)
                    except ResponseFormatRejected:
                        if candidate == "prompt":
                            raise
                        self.rejected_calls += 1
                        continue
                    self._remember(candidate)
                    return reply

    def _remember(self, mode: OutputMode) -> None:
        _KNOWN_MODES[self.client.endpoint] = mode
        self.client.cache.put_mode(self.client.endpoint, mode)

    async def _call(
        self,
        mode: OutputMode,
        messages: list[Message],
        model: type[BaseModel],
        salt: int,
        metric: str | None,
        case_id: str | None,
    ) -> ChatResponse:
        _, schema_text = _cached_schema(model)
        if mode != "json_schema":
            instruction = SCHEMA_INSTRUCTION.replace("$name", model.__name__)
            messages = _with_instruction(messages, instruction.replace("$schema", schema_text))
        return await self.client.complete(
            messages,
            response_format=response_format(mode, model),
            metric=metric,
            case_id=case_id,
            salt=salt,
        )


@functools.cache
def response_format(mode: OutputMode, model: type[BaseModel]) -> dict[str, Any] | None:
    """The `response_format` a call in `mode` sends for `model` (None in `prompt` mode): one
    object per mode and class, never changed, so the client renders it for its cache keys once."""
    if mode == "json_schema":
        schema, _ = _cached_schema(model)
        return {
            "type": "json_schema",
            "json_schema": {"name": model.__name__, "schema": schema, "strict": True},
        }
    return {"type": "json_object"} if mode == "json_object" else None


def _with_instruction(messages: list[Message], instruction: str) -> list[Message]:
    out = [dict(m) for m in messages]
    if out and out[0]["role"] == "system":
        out[0]["content"] = f"{out[0]['content']}\n\n{instruction}"
    else:
        out.insert(0, {"role": "system", "content": instruction})
    return out


def _parse(
    text: str, model: type[M], check: Callable[[M], str | None] | None
) -> tuple[M | None, str | None]:
    try:
        data = extract_json(text)
    except ValueError as exc:
        return None, f"invalid JSON from judge: {exc}"
    try:
        value = model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(root)"
        return None, f"judge output does not match the schema: {where}: {first['msg']}"
    if check is not None:
        problem = check(value)
        if problem:
            return None, problem
    return value, None
