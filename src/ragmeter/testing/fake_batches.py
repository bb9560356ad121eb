"""The batch API of the fake server: ``/v1/files`` and ``/v1/batches``, as OpenAI serves them.

A batch input file holds one request per line (``{"custom_id", "method", "url", "body"}``, the
format vLLM's batch runner reads too). A created batch stays ``in_progress`` for ``delay``
seconds, then every line is answered by the server's own chat path (so responders and
:class:`~ragmeter.testing.Fault` apply to lines too) and the batch is ``completed``: replies
with status 200 go to the output file, the others to the error file. :class:`BatchFault`
makes a whole batch fail (validation) or expire part-way.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any, Literal

ChatFn = Callable[[dict[str, Any], str, str], tuple[int, dict[str, Any]]]
"""Answers one chat body for a batch line: (body, batch id, api key) → (status, payload)."""
Reply = tuple[int, dict[str, str], "dict[str, Any] | bytes"]

BatchFaultKind = Literal["failed", "expired"]


@dataclass
class BatchFault:
    """A fault injected into the next batches created (``times`` of them; None: all).

    ``failed``: the batch fails validation (no output file, ``errors`` says why); ``expired``:
    the completion window runs out after ``done_share`` of its lines were answered, the rest
    are in the error file with code ``batch_expired``.
    """

    kind: BatchFaultKind
    times: int | None = 1
    done_share: float = 0.5
    fired: int = 0


@dataclass
class _File:
    id: str
    filename: str
    purpose: str
    data: bytes
    created_at: int

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "file",
            "bytes": len(self.data),
            "created_at": self.created_at,
            "filename": self.filename,
            "purpose": self.purpose,
            "status": "processed",
        }


@dataclass
class FakeBatch:
    """One batch the server was asked to run."""

    id: str
    input_file_id: str
    endpoint: str
    completion_window: str
    created_at: int
    api_key: str
    lines: int = 0
    status: str = "validating"
    output_file_id: str | None = None
    error_file_id: str | None = None
    errors: list[dict[str, Any]] | None = None
    completed: int = 0
    failed: int = 0
    metadata: dict[str, Any] | None = None
    cancel: threading.Event = field(default_factory=threading.Event, repr=False)

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "batch",
            "endpoint": self.endpoint,
            "input_file_id": self.input_file_id,
            "completion_window": self.completion_window,
            "status": self.status,
            "created_at": self.created_at,
            "output_file_id": self.output_file_id,
            "error_file_id": self.error_file_id,
            "errors": {"object": "list", "data": self.errors} if self.errors else None,
            "request_counts": {
                "total": self.lines,
                "completed": self.completed,
                "failed": self.failed,
            },
            "metadata": self.metadata,
        }


class BatchDesk:
    """Files and batches of one fake server; thread-safe. ``delay`` is how long a batch stays
    in progress before its lines are answered."""

    def __init__(self, chat: ChatFn, *, delay: float = 0.2, faults: list[BatchFault]) -> None:
        self._chat = chat
        self.delay = delay
        self.faults = faults
        self.files: dict[str, _File] = {}
        self.batches: dict[str, FakeBatch] = {}
        self.uploads: list[str] = []
        """Ids of the files uploaded, in order."""
        self._lock = threading.Lock()
        self._workers: list[threading.Thread] = []

    # ---- routes ----------------------------------------------------------------------------

    def route(
        self, method: str, path: str, body: dict[str, Any], api_key: str, upload: Any
    ) -> Reply | None:
        """The reply to a files or batches request, None for another path."""
        parts = [p for p in path.split("?", 1)[0].split("/") if p]
        if parts and parts[0] == "v1":
            parts = parts[1:]
        if not parts or parts[0] not in ("files", "batches"):
            return None
        if parts[0] == "files":
            if method == "POST" and len(parts) == 1:
                return self._upload(upload)
            if method == "GET" and len(parts) == 2:
                return self._with_file(parts[1], lambda f: (200, {}, f.as_json()))
            if method == "GET" and len(parts) == 3 and parts[2] == "content":
                return self._with_file(parts[1], lambda f: (200, _JSONL, f.data))
        else:
            if method == "POST" and len(parts) == 1:
                return self._create(body, api_key)
            if method == "GET" and len(parts) == 2:
                return self._with_batch(parts[1], lambda b: (200, {}, b.as_json()))
            if method == "POST" and len(parts) == 3 and parts[2] == "cancel":
                return self._with_batch(parts[1], self._cancel)
        return 404, {}, _error(f"no route {method} {path}", "invalid_request_error")

    def _with_file(self, file_id: str, then: Callable[[_File], Reply]) -> Reply:
        with self._lock:
            found = self.files.get(file_id)
        if found is None:
            return 404, {}, _error(f"No such File object: {file_id}", "invalid_request_error")
        return then(found)

    def _with_batch(self, batch_id: str, then: Callable[[FakeBatch], Reply]) -> Reply:
        with self._lock:
            found = self.batches.get(batch_id)
            if found is None:
                return 404, {}, _error(f"No such Batch: {batch_id}", "invalid_request_error")
            return then(found)

    def _store(self, filename: str, purpose: str, data: bytes) -> _File:
        with self._lock:
            file = _File(f"file-fake-{len(self.files)}", filename, purpose, data, int(time.time()))
            self.files[file.id] = file
        return file

    def _upload(self, upload: Any) -> Reply:
        if not isinstance(upload, dict) or "file" not in upload:
            return 400, {}, _error("expected a multipart upload with a 'file' part", "invalid")
        filename, data = upload["file"]
        purpose = str(upload.get("purpose") or "")
        if purpose != "batch":
            return 400, {}, _error(f"purpose {purpose!r} is not supported here", "invalid")
        file = self._store(filename, purpose, data)
        with self._lock:
            self.uploads.append(file.id)
        return 200, {}, file.as_json()

    def _create(self, body: dict[str, Any], api_key: str) -> Reply:
        file_id = str(body.get("input_file_id") or "")
        endpoint = str(body.get("endpoint") or "")
        if endpoint != "/v1/chat/completions":
            return 400, {}, _error(f"endpoint {endpoint!r} is not supported", "invalid")
        with self._lock:
            if file_id not in self.files:
                return 404, {}, _error(f"No such File object: {file_id}", "invalid")
            batch = FakeBatch(
                id=f"batch_fake_{len(self.batches)}",
                input_file_id=file_id,
                endpoint=endpoint,
                completion_window=str(body.get("completion_window") or "24h"),
                created_at=int(time.time()),
                api_key=api_key,
                metadata=body.get("metadata"),
            )
            self.batches[batch.id] = batch
            fault = self._pick_fault()
            worker = threading.Thread(target=self._run, args=(batch, fault), daemon=True)
            self._workers.append(worker)
            return_value = batch.as_json()
        worker.start()
        return 200, {}, return_value

    def _cancel(self, batch: FakeBatch) -> Reply:
        if batch.status in ("validating", "in_progress"):
            batch.status = "cancelling"
            batch.cancel.set()
        return 200, {}, batch.as_json()

    def _pick_fault(self) -> BatchFault | None:
        for fault in self.faults:
            if fault.times is None or fault.fired < fault.times:
                fault.fired += 1
                return fault
        return None

    # ---- running a batch -------------------------------------------------------------------

    def _run(self, batch: FakeBatch, fault: BatchFault | None) -> None:
        with self._lock:
            data = self.files[batch.input_file_id].data
        requests, problems = _read_input(data)
        with self._lock:
            batch.lines = len(requests)
            if problems or (fault is not None and fault.kind == "failed"):
                batch.status = "failed"
                batch.errors = problems or [
                    {"code": "invalid_request", "message": "injected batch failure", "line": 1}
                ]
                return
            batch.status = "in_progress"
        if batch.cancel.wait(self.delay):
            self._finish(batch, [], [], "cancelled")
            return
        answer_upto = len(requests)
        if fault is not None and fault.kind == "expired":
            answer_upto = int(len(requests) * fault.done_share)
        output: list[str] = []
        errors: list[str] = []
        for n, request in enumerate(requests):
            custom_id = request["custom_id"]
            if n >= answer_upto or batch.cancel.is_set():
                why, message = (
                    ("batch_cancelled", "The batch was cancelled before this request ran.")
                    if batch.cancel.is_set()
                    else (
                        "batch_expired",
                        "This request could not be executed before the completion window expired.",
                    )
                )
                errors.append(_line(n, custom_id, None, {"code": why, "message": message}))
                continue
            code, payload = self._chat(request["body"], batch.id, batch.api_key)
            reply = {"status_code": code, "request_id": f"req_{batch.id}_{n}", "body": payload}
            (output if code == 200 else errors).append(_line(n, custom_id, reply, None))
            with self._lock:
                if code == 200:
                    batch.completed += 1
                else:
                    batch.failed += 1
        status = "cancelled" if batch.cancel.is_set() else "completed"
        if fault is not None and fault.kind == "expired":
            status = "expired"
        self._finish(batch, output, errors, status)

    def _finish(self, batch: FakeBatch, output: list[str], errors: list[str], status: str) -> None:
        out = self._store(f"{batch.id}_output.jsonl", "batch_output", _joined(output))
        err = self._store(f"{batch.id}_errors.jsonl", "batch_output", _joined(errors))
        with self._lock:
            batch.output_file_id = out.id if output else None
            batch.error_file_id = err.id if errors else None
            batch.failed = len(errors)
            batch.status = status

    def wait(self, timeout: float = 10.0) -> None:
        """Wait until every batch created so far has finished (tests)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            workers = list(self._workers)
        for worker in workers:
            worker.join(max(0.0, deadline - time.monotonic()))


_JSONL = {"Content-Type": "application/jsonl"}


def _error(message: str, kind: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind}}


def _line(n: int, custom_id: str, response: Any, error: Any) -> str:
    record = {"id": f"batch_req_{n}", "custom_id": custom_id, "response": response, "error": error}
    return json.dumps(record, ensure_ascii=False)


def _joined(lines: list[str]) -> bytes:
    return "".join(line + "\n" for line in lines).encode("utf-8")


def _read_input(data: bytes) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The requests of a batch input file, and its problems as OpenAI lists them (each with
    its 1-based line): not JSON, a field missing, a custom_id repeated, another URL."""
    requests: list[dict[str, Any]] = []
    problems: list[dict[str, Any]] = []
    seen: set[str] = set()
    for number, raw in enumerate(data.decode("utf-8", "replace").splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
        except json.JSONDecodeError as exc:
            problems.append({"code": "invalid_json", "message": str(exc), "line": number})
            continue
        if not isinstance(record, dict):
            problems.append({"code": "invalid_request", "message": "not an object", "line": number})
            continue
        custom_id = record.get("custom_id")
        if not isinstance(custom_id, str) or not custom_id:
            problems.append({"code": "missing_custom_id", "message": "custom_id", "line": number})
        elif custom_id in seen:
            message = f"duplicate custom_id {custom_id!r}"
            problems.append({"code": "duplicate_custom_id", "message": message, "line": number})
        if record.get("method") != "POST" or record.get("url") != "/v1/chat/completions":
            message = "method must be POST and url /v1/chat/completions"
            problems.append({"code": "invalid_url", "message": message, "line": number})
        if not isinstance(record.get("body"), dict):
            problems.append({"code": "invalid_body", "message": "body", "line": number})
        if isinstance(custom_id, str):
            seen.add(custom_id)
        requests.append(record)
    if not requests and not problems:
        problems.append({"code": "empty_file", "message": "the input file is empty", "line": 1})
    return requests, problems


def parse_multipart(content_type: str, raw: bytes) -> dict[str, Any]:
    """The parts of a ``multipart/form-data`` body: text fields as str, files as
    ``(filename, bytes)``."""
    message = BytesParser(policy=HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode("latin-1") + raw
    )
    fields: dict[str, Any] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if not isinstance(name, str):
            continue
        payload = part.get_payload(decode=True)
        data = payload if isinstance(payload, bytes) else b""
        filename = part.get_filename()
        fields[name] = (filename, data) if filename is not None else data.decode("utf-8")
    return fields
