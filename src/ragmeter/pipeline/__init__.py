"""Adapters that turn a user's RAG pipeline into (contexts, answer) for each case (an answers
file's, with its questions or without, is read by `pipeline.answers`).

A :class:`Pipeline` has a `name` and an `async run(case)`; :class:`PipelineBase` adds a
`timeout` and an `async aclose()` with defaults (every pipeline behind `ragmeter.api` is one; a
pipeline that is not gets adapted there, once). Built in: a Python callable
(:class:`CallablePipeline`, :func:`load_callable`), an HTTP endpoint
(:class:`HttpPipeline`), a file of precomputed answers (:class:`AnswersFilePipeline`), and the
eval file's own RAGAS-style answers (:class:`PrecomputedPipeline`). Every failure of the user's
side becomes a :class:`PipelineError` naming the case and what was wrong.

Each case gets a total deadline (:func:`run_case`, the pipeline's `timeout`, by default
:data:`DEFAULT_TIMEOUT`); a case past it raises :class:`PipelineTimeout` and the run goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import importlib
import inspect
import json
import os
import sys
import threading
import traceback
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field

from .._exceptions import CaseFileError, ConfigError, PipelineError
from .._util import deadline as _deadline
from ..cases import Case, read_records, record_fields, validate_record

if TYPE_CHECKING:
    import httpx

OUTPUT_ALIASES: dict[str, str] = {"retrieved_contexts": "contexts", "response": "answer"}
"""RAGAS names accepted in pipeline outputs and answers files."""

DEFAULT_TIMEOUT = 120.0
"""Seconds one case may spend in the pipeline, whatever its kind (`--timeout`): room for a
local model generating a long answer on a CPU, while a hung case holds a slot 2 minutes at most."""

T = TypeVar("T")


class PipelineRaised(PipelineError):
    """The user's own code raised (its exception is the `__cause__`, traceback and all)."""


class PipelineTimeout(PipelineError):
    """The pipeline did not answer one case within its total deadline."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        # No case id or pipeline name: every timeout of a run reads (and aggregates) the same.
        super().__init__(f"pipeline timed out after {seconds:g} s")


async def within(seconds: float | None, awaitable: Awaitable[T]) -> T:
    """`awaitable`'s result, or :class:`PipelineTimeout` once `seconds` have passed in total
    (None: no deadline). A `TimeoutError` the awaitable raises itself passes through as is."""
    try:
        return await _deadline.within(seconds, awaitable)
    except _deadline.DeadlinePassed as exc:
        raise PipelineTimeout(exc.seconds) from None


def check_timeout(seconds: float | None) -> float | None:
    """`seconds` if it is a usable deadline (positive, finite) or None; else ConfigError."""
    if seconds is not None and not 0 < seconds < float("inf"):
        raise ConfigError(f"--timeout must be a positive number of seconds, not {seconds:g}")
    return seconds


class PipelineOutput(BaseModel):
    """What a pipeline produced for one case."""

    contexts: list[str]
    """Retrieved chunks, best-ranked first."""
    answer: str
    """The generated answer."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Anything else the pipeline wants kept with the result (scores, ids, timings)."""


@runtime_checkable
class Pipeline(Protocol):
    """What a RAG pipeline under test must provide: the contract a pipeline is written against.

    A pipeline has a `name` and `async run(case)`. Subclass :class:`PipelineBase` for the
    rest (`timeout`, `aclose`) with defaults; a pipeline that only satisfies this protocol is
    adapted once, where it enters (`ragmeter.api`), and its own `timeout` and `aclose` are
    used when it has them.
    """

    name: str
    """Shown in reports and stored with results."""

    async def run(self, case: Case) -> PipelineOutput:
        """Answer one case; raise :class:`PipelineError` on any failure."""
        ...


class PipelineBase(ABC):
    """Base class of pipelines, and everything ragmeter uses of one: implement `name` and
    `run` (the :class:`Pipeline` protocol); `timeout` defaults to :data:`DEFAULT_TIMEOUT` and
    `aclose` releases nothing. Behind `ragmeter.api` every pipeline is one of these."""

    name: str
    """Shown in reports and stored with results."""

    timeout: float | None = DEFAULT_TIMEOUT
    """Seconds one case may take in total, enforced by :func:`run_case`; None for no limit."""

    @abstractmethod
    async def run(self, case: Case) -> PipelineOutput:
        """Answer one case; raise :class:`PipelineError` on any failure."""

    async def aclose(self) -> None:  # noqa: B027 (a default, not abstract)
        """Release connections, threads, files; called once when the run ends. Nothing to
        release here."""


if TYPE_CHECKING:

    def _conforms(pipeline: PipelineBase) -> Pipeline:
        return pipeline  # mypy checks that every PipelineBase satisfies the Pipeline protocol


async def run_case(pipeline: PipelineBase, case: Case) -> PipelineOutput:
    """`pipeline.run(case)` under the pipeline's total deadline (its `timeout`); raises
    :class:`PipelineTimeout` when it passes."""
    return await within(pipeline.timeout, pipeline.run(case))


def coerce_output(result: object, source: str) -> PipelineOutput:
    """Turn what a user's pipeline returned into a :class:`PipelineOutput`, or say what is wrong.

    Accepts a mapping with `contexts` and `answer` (or `retrieved_contexts`, `response`), a
    `(contexts, answer)` tuple, or an object with `contexts` and `answer` attributes.
    """
    if isinstance(result, PipelineOutput):
        return result
    expected = (
        "return a dict {'contexts': [...], 'answer': '...'}, a (contexts, answer) tuple, "
        "or an object with .contexts and .answer"
    )
    metadata: object = {}
    if isinstance(result, Mapping):
        fields = {OUTPUT_ALIASES.get(str(k), str(k)): v for k, v in result.items()}
        missing = [k for k in ("contexts", "answer") if k not in fields]
        if missing:
            keys = ", ".join(map(str, result)) or "none"
            raise PipelineError(
                f"{source} returned a mapping without {' or '.join(missing)} (keys: {keys}); "
                f"{expected}"
            )
        contexts, answer = fields["contexts"], fields["answer"]
        metadata = fields.get("metadata") or {}
    elif isinstance(result, tuple | list) and len(result) == 2:
        contexts, answer = result
    elif hasattr(result, "contexts") and hasattr(result, "answer"):
        contexts, answer = result.contexts, result.answer
        metadata = getattr(result, "metadata", None) or {}
    else:
        raise PipelineError(f"{source} returned {_describe(result)}; {expected}")
    if isinstance(contexts, tuple):
        contexts = list(contexts)
    if not isinstance(contexts, list):
        raise PipelineError(
            f"{source} returned contexts as {_describe(contexts)}; contexts must be a list "
            "of strings (the retrieved chunks, best first)"
        )
    for i, chunk in enumerate(contexts):
        if not isinstance(chunk, str):
            raise PipelineError(
                f"{source} returned contexts[{i}] as {_describe(chunk)}; contexts must be a list "
                f"of strings{_text_hint(chunk)}"
            )
    if not isinstance(answer, str):
        raise PipelineError(
            f"{source} returned the answer as {_describe(answer)}; the answer must be a string"
        )
    if not isinstance(metadata, Mapping):
        raise PipelineError(f"{source} returned metadata as {_describe(metadata)}; use a dict")
    return PipelineOutput(contexts=contexts, answer=answer, metadata=dict(metadata))


def cancelled_from_outside() -> bool:
    """Whether the running task was asked to stop (its deadline, the run ending, Ctrl-C), as
    opposed to a CancelledError the user's own code let out (an inner task it cancelled)."""
    task = asyncio.current_task()
    return task is None or task.cancelling() > 0


def is_ctrl_c(exc: BaseException) -> bool:
    """Whether `exc` may be the user pressing Ctrl-C rather than a pipeline's own raise: a
    KeyboardInterrupt in the main thread, where Python raises it on SIGINT (ragmeter's own
    loop runs elsewhere, so this is a caller running its loop in the main thread)."""
    in_main_thread = threading.current_thread() is threading.main_thread()
    return isinstance(exc, KeyboardInterrupt) and in_main_thread


def describe_error(exc: BaseException) -> str:
    """What a user's code raised, in words: `RuntimeError: index missing`, or for an exit
    `SystemExit(2)` (a bare `SystemExit: 2` reads like a message)."""
    if isinstance(exc, SystemExit):
        return f"SystemExit({exc.code!r})"
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


TRACEBACK_FRAMES = 5
"""Frames of a user's traceback kept with the case (the innermost ones)."""

# The ragmeter package's directory (this module is in its pipeline/), as its frames name it.
_OWN_CODE = os.path.dirname(os.path.dirname(__file__)) + os.sep


def last_frames(exc: BaseException, frames: int = TRACEBACK_FRAMES) -> str:
    """The innermost `frames` frames of `exc`'s traceback outside ragmeter's own code (all of
    them when none is), with the exception's line, as Python prints them."""
    stack = traceback.extract_tb(exc.__traceback__)
    theirs = [frame for frame in stack if not frame.filename.startswith(_OWN_CODE)] or stack
    shown = traceback.StackSummary.from_list(theirs[-frames:]).format()
    return "".join([*shown, *traceback.format_exception_only(exc)]).rstrip("\n")


def _describe(value: object) -> str:
    text = repr(value)
    text = text if len(text) <= 60 else text[:57] + "..."
    return f"{type(value).__name__} {text}"


def _text_hint(chunk: object) -> str:
    for attr in ("page_content", "text"):  # LangChain Document, LlamaIndex node
        if isinstance(getattr(chunk, attr, None), str):
            return f" (return each chunk's text, e.g. chunk.{attr})"
    return ""


class CallablePipeline(PipelineBase):
    """A Python function `fn(question, history)`, sync or async, as a pipeline.

    `history` is a list of `{"role", "content"}` dicts, oldest first. Sync functions run in a
    thread of their own so they do not block other cases. `timeout` is the seconds one case
    may take (None: no limit), enforced by :func:`run_case`.
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,
    ) -> None:
        if not callable(fn):
            raise ConfigError(f"pipeline {fn!r} is not callable")
        self.fn = fn
        self.name = name or _callable_name(fn)
        self.timeout = check_timeout(timeout)
        self._is_async = inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
            type(fn).__call__  # an object with an async __call__
        )

    @classmethod
    def from_spec(cls, spec: str, *, timeout: float | None = DEFAULT_TIMEOUT) -> CallablePipeline:
        """Load `package.module:function` and wrap it; the pipeline is named after `spec`."""
        return cls(load_callable(spec), name=spec, timeout=timeout)

    async def run(self, case: Case) -> PipelineOutput:
        history = [turn.model_dump() for turn in case.history]
        source = f"pipeline {self.name} (case '{case.id}')"
        try:
            if self._is_async:
                result = await self.fn(case.question, history)
            else:
                result = await _in_daemon_thread(self.fn, case.question, history)
                if inspect.isawaitable(result):
                    result = await result
        except BaseException as exc:  # sys.exit, an argparse error, KeyboardInterrupt too
            if is_ctrl_c(exc) or (
                isinstance(exc, asyncio.CancelledError) and cancelled_from_outside()
            ):
                raise  # the user's Ctrl-C, the case's deadline, or the run stopping
            raise PipelineRaised(f"{source} raised {describe_error(exc)}") from exc
        return coerce_output(result, source)

    async def aclose(self) -> None:
        """Nothing to release; present so every adapter can be closed the same way."""


async def _in_daemon_thread(fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)` in a new daemon thread, awaited without blocking the loop.

    Not `asyncio.to_thread`: a call that hangs would keep a slot of the shared default executor
    after its case timed out (enough of them starve every later case), and `asyncio.run` and
    interpreter exit join those threads, so Ctrl-C could not stop the run. Python cannot kill a
    thread; a daemon one is simply abandoned when its case times out or the run stops.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()
    context = contextvars.copy_context()  # as to_thread does

    def settle(result: Any, error: BaseException | None) -> None:
        if future.done():  # timed out or cancelled meanwhile
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def work() -> None:
        result: Any = None
        error: BaseException | None = None
        try:
            result = context.run(fn, *args)
        except BaseException as exc:  # handed to the awaiting case, as to_thread does
            error = exc
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
            loop.call_soon_threadsafe(settle, result, error)

    name = f"ragmeter-pipeline-{getattr(fn, '__name__', type(fn).__name__)}"
    threading.Thread(target=work, name=name, daemon=True).start()
    return await future


def _callable_name(fn: Callable[..., Any]) -> str:
    module = getattr(fn, "__module__", None)
    qualname = getattr(fn, "__qualname__", None) or type(fn).__qualname__
    return f"{module}:{qualname}" if module else qualname


def load_callable(spec: str) -> Callable[..., Any]:
    """Import `package.module:function` (or `module:object.method`) and return the callable
    (see :func:`load_target`); ConfigError when it is not callable."""
    target = load_target(spec)
    if not callable(target):
        raise ConfigError(
            f"'{spec}' is a {type(target).__name__}, not a function; point to a function "
            "taking (question, history) and returning contexts and answer"
        )
    return target


def load_target(spec: str) -> Any:
    """Import `package.module:name` (or `module:object.attribute`) and return what it names.

    The current directory is put on `sys.path` first, so a `my_rag.py` beside the eval set
    loads as `my_rag:answer`. Raises :class:`ConfigError` with what to fix.
    """
    module_name, sep, attr_path = spec.partition(":")
    if not sep or not module_name or not attr_path:
        raise ConfigError(
            f"pipeline '{spec}' is not of the form 'module:function', e.g. 'my_rag:answer'"
        )
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.insert(0, cwd)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and (module_name == exc.name or module_name.startswith(exc.name + ".")):
            raise ConfigError(
                f"cannot import module '{module_name}' for pipeline '{spec}': no such module "
                f"in {cwd} or the installed packages; check the name, or run from the "
                "directory that contains it"
            ) from exc
        raise ConfigError(
            f"importing '{module_name}' for pipeline '{spec}' failed: {exc}; install the "
            "missing package in this environment"
        ) from exc
    except (Exception, SystemExit) as exc:
        hint = ""
        if isinstance(exc, SystemExit):  # often a script's parse_args() reading ragmeter's argv
            hint = "; the module exits when imported: keep its argparse or sys.exit under "
            hint += "`if __name__ == '__main__':`"
        raise ConfigError(
            f"importing '{module_name}' for pipeline '{spec}' raised {describe_error(exc)}{hint}"
        ) from exc
    target: Any = module
    for part in attr_path.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise ConfigError(
                f"module '{module_name}' has no attribute '{attr_path}' (pipeline '{spec}'); "
                "check the function name after the ':'"
            ) from None
    return target


MAX_BODY_ENV_VAR = "RAGMETER_MAX_PIPELINE_BYTES"
DEFAULT_MAX_BODY_BYTES = 32_000_000
"""Largest reply an HTTP pipeline may send for one case, in bytes (decompressed): room for
a case at the text limit (`ragmeter.run.limits`, 2M characters), Chinese escaped as `\\uXXXX`
included, while a runaway endpoint costs a bounded read, not gigabytes of memory."""

_ERROR_BODY_BYTES = 65_536
"""What is read of an HTTP error reply: enough for the snippet the error quotes."""


def reply_limit(limit: int | None = None) -> int:
    """The HTTP pipeline reply limit in effect: `limit` when given, else
    ``RAGMETER_MAX_PIPELINE_BYTES``, else the default. ConfigError when it is not a positive
    whole number."""
    if limit is None:
        raw = os.environ.get(MAX_BODY_ENV_VAR, "").strip().replace("_", "").replace(",", "")
        if not raw:
            return DEFAULT_MAX_BODY_BYTES
        if not raw.isdigit():
            raise ConfigError(f"{MAX_BODY_ENV_VAR} must be a whole number of bytes, not {raw!r}")
        limit = int(raw)
    if limit <= 0:
        raise ConfigError(f"the pipeline reply limit must be a positive number of bytes: {limit}")
    return limit


class HttpPipeline(PipelineBase):
    """A pipeline behind an HTTP endpoint.

    Each case is POSTed as JSON `{"id", "question", "history", "metadata"}`; the reply must be
    JSON `{"contexts": [...], "answer": "..."}` (`retrieved_contexts` / `response` accepted).
    `timeout` is a total deadline per call, reply included (an endpoint that sends a byte now
    and then cannot hold a case longer). A reply is read up to `max_body_bytes` (default
    :data:`DEFAULT_MAX_BODY_BYTES`, or ``RAGMETER_MAX_PIPELINE_BYTES``); a longer one fails
    its case, read no further.
    """

    def __init__(
        self,
        url: str,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        headers: Mapping[str, str] | None = None,
        max_body_bytes: int | None = None,
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ConfigError(f"pipeline URL '{url}' must start with http:// or https://")
        self.url = url
        self.timeout = check_timeout(timeout)
        self.max_body_bytes = reply_limit(max_body_bytes)
        self.headers = dict(headers or {})
        # Credentials may sit in the userinfo or the query string: keep them out of the name.
        host = parts.hostname or ""
        netloc = f"{host}:{parts.port}" if parts.port else host
        self.name = urlunsplit((parts.scheme, netloc, parts.path, "", ""))
        self._client: httpx.AsyncClient | None = None

    async def run(self, case: Case) -> PipelineOutput:
        import httpx

        if self._client is None:
            self._client = httpx.AsyncClient(timeout=self.timeout, headers=self.headers)
        source = f"pipeline {self.name} (case '{case.id}')"
        payload = {
            "id": case.id,
            "question": case.question,
            "history": [turn.model_dump() for turn in case.history],
            "metadata": case.metadata,
        }
        try:
            # httpx's timeout bounds each read, not the call: a slow drip would never trip it.
            response, content = await within(self.timeout, self._post(payload, source))
        except httpx.TimeoutException as exc:  # only with a timeout: None turns them off
            raise PipelineTimeout(self.timeout or 0.0) from exc
        except httpx.HTTPError as exc:
            raise PipelineError(f"{source} failed: {type(exc).__name__}: {exc}") from exc
        text = content.decode(response.encoding or "utf-8", errors="replace")
        if response.status_code >= 400:
            raise PipelineError(
                f"{source} answered HTTP {response.status_code} {response.reason_phrase}: "
                f"{_snippet(text)}"
            )
        try:
            body = json.loads(content)
        except ValueError as exc:
            raise PipelineError(
                f"{source} answered with something that is not JSON "
                f"(content-type {response.headers.get('content-type', 'none')}): "
                f"{_snippet(text)}"
            ) from exc
        if not isinstance(body, dict):
            raise PipelineError(
                f'{source} answered {_describe(body)}; reply with {{"contexts": [...], '
                '"answer": "..."}'
            )
        return coerce_output(body, source)

    async def _post(self, payload: dict[str, Any], source: str) -> tuple[httpx.Response, bytes]:
        """POST `payload`; the response and its body, read only up to the limit (of an error
        reply, only what its snippet needs)."""
        assert self._client is not None
        limit = self.max_body_bytes
        async with self._client.stream("POST", self.url, json=payload) as response:
            if response.status_code >= 400:
                limit = min(limit, _ERROR_BODY_BYTES)
            length = response.headers.get("content-length", "").strip()
            if response.status_code < 400 and length.isdigit() and int(length) > limit:
                raise self._too_large(source, int(length))
            body = bytearray()
            async for chunk in response.aiter_bytes():  # decompressed, a chunk at a time
                body += chunk
                if len(body) > limit:
                    if response.status_code >= 400:
                        del body[limit:]
                        break
                    raise self._too_large(source, None)
        return response, bytes(body)

    def _too_large(self, source: str, announced: int | None) -> PipelineError:
        limit = f"the {self.max_body_bytes:,}-byte limit"
        what = (
            f"announced a reply of {announced:,} bytes, above {limit}: not read"
            if announced is not None
            else f"sent a reply larger than {limit}: read no further"
        )
        return PipelineError(f"{source} {what} (set {MAX_BODY_ENV_VAR} to raise it)")

    async def aclose(self) -> None:
        """Close the HTTP connections."""
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def __aenter__(self) -> HttpPipeline:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


def _snippet(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return (text[:limit] + "...") if len(text) > limit else (text or "(empty body)")


class _AnswerRecord(BaseModel):
    # Other columns (question, reference, ...) are allowed so a RAGAS file can serve as is.
    model_config = ConfigDict(extra="ignore")

    id: str
    contexts: list[str]
    answer: str
    metadata: dict[str, Any] = Field(default_factory=dict)


class AnswersFilePipeline(PipelineBase):
    """Answers computed beforehand, one record per case: `id`, `contexts`, `answer`.

    The file (.jsonl, .json, .yaml/.yml, .csv) is read and validated when the adapter is made,
    so a broken file fails with :class:`CaseFileError` (file, line, field) before anything runs.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()
        self.name = f"answers:{self.path.name}"
        self._answers: dict[str, PipelineOutput] = {}
        first_line: dict[str, int] = {}
        records = read_records(
            self.path, json_columns={"contexts", "retrieved_contexts", "metadata"}
        )
        if not records:
            raise CaseFileError(self.path, "the file has no answers; add one record per case")
        for record in records:
            data, renamed = record_fields(self.path, record, OUTPUT_ALIASES)
            if isinstance(data.get("id"), int) and not isinstance(data["id"], bool):
                data["id"] = str(data["id"])
            if "id" not in data:
                raise CaseFileError(
                    self.path,
                    "missing id; each answer needs the id of the case it answers",
                    line=record.line,
                    field="id",
                )
            answer = validate_record(self.path, record, _AnswerRecord, data, renamed)
            if answer.id in first_line:
                raise CaseFileError(
                    self.path,
                    f"duplicate id '{answer.id}' (first used at line {first_line[answer.id]}); "
                    "keep one answer per case",
                    line=record.line,
                    field="id",
                )
            first_line[answer.id] = record.line
            self._answers[answer.id] = PipelineOutput(
                contexts=answer.contexts, answer=answer.answer, metadata=answer.metadata
            )

    @property
    def ids(self) -> set[str]:
        """Ids of the cases the file answers."""
        return set(self._answers)

    async def run(self, case: Case) -> PipelineOutput:
        try:
            return self._answers[case.id]
        except KeyError:
            raise PipelineError(
                f"no answer for case '{case.id}' in {self.path.name}; add a record with "
                f"id '{case.id}' or remove the case"
            ) from None

    async def aclose(self) -> None:
        """Nothing to release."""


class PrecomputedPipeline(PipelineBase):
    """The eval file's own `contexts` and `answer` (RAGAS `retrieved_contexts`, `response`).

    With `needs_contexts` False (only answer relevancy is judged, which reads the question
    and the answer), a case without contexts gets none."""

    name = "precomputed"

    def __init__(self, *, needs_contexts: bool = True) -> None:
        self.needs_contexts = needs_contexts

    async def run(self, case: Case) -> PipelineOutput:
        if case.contexts is None and not self.needs_contexts and case.answer is not None:
            return PipelineOutput(contexts=[], answer=case.answer)
        missing = [
            f"{field} (or {alias})"
            for field, alias in (("contexts", "retrieved_contexts"), ("answer", "response"))
            if getattr(case, field) is None
        ]
        if missing:
            raise PipelineError(
                f"case '{case.id}' has no precomputed {' and no '.join(missing)}; add them to "
                "the eval file, or run a real pipeline"
            )
        assert case.contexts is not None and case.answer is not None
        return PipelineOutput(contexts=case.contexts, answer=case.answer)

    async def aclose(self) -> None:
        """Nothing to release."""
