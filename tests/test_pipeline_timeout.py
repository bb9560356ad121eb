"""Per-case pipeline deadlines (issue 13): a hung or slow pipeline of any kind costs one case
its timeout, never the run; a hung sync callable does not keep Ctrl-C from stopping it."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from local_http import serving
from ragmeter._exceptions import PipelineError
from ragmeter.cases import Case
from ragmeter.judges.base import METRICS, JudgeBase, JudgeFingerprint, MetricResult, Sample
from ragmeter.pipeline import (
    CallablePipeline,
    HttpPipeline,
    PipelineBase,
    PipelineTimeout,
    run_case,
)
from ragmeter.run._runner import evaluate

CASE = Case(id="q1", question="What is the refund window?")
RAGMETER = str(Path(sys.executable).parent / "ragmeter")


class AlwaysOne(JudgeBase):
    """A judge that scores every answer 1.0."""

    name = "always-one"

    def fingerprint(self) -> JudgeFingerprint:
        return JudgeFingerprint(kind="always-one", model="none", prompt_version="1")

    async def judge(
        self, sample: Sample, metrics: tuple[Any, ...] = METRICS
    ) -> dict[Any, MetricResult]:
        return {m: MetricResult(metric=m, score=1.0) for m in metrics}


def test_a_hung_sync_callable_times_out_its_case_and_the_run_goes_on() -> None:
    release = threading.Event()

    def rag(question: str, history: list[dict[str, str]]) -> dict[str, Any]:
        if "hang" in question:
            release.wait(120)  # hangs far past the deadline (released at the end of the test)
        return {"contexts": ["Refunds within 30 days."], "answer": "30 days."}

    cases = [Case(id=f"c{i}", question=f"question {i}?") for i in range(4)]
    cases.insert(1, Case(id="stuck", question="hang forever?"))
    started = time.monotonic()
    try:
        run = evaluate(cases, CallablePipeline(rag, name="rag", timeout=1.0), AlwaysOne())
    finally:
        release.set()
    assert time.monotonic() - started < 30  # 1 s deadline; the hang alone would take 120 s
    by_id = {c.id: c for c in run.cases}
    assert [c.id for c in run.cases] == ["c0", "stuck", "c1", "c2", "c3"]
    assert by_id["stuck"].pipeline_error == "pipeline timed out after 1 s"
    for metric in METRICS:
        result = by_id["stuck"].metrics[metric]
        assert result.score is None
        assert result.unscored_reason == "pipeline error: pipeline timed out after 1 s"
    assert all(by_id[f"c{i}"].metrics["faithfulness"].score == 1.0 for i in range(4))


async def test_a_pipeline_of_any_kind_gets_the_default_deadline_or_its_own() -> None:
    class Stalls(PipelineBase):  # a user's own pipeline, with its own timeout
        name = "stalls"
        timeout = 0.3

        async def run(self, case: Case) -> Any:
            await asyncio.sleep(60)

    started = time.monotonic()
    with pytest.raises(PipelineTimeout, match=r"^pipeline timed out after 0\.3 s$"):
        await run_case(Stalls(), CASE)
    assert time.monotonic() - started < 10


async def test_a_timeout_error_raised_by_the_pipeline_itself_is_its_own_error() -> None:
    def rag(question: str, history: list[dict[str, str]]) -> Any:
        raise TimeoutError("vector store did not answer")

    with pytest.raises(PipelineError, match="raised TimeoutError: vector store") as info:
        await run_case(CallablePipeline(rag, name="rag", timeout=30), CASE)
    assert not isinstance(info.value, PipelineTimeout)


# --- HTTP: the timeout is a total deadline, not one per read ----------------------------------


class _Drip(BaseHTTPRequestHandler):
    """Answers every POST with a valid reply sent one byte every 0.2 s (about 20 s in all)."""

    protocol_version = "HTTP/1.1"
    stop: threading.Event

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        data = json.dumps({"contexts": ["c" * 30], "answer": "a" * 30}).encode()
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            for i in range(len(data)):
                if self.stop.wait(0.2):
                    return
                self.wfile.write(data[i : i + 1])
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up: the point of the test

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def drip_url() -> Iterator[str]:
    stop = threading.Event()
    with serving(type("Drip", (_Drip,), {"stop": stop})) as url:
        try:
            yield f"{url}/rag"
        finally:
            stop.set()  # the handler stops dripping before the server shuts down


async def test_a_slow_drip_endpoint_is_cut_off_at_the_total_deadline(drip_url: str) -> None:
    started = time.monotonic()
    async with HttpPipeline(drip_url, timeout=1.5) as pipeline:
        with pytest.raises(PipelineTimeout, match=r"^pipeline timed out after 1\.5 s$"):
            await pipeline.run(CASE)  # every read comes within 0.2 s: only a total deadline
    assert time.monotonic() - started < 10  # the drip alone takes about 20 s


# --- the command line: --timeout, and Ctrl-C with a hung sync callable -----------------------


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "cases.jsonl").write_text(
        "\n".join(
            json.dumps({"id": f"q{i}", "question": f"Question {i}?", "ground_truth": "30 days."})
            for i in range(3)
        )
    )
    (tmp_path / "hung_rag.py").write_text(
        textwrap.dedent(
            """
            import pathlib, time

            def answer(question, history):
                pathlib.Path("started").touch()
                if question == "Question 1?":
                    pathlib.Path("hanging").touch()
                    time.sleep(3600)  # never returns
                return {"contexts": ["Refunds within 30 days."], "answer": "30 days."}
            """
        )
    )
    return tmp_path


@contextmanager
def ragmeter(project: Path, *args: str) -> Iterator[subprocess.Popen[str]]:
    """`ragmeter run` on the hung pipeline in a child process, killed if a test leaves it."""
    proc = subprocess.Popen(
        [RAGMETER, "run", "--cases", "cases.jsonl", "--pipeline", "hung_rag:answer", *args],
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(project)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    with proc:
        try:
            yield proc
        finally:
            if proc.poll() is None:
                proc.kill()


def test_run_timeout_option_unscores_the_hung_case_and_writes_the_rest(project: Path) -> None:
    with ragmeter(project, "--out", "out", "--timeout", "2", "--no-progress") as proc:
        _stdout, stderr = proc.communicate(timeout=120)  # without a deadline: never returns
    assert proc.returncode == 3, stderr  # 2 of 3 cases scored, under the 90% needed
    cases = {c["id"]: c for c in json.loads((project / "out/results.json").read_text())["cases"]}
    assert cases["q1"]["pipeline_error"] == "pipeline timed out after 2 s"
    reason = cases["q1"]["metrics"]["faithfulness"]["unscored_reason"]
    assert reason == "pipeline error: pipeline timed out after 2 s"
    assert cases["q0"]["pipeline_error"] is None and cases["q2"]["pipeline_error"] is None


def test_a_bad_timeout_is_refused_before_any_work(project: Path) -> None:
    with ragmeter(project, "--out", "out", "--timeout", "0", "--no-progress") as proc:
        _stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 2
    assert "--timeout must be a positive number of seconds" in stderr
    assert not (project / "started").exists() and not (project / "out").exists()


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
def test_first_ctrl_c_stops_a_run_whose_sync_pipeline_hangs(project: Path) -> None:
    with ragmeter(project, "--out", "out", "--concurrency", "1", "--no-progress") as proc:
        deadline = time.monotonic() + 60
        while not (project / "hanging").exists():
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        started = time.monotonic()
        _stdout, stderr = proc.communicate(timeout=60)  # before: waited on the thread for ever
    assert time.monotonic() - started < 30
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert not (project / "out" / "results.json").exists()
