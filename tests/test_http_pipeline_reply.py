"""An HTTP pipeline's reply is read only up to a limit (issue 30): a runaway endpoint fails its
case with a reason naming the limit and how to raise it, instead of being read whole."""

from __future__ import annotations

import gzip
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any, ClassVar

import pytest

from local_http import serving
from ragmeter._exceptions import ConfigError, PipelineError
from ragmeter.cases import Case
from ragmeter.pipeline import DEFAULT_MAX_BODY_BYTES, HttpPipeline

CASE = Case(id="q1", question="What is the refund window?")
CHUNK = 65_536
STREAMED = 64 * 1024 * 1024  # what the endpoint would send if it were read whole


class RunawayHandler(BaseHTTPRequestHandler):
    """/stream: a valid JSON reply of 64 MB, streamed with no length; /announced: a reply whose
    Content-Length says 64 MB; /gzip: 8 MB of JSON gzipped to a few KB; /small: a 2 MB reply;
    /fail: a 500 with a 1 MB body. Counts what each reply got out."""

    sent: ClassVar[dict[str, int]] = {}
    finished: ClassVar[threading.Event] = threading.Event()

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        sent = 0
        try:
            if self.path == "/stream":
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Connection", "close")
                self.end_headers()
                for piece in _json_reply(STREAMED):
                    self.wfile.write(piece)
                    sent += len(piece)
            elif self.path == "/announced":
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(STREAMED))
                self.end_headers()
                for piece in _json_reply(STREAMED):
                    self.wfile.write(piece)
                    sent += len(piece)
            elif self.path == "/gzip":
                body = gzip.compress(b"".join(_json_reply(8 * 1024 * 1024)))
                self._send(200, body, {"Content-Encoding": "gzip"})
                sent = len(body)
            elif self.path == "/small":
                body = b"".join(_json_reply(2 * 1024 * 1024))
                self._send(200, body)
                sent = len(body)
            elif self.path == "/fail":
                body = b"index crashed " + b"x" * (1024 * 1024)
                self._send(500, body, {"Content-Type": "text/plain"})
                sent = len(body)
        except OSError:  # the client hung up: what it refused to read was not sent
            pass
        self.sent[self.path] = sent
        self.finished.set()

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def _json_reply(size: int) -> Iterator[bytes]:
    """`{"contexts": ["xxx…"], "answer": "30 days."}` of about `size` bytes, a chunk at a time."""
    yield b'{"answer": "30 days.", "contexts": ["'
    for _ in range(size // CHUNK):
        yield b"x" * CHUNK
    yield b'"]}'


@pytest.fixture
def url() -> Iterator[str]:
    RunawayHandler.sent = {}
    RunawayHandler.finished = threading.Event()
    with serving(RunawayHandler) as base:
        yield base


@pytest.mark.parametrize(
    ("path", "cut"),
    [
        ("/stream", "sent a reply larger than the 1,000,000-byte limit: read no further"),
        ("/announced", "announced a reply of 67,108,864 bytes, above the 1,000,000-byte limit"),
        ("/gzip", "sent a reply larger than the 1,000,000-byte limit: read no further"),
    ],
)
async def test_a_reply_past_the_limit_fails_its_case_unread(url: str, path: str, cut: str) -> None:
    async with HttpPipeline(url + path, max_body_bytes=1_000_000) as pipeline:
        with pytest.raises(PipelineError) as info:
            await pipeline.run(CASE)
    assert str(info.value) == (
        f"pipeline {url}{path} (case 'q1') {cut}{': not read' if 'announced' in cut else ''} "
        "(set RAGMETER_MAX_PIPELINE_BYTES to raise it)"
    )
    if path != "/gzip":  # the endpoint could not send it all: the client stopped reading
        assert RunawayHandler.finished.wait(60)  # a guard: the server gives up once cut off
        assert RunawayHandler.sent[path] < STREAMED // 2


async def test_the_limit_comes_from_the_environment(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with HttpPipeline(url + "/small") as pipeline:
        assert pipeline.max_body_bytes == DEFAULT_MAX_BODY_BYTES
        output = await pipeline.run(CASE)  # 2 MB: well within 32 MB
    assert output.answer == "30 days." and len(output.contexts[0]) == 2 * 1024 * 1024
    monkeypatch.setenv("RAGMETER_MAX_PIPELINE_BYTES", "1_000_000")
    async with HttpPipeline(url + "/small") as pipeline:
        with pytest.raises(PipelineError, match="above the 1,000,000-byte limit"):
            await pipeline.run(CASE)
    monkeypatch.setenv("RAGMETER_MAX_PIPELINE_BYTES", "lots")
    with pytest.raises(ConfigError, match="RAGMETER_MAX_PIPELINE_BYTES must be a whole number"):
        HttpPipeline(url + "/small")


async def test_an_error_reply_is_quoted_from_its_first_bytes(url: str) -> None:
    async with HttpPipeline(url + "/fail") as pipeline:
        with pytest.raises(PipelineError) as info:
            await pipeline.run(CASE)
    assert f"answered HTTP 500 Internal Server Error: index crashed {'x' * 100}" in str(info.value)


def test_the_default_limit_holds_a_case_at_the_text_limit() -> None:
    # 2M characters of Chinese contexts escaped as \\uXXXX (6 bytes each) and a long answer.
    case_at_the_limit = json.dumps({"contexts": ["退" * 2_000_000], "answer": "款" * 500_000})
    assert len(case_at_the_limit.encode()) < DEFAULT_MAX_BODY_BYTES
