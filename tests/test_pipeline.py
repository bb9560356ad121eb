"""Pipeline adapters: Python callables, a real HTTP server, answers files, precomputed answers."""

from __future__ import annotations

import json
import socket
import sys
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from ragmeter._exceptions import CaseFileError, ConfigError, PipelineError
from ragmeter.cases import Case
from ragmeter.judges.base import Turn
from ragmeter.pipeline import (
    AnswersFilePipeline,
    CallablePipeline,
    HttpPipeline,
    Pipeline,
    PipelineOutput,
    PrecomputedPipeline,
    load_callable,
)

CASE = Case(
    id="q1",
    question="What is the refund window?",
    history=[
        Turn(role="user", content="Hi"),
        Turn(role="assistant", content="Hello, how can I help?"),
    ],
    metadata={"source": "faq"},
)


# --- callables ----------------------------------------------------------------------------


async def test_sync_callable_runs_in_a_thread_and_gets_history() -> None:
    seen: dict[str, Any] = {}

    def rag(question: str, history: list[dict[str, str]]) -> dict[str, Any]:
        seen.update(question=question, history=history, thread=threading.current_thread())
        return {"contexts": ["Refunds within 30 days."], "answer": "30 days.", "metadata": {"k": 3}}

    pipeline = CallablePipeline(rag, name="rag")
    output = await pipeline.run(CASE)
    assert output == PipelineOutput(
        contexts=["Refunds within 30 days."], answer="30 days.", metadata={"k": 3}
    )
    assert seen["question"] == CASE.question
    assert seen["history"] == [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello, how can I help?"},
    ]
    assert seen["thread"] is not threading.main_thread()
    assert pipeline.name == "rag"
    assert isinstance(pipeline, Pipeline)


async def test_async_callable_returning_a_tuple() -> None:
    async def rag(question: str, history: list[dict[str, str]]) -> tuple[list[str], str]:
        return (["chunk a", "chunk b"], f"{len(history)} turns before: {question}")

    output = await CallablePipeline(rag).run(CASE)
    assert output.contexts == ["chunk a", "chunk b"]
    assert output.answer == f"2 turns before: {CASE.question}"


async def test_callable_returning_an_object_or_ragas_keys() -> None:
    @dataclass
    class Result:
        contexts: list[str]
        answer: str

    output = await CallablePipeline(lambda q, h: Result(["c"], "a")).run(CASE)
    assert (output.contexts, output.answer) == (["c"], "a")
    output = await CallablePipeline(
        lambda q, h: {"retrieved_contexts": ("c1", "c2"), "response": "r"}
    ).run(CASE)
    assert (output.contexts, output.answer) == (["c1", "c2"], "r")


async def test_callable_that_raises() -> None:
    def rag(question: str, history: list[dict[str, str]]) -> Any:
        raise ValueError("index not built")

    with pytest.raises(PipelineError) as info:
        await CallablePipeline(rag, name="my_rag:answer").run(CASE)
    assert str(info.value) == (
        "pipeline my_rag:answer (case 'q1') raised ValueError: index not built"
    )
    assert isinstance(info.value.__cause__, ValueError)


async def test_async_callable_that_raises() -> None:
    async def rag(question: str, history: list[dict[str, str]]) -> Any:
        raise KeyError("top_k")

    with pytest.raises(PipelineError, match="raised KeyError: 'top_k'"):
        await CallablePipeline(rag).run(CASE)


@pytest.mark.parametrize(
    ("returned", "expected"),
    [
        ("just an answer", "returned str 'just an answer'; return a dict"),
        ({"contexts": ["c"]}, "a mapping without answer (keys: contexts)"),
        ({"contexts": "one chunk", "answer": "a"}, "contexts as str 'one chunk'"),
        ({"contexts": ["c", 3], "answer": "a"}, "contexts[1] as int 3"),
        ((["c"], None), "the answer as NoneType None"),
        (["c", "a", "b"], "returned list"),
        ({"contexts": [], "answer": "a", "metadata": [1]}, "metadata as list"),
    ],
)
async def test_callable_with_wrong_shape(returned: object, expected: str) -> None:
    with pytest.raises(PipelineError) as info:
        await CallablePipeline(lambda q, h: returned, name="rag").run(CASE)
    assert str(info.value).startswith("pipeline rag (case 'q1') ")
    assert expected in str(info.value)


async def test_document_objects_get_a_hint() -> None:
    @dataclass
    class Document:
        page_content: str

    with pytest.raises(PipelineError, match=r"contexts\[0\] as Document.*chunk\.page_content"):
        await CallablePipeline(lambda q, h: ([Document("x")], "a")).run(CASE)


# --- load_callable ------------------------------------------------------------------------


@pytest.fixture
def module_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh current directory; sys.path is restored afterwards."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    return tmp_path


def write_module(directory: Path, source: str) -> str:
    name = f"rag_{uuid.uuid4().hex[:8]}"
    (directory / f"{name}.py").write_text(source)
    return name


async def test_load_callable_from_current_directory(module_dir: Path) -> None:
    name = write_module(
        module_dir,
        "def answer(question, history):\n    return [question.upper()], 'ok'\n"
        "class Bot:\n    @staticmethod\n    def ask(question, history):\n"
        "        return {'contexts': [], 'answer': 'bot'}\n",
    )
    fn = load_callable(f"{name}:answer")
    assert fn("q", []) == (["Q"], "ok")
    pipeline = CallablePipeline.from_spec(f"{name}:Bot.ask")
    assert pipeline.name == f"{name}:Bot.ask"
    assert (await pipeline.run(CASE)).answer == "bot"


@pytest.mark.parametrize(
    ("source", "attr", "expected"),
    [
        (None, "answer", "cannot import module"),
        ("import not_installed_pkg_xyz\n", "answer", "No module named 'not_installed_pkg_xyz'"),
        ("raise RuntimeError('no index')\n", "answer", "raised RuntimeError: no index"),
        ("def answer(q, h):\n    return [], ''\n", "anwser", "has no attribute 'anwser'"),
        ("answer = 42\n", "answer", "is a int, not a function"),
    ],
)
def test_load_callable_errors(
    module_dir: Path, source: str | None, attr: str, expected: str
) -> None:
    name = write_module(module_dir, source) if source else "no_such_module_xyz"
    with pytest.raises(ConfigError, match=expected):
        load_callable(f"{name}:{attr}")


@pytest.mark.parametrize("spec", ["my_rag", "my_rag:", ":answer"])
def test_load_callable_bad_spec(spec: str) -> None:
    with pytest.raises(ConfigError, match="form 'module:function'"):
        load_callable(spec)


# --- HTTP ---------------------------------------------------------------------------------


class _Handler(BaseHTTPRequestHandler):
    received: list[dict[str, Any]]
    headers_seen: list[dict[str, str]]
    stop: threading.Event

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.received.append(body)
        self.headers_seen.append(dict(self.headers))
        if self.path == "/ok":
            self._send(200, {"contexts": [f"ctx for {body['question']}"], "answer": "30 days."})
        elif self.path == "/ragas":
            self._send(200, {"retrieved_contexts": ["r1"], "response": "r"})
        elif self.path == "/fail":
            self._send(500, "index crashed", content_type="text/plain")
        elif self.path == "/garbage":
            self._send(200, "<html>hello</html>", content_type="text/html")
        elif self.path == "/wrong":
            self._send(200, {"contexts": [1, 2], "answer": "a"})
        elif self.path == "/list":
            self._send(200, ["a", "b"])
        elif self.path == "/slow":
            self.stop.wait(5)
            self._send(200, {"contexts": [], "answer": "late"})

    def _send(self, status: int, payload: object, content_type: str = "application/json") -> None:
        data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout test)

    def log_message(self, format: str, *args: object) -> None:
        pass


@dataclass
class Server:
    url: str
    received: list[dict[str, Any]]
    headers_seen: list[dict[str, str]]


@pytest.fixture
def server() -> Iterator[Server]:
    received: list[dict[str, Any]] = []
    headers_seen: list[dict[str, str]] = []
    stop = threading.Event()
    handler = type(
        "Handler", (_Handler,), {"received": received, "headers_seen": headers_seen, "stop": stop}
    )
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield Server(f"http://127.0.0.1:{httpd.server_address[1]}", received, headers_seen)
    finally:
        stop.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join()


async def test_http_pipeline_posts_the_case(server: Server) -> None:
    async with HttpPipeline(f"{server.url}/ok", headers={"Authorization": "Bearer s3cret"}) as p:
        first = await p.run(CASE)
        second = await p.run(CASE.model_copy(update={"id": "q2", "question": "Other?"}))
        client = p._client
    assert first == PipelineOutput(contexts=[f"ctx for {CASE.question}"], answer="30 days.")
    assert second.contexts == ["ctx for Other?"]
    assert server.received[0] == {
        "id": "q1",
        "question": CASE.question,
        "history": [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello, how can I help?"},
        ],
        "metadata": {"source": "faq"},
    }
    assert server.headers_seen[0]["Authorization"] == "Bearer s3cret"
    assert client is not None and client.is_closed
    assert isinstance(p, Pipeline)


async def test_http_pipeline_accepts_ragas_names(server: Server) -> None:
    p = HttpPipeline(f"{server.url}/ragas")
    try:
        output = await p.run(CASE)
    finally:
        await p.aclose()
    assert (output.contexts, output.answer) == (["r1"], "r")


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/fail", "answered HTTP 500 Internal Server Error: index crashed"),
        ("/garbage", "not JSON (content-type text/html): <html>hello</html>"),
        ("/wrong", "contexts[0] as int 1"),
        ("/list", "answered list ['a', 'b']"),
    ],
)
async def test_http_pipeline_errors(server: Server, path: str, expected: str) -> None:
    async with HttpPipeline(server.url + path) as p:
        with pytest.raises(PipelineError) as info:
            await p.run(CASE)
    assert str(info.value).startswith(f"pipeline {server.url}{path} (case 'q1') ")
    assert expected in str(info.value)


async def test_http_pipeline_timeout(server: Server) -> None:
    async with HttpPipeline(f"{server.url}/slow", timeout=0.2) as p:
        with pytest.raises(PipelineError, match=r"^pipeline timed out after 0\.2 s$"):
            await p.run(CASE)


async def test_http_pipeline_unreachable() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    async with HttpPipeline(f"http://127.0.0.1:{port}/rag", timeout=2) as p:
        with pytest.raises(PipelineError, match="failed: ConnectError"):
            await p.run(CASE)


def test_http_pipeline_name_hides_credentials() -> None:
    p = HttpPipeline("https://user:pw@rag.example.com:8443/ask?api_key=abc")
    assert p.name == "https://rag.example.com:8443/ask"


def test_http_pipeline_rejects_non_http_urls() -> None:
    with pytest.raises(ConfigError, match="http:// or https://"):
        HttpPipeline("rag.example.com/ask")


# --- answers files ------------------------------------------------------------------------


async def test_answers_file_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_text(
        '{"id": "q1", "contexts": ["c1"], "answer": "a1"}\n'
        '{"id": 2, "retrieved_contexts": [], "response": "a2", "user_input": "ignored"}\n'
    )
    p = AnswersFilePipeline(path)
    assert p.ids == {"q1", "2"}
    assert p.name == "answers:answers.jsonl"
    assert isinstance(p, Pipeline)
    assert await p.run(CASE) == PipelineOutput(contexts=["c1"], answer="a1")
    assert (await p.run(CASE.model_copy(update={"id": "2"}))).answer == "a2"
    with pytest.raises(PipelineError) as info:
        await p.run(CASE.model_copy(update={"id": "x"}))
    assert str(info.value).startswith("no answer for case 'x' in answers.jsonl")


async def test_answers_file_csv(tmp_path: Path) -> None:
    path = tmp_path / "answers.csv"
    path.write_text('id,contexts,answer\nq1,"[""c1"", ""c2""]","multi\nline"\n')
    assert await AnswersFilePipeline(path).run(CASE) == PipelineOutput(
        contexts=["c1", "c2"], answer="multi\nline"
    )


@pytest.mark.parametrize(
    ("name", "text", "line", "field", "expected"),
    [
        (
            "a.jsonl",
            '{"id": "q1", "contexts": [], "answer": "a"}\n{"contexts": [], "answer": "b"}\n',
            2,
            "id",
            "missing id",
        ),
        (
            "a.yaml",
            "- id: q1\n  contexts: []\n  answer: a\n- id: q2\n  contexts: one chunk\n  answer: b\n",
            4,
            "contexts",
            "valid list",
        ),
        (
            "a.json",
            '[\n {"id": "q1", "contexts": [], "answer": "a"},\n {"id": "q2", "contexts": []}\n]',
            3,
            "answer",
            "missing required field",
        ),
        (
            "a.csv",
            "id,contexts,answer\nq1,[],a\nq1,[],b\n",
            3,
            "id",
            "duplicate id 'q1' (first used at line 2)",
        ),
        (
            "a.jsonl",
            '{"id": "q1", "contexts": [], "answer": "a", "response": "b"}\n',
            1,
            "response",
            "both 'answer' and 'response'",
        ),
    ],
)
def test_answers_file_errors_at_construction(
    tmp_path: Path, name: str, text: str, line: int, field: str, expected: str
) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(CaseFileError) as info:
        AnswersFilePipeline(path)
    assert (info.value.line, info.value.field) == (line, field)
    assert expected in info.value.message


def test_answers_file_missing_or_empty(tmp_path: Path) -> None:
    with pytest.raises(CaseFileError, match="file not found"):
        AnswersFilePipeline(tmp_path / "nope.jsonl")
    (tmp_path / "empty.jsonl").write_text("\n")
    with pytest.raises(CaseFileError, match="no answers"):
        AnswersFilePipeline(tmp_path / "empty.jsonl")


# --- precomputed --------------------------------------------------------------------------


async def test_precomputed_uses_the_case_answers() -> None:
    case = CASE.model_copy(update={"contexts": ["c"], "answer": "a"})
    p = PrecomputedPipeline()
    assert await p.run(case) == PipelineOutput(contexts=["c"], answer="a")
    assert isinstance(p, Pipeline)


async def test_precomputed_without_answers() -> None:
    with pytest.raises(PipelineError) as info:
        await PrecomputedPipeline().run(CASE.model_copy(update={"answer": "a"}))
    assert str(info.value).startswith(
        "case 'q1' has no precomputed contexts (or retrieved_contexts);"
    )
    with pytest.raises(PipelineError, match=r"no precomputed contexts .* and no answer"):
        await PrecomputedPipeline().run(CASE)


async def test_object_with_async_call_is_awaited_on_the_loop() -> None:
    class Bot:
        async def __call__(self, question: str, history: list[dict[str, str]]) -> Any:
            return [], threading.current_thread().name

    pipeline = CallablePipeline(Bot())
    assert pipeline.name.endswith(
        ":test_object_with_async_call_is_awaited_on_the_loop.<locals>.Bot"
    )
    assert (await pipeline.run(CASE)).answer == threading.main_thread().name
