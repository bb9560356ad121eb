"""The benchmark server: ragmeter's fake OpenAI endpoint in its own process, with latency.

    python bench/server.py --latency 0.2                 # serve until stdin closes
    python bench/server.py --latency lognormal:0.2:0.6 --rate-limit 50

It answers ragmeter's judge prompts (``Smart``), RAGAS 0.4's collection-metric prompts
(:class:`RagasAnswers`, by the same word-overlap rules so both frameworks do their full work:
statements are found, every chunk is rated) and anything else with a minimal instance of the
requested JSON schema (or ``{}``). Tokens are counted by the server for both frameworks alike:
``tiktoken`` is not available offline (its encodings are downloaded at run time), so the count
is ragmeter's approximation (about 4 characters per token, 1 per CJK character), and the JSON
schema of a ``response_format`` counts as prompt tokens, as hosted APIs bill it.

Control protocol on stdin/stdout (one JSON line per answer): the first line printed is
``{"base_url": ...}``; then ``summary`` prints the load seen since the last ``reset``
(calls, tokens, concurrency over time), ``reset`` clears the log, ``quit`` stops.
:class:`BenchServer` drives it from another process.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

from ragmeter.testing import FakeRequest, Smart
from ragmeter.testing.latency import parse_latency
from ragmeter.testing.responders import (
    minimal_instance,
    noncommittal,
    overlap,
    split_sentences,
)

THRESHOLD = 0.5


def ragas_input(request: FakeRequest) -> dict[str, Any]:
    """The ``input: {...}`` object at the end of a RAGAS prompt."""
    text = request.task_text
    at = text.rfind("input: {")
    if at < 0:
        return {}
    try:
        value, _ = json.JSONDecoder().raw_decode(text, at + len("input: "))
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


class RagasAnswers:
    """Plausible answers to RAGAS 0.4 collection-metric prompts, keyed on the schema title."""

    def __call__(self, request: FakeRequest) -> dict[str, Any] | None:
        handler = {
            "StatementGeneratorOutput": self.statements,
            "NLIStatementOutput": self.nli,
            "AnswerRelevanceOutput": self.relevance,
            "ContextPrecisionOutput": self.precision,
            "ContextRecallOutput": self.recall,
        }.get(request.schema_name or "")
        return None if handler is None else handler(ragas_input(request))

    @staticmethod
    def statements(data: dict[str, Any]) -> dict[str, Any]:
        answer = str(data.get("answer", ""))
        return {"statements": [] if noncommittal(answer) else split_sentences(answer)}

    @staticmethod
    def nli(data: dict[str, Any]) -> dict[str, Any]:
        context = str(data.get("context", ""))
        out = []
        for statement in data.get("statements") or []:
            ok = overlap(str(statement), context) >= THRESHOLD
            reason = "the chunk states this" if ok else "no chunk mentions this"
            out.append({"statement": statement, "reason": reason, "verdict": int(ok)})
        return {"statements": out}

    @staticmethod
    def relevance(data: dict[str, Any]) -> dict[str, Any]:
        response = str(data.get("response", ""))
        if noncommittal(response):
            return {"question": "", "noncommittal": 1}
        first = (split_sentences(response) or [response])[0].rstrip(".。!！")
        return {"question": f"Is it true that {first}?", "noncommittal": 0}

    @staticmethod
    def precision(data: dict[str, Any]) -> dict[str, Any]:
        context = str(data.get("context", ""))
        points = split_sentences(str(data.get("answer", "")))
        useful = any(overlap(p, context) >= THRESHOLD for p in points)
        reason = "contains facts the reference uses" if useful else "unrelated to the reference"
        return {"reason": reason, "verdict": int(useful)}

    @staticmethod
    def recall(data: dict[str, Any]) -> dict[str, Any]:
        context = str(data.get("context", ""))
        out = []
        for point in split_sentences(str(data.get("answer", ""))):
            found = overlap(point, context) >= THRESHOLD
            reason = "found in the chunks" if found else "no chunk states it"
            out.append({"statement": point, "reason": reason, "attributed": int(found)})
        return {"classifications": out}


class BenchResponder:
    """ragmeter prompts → :class:`Smart`; RAGAS prompts → :class:`RagasAnswers`; anything
    else → a minimal instance of its schema, or ``{}``."""

    def __init__(self) -> None:
        self.smart = Smart(threshold=THRESHOLD)
        self.ragas = RagasAnswers()

    def __call__(self, request: FakeRequest) -> str:
        answer = self.ragas(request)
        if answer is not None:
            return json.dumps(answer, ensure_ascii=False)
        if request.schema_name in {
            "FaithfulnessClaims",
            "FaithfulnessVerdicts",
            "AnswerRelevancy",
            "ContextPrecisionVerdicts",
            "ContextRecallPoints",
        }:
            return self.smart(request)
        if request.schema:
            return json.dumps(minimal_instance(request.schema, request.schema))
        return "{}"


class BenchServer:
    """The server in a child process (so its threads do not compete with the client for the
    GIL), driven over a pipe. A context manager."""

    def __init__(
        self,
        latency: str = "0.2",
        *,
        rate_limit: float | None = None,
        python: str = sys.executable,
    ) -> None:
        args = [python, str(Path(__file__)), "--latency", latency]
        if rate_limit is not None:
            args += ["--rate-limit", str(rate_limit)]
        self.latency = latency
        self._proc = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self.base_url = str(self._ask(None)["base_url"])

    def _ask(self, command: str | None) -> dict[str, Any]:
        assert self._proc.stdin is not None and self._proc.stdout is not None
        if command is not None:
            self._proc.stdin.write(command + "\n")
            self._proc.stdin.flush()
        line = self._proc.stdout.readline()
        if not line:
            raise RuntimeError("the bench server exited; see its stderr")
        return json.loads(line)

    def summary(self) -> dict[str, Any]:
        """Calls, tokens and concurrency since the last :meth:`reset`."""
        return self._ask("summary")

    def reset(self) -> None:
        self._ask("reset")

    def cpu_seconds(self) -> float:
        """CPU time (user + system) the server process has used so far (Linux /proc)."""
        fields = Path(f"/proc/{self._proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def close(self) -> None:
        if self._proc.poll() is None:
            with contextlib.suppress(RuntimeError, BrokenPipeError):
                self._ask("quit")
            self._proc.wait(timeout=10)

    def __enter__(self) -> BenchServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def main(argv: list[str] | None = None) -> None:
    from ragmeter.testing import FakeOpenAI

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--latency",
        default="0.2",
        help="SECONDS, uniform:LO:HI or lognormal:MEDIAN:P95 (default 0.2)",
    )
    parser.add_argument(
        "--rate-limit",
        type=float,
        default=None,
        help="answer 429 past this many requests per second",
    )
    parser.add_argument(
        "--step", type=float, default=0.1, help="seconds between concurrency samples in the summary"
    )
    args = parser.parse_args(argv)
    server = FakeOpenAI(
        BenchResponder(),
        latency=parse_latency(args.latency),
        rate_limit=args.rate_limit,
        count_schema_tokens=True,
        keep_bodies=False,
    )
    cpu0 = 0.0
    with server:
        print(json.dumps({"base_url": server.base_url}), flush=True)
        for line in sys.stdin:
            command = line.strip()
            if command == "summary":
                usage = resource.getrusage(resource.RUSAGE_SELF)
                summary = server.summary(args.step)
                summary["server_cpu_seconds"] = round(usage.ru_utime + usage.ru_stime - cpu0, 3)
                print(json.dumps(summary), flush=True)
            elif command == "reset":
                server.reset_log()
                usage = resource.getrusage(resource.RUSAGE_SELF)
                cpu0 = usage.ru_utime + usage.ru_stime
                print(json.dumps({"ok": True}), flush=True)
            elif command == "quit":
                print(json.dumps({"ok": True}), flush=True)
                break
            else:
                print(json.dumps({"error": f"unknown command {command!r}"}), flush=True)


if __name__ == "__main__":
    main()
