"""An endpoint that sends impossible numbers, echoes the key, rate limits for a day, has no
quota left, redirects elsewhere or resets a connection (issue 30): no false pass, no hang, no
leak. Every test talks HTTP to a real server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import math
import sqlite3
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from local_http import serving
from ragmeter._exceptions import JudgeUnavailable
from ragmeter.cases import Case
from ragmeter.cli import app
from ragmeter.clients import ChatClient, LLMCache, RetryPolicy, forget_output_modes
from ragmeter.clients.errors import QuotaSpent
from ragmeter.clients.logprobs import loads
from ragmeter.judges.llm import EmbeddingEndpoint, LLMJudgeConfig, build_llm_judge
from ragmeter.pipeline import PrecomputedPipeline
from ragmeter.run._runner import evaluate
from ragmeter.testing import FakeOpenAI, Fault, Smart

HI = [{"role": "user", "content": "Say hi."}]
KEY = "sk-echoedsecret0123456789abcdef"
CASES = [
    Case(
        id=f"c{i}",
        question="Where is the warehouse and how many docks does it have?",
        ground_truth="The warehouse is in Leeds. It has 4 loading docks.",
        contexts=["The warehouse is in Leeds.", "It has 4 loading docks.", "Rivers flow east."],
        answer="The warehouse is in Leeds. It has 4 loading docks. It opened in 1990.",
    )
    for i in range(3)
]
runner = CliRunner()


@pytest.fixture(autouse=True)
def _fresh_modes() -> None:
    forget_output_modes()


def client(base_url: str, **kw: Any) -> ChatClient:
    policy = kw.pop("policy", RetryPolicy(max_retries=4, backoff_base=0.01, timeout=5.0))
    return ChatClient(
        model="m", base_url=base_url, api_key_env=None, policy=policy, cache=LLMCache(None), **kw
    )


def judge_config(server: FakeOpenAI, path: Path, **kw: Any) -> LLMJudgeConfig:
    return LLMJudgeConfig(
        model="judge-m",
        base_url=server.base_url,
        api_key_env=None,
        cache_path=path,
        embedding=EmbeddingEndpoint(model="emb", base_url=server.base_url, api_key_env=None),
        **kw,
    )


def _cases_file(tmp_path: Path) -> Path:
    path = tmp_path / "cases.jsonl"
    path.write_text(
        "\n".join(json.dumps(c.model_dump(mode="json"), ensure_ascii=False) for c in CASES),
        encoding="utf-8",
    )
    return path


def _run(tmp_path: Path, base_url: str, *extra: str) -> Any:
    args = [
        "run", "--cases", str(_cases_file(tmp_path)), "--judge", "openai", "--model", "m",
        "--base-url", base_url, "--out", str(tmp_path / "out"), "--no-progress",
        *(extra if "--cache-dir" in extra else ("--no-cache", *extra)),
    ]  # fmt: skip
    return runner.invoke(app, args)


# --- 5. impossible log-probabilities ------------------------------------------------------------


@pytest.mark.parametrize("value", [math.nan, 5.0, math.inf])
@pytest.mark.parametrize("mode", ["json", "verifier"])
def test_impossible_log_probabilities_are_dropped_with_one_warning_never_scored(
    tmp_path: Path, value: float, mode: str
) -> None:
    # The same run with sound log-probabilities, scored from the replies' text alone (0/1).
    with FakeOpenAI(Smart(), logprobs="ignore") as server:
        plain = evaluate(
            CASES,
            PrecomputedPipeline(),
            build_llm_judge(judge_config(server, tmp_path / "plain.db", faithfulness_mode=mode)),
        )
    expected = plain.cases[0].metrics["faithfulness"].score
    assert expected is not None and 0 < expected < 1
    with FakeOpenAI(Smart(), faults=[Fault("bad_logprobs", logprob=value)]) as server:
        config = judge_config(server, tmp_path / "c.db", faithfulness_mode=mode)
        run = evaluate(CASES, PrecomputedPipeline(), build_llm_judge(config))
        first_calls = len(server.chat_log())
        again = evaluate(CASES, PrecomputedPipeline(), build_llm_judge(config))
        second_calls = len(server.chat_log()) - first_calls
    for result in (run, again):
        for case in result.cases:
            faith = case.metrics["faithfulness"]
            # NaN made every claim P 0, +5.0 each of three labels 1/3: now the text decides
            assert faith.score == pytest.approx(expected)
            assert all(c.confidence in (None, 0.0, 1.0) for c in faith.evidence.claims)
        notes = [w for w in result.run.warnings if "impossible token log-probabilities" in w]
        assert len(notes) == 1, result.run.warnings
        assert "verdicts of those replies are read from their text" in notes[0]
    assert second_calls > 0  # not cached: a re-run sees the numbers and warns again


def test_a_log_probability_of_minus_infinity_is_a_probability_of_zero() -> None:
    from ragmeter.clients.logprobs import TokenLogprob, impossible_value

    sound = [TokenLogprob("a", 0.0, (("a", 0.0), ("b", -math.inf))), TokenLogprob("b", -1e-9)]
    assert impossible_value(sound) is None
    assert impossible_value([*sound, TokenLogprob("c", -0.1, (("d", 0.5),))]) == 0.5
    assert math.isnan(impossible_value([TokenLogprob("c", math.nan)]) or 0.0)


@pytest.mark.parametrize("value", [math.nan, math.inf, 1e200, 0.0])
def test_an_embedding_of_impossible_values_leaves_relevancy_unscored_not_zero(
    tmp_path: Path, value: float
) -> None:
    with FakeOpenAI(Smart(), embed=lambda _text: [value] * 64) as server:
        judge = build_llm_judge(judge_config(server, tmp_path / "c.db"))
        run = evaluate(CASES[:1], PrecomputedPipeline(), judge, metrics=("answer_relevancy",))
        calls = len(server.log)
    relevancy = run.cases[0].metrics["answer_relevancy"]
    assert relevancy.score is None  # it was 0.0: every cosine of such vectors is 0
    assert "no similarity can be taken of" in (relevancy.unscored_reason or "")
    assert calls >= 2  # the chat call that wrote the questions, then the embeddings
    with sqlite3.connect(tmp_path / "c.db") as db:
        assert db.execute("SELECT COUNT(*) FROM embeddings").fetchone() == (0,)  # not cached


@pytest.mark.parametrize("value", [math.nan, 5.0])
def test_impossible_values_in_a_cache_written_before_are_not_read_as_probabilities(
    value: float,
) -> None:
    from ragmeter.clients.logprobs import TokenLogprob, dumps, field_probabilities
    from ragmeter.judges.llm.graded import CLAIM_LABELS
    from ragmeter.judges.llm.verifier import yes_probability

    text = '{"verdict": "supported"}'
    alternatives = (("supported", value), ("contradicted", value))
    tokens = [
        TokenLogprob('{"verdict": "', 0.0),
        TokenLogprob("supported", value, alternatives),
        TokenLogprob('"}', 0.0),
    ]
    stored = loads(dumps(tokens))  # as a cache row written before they were refused
    assert stored is not None
    assert field_probabilities(text, stored, "verdict", CLAIM_LABELS) == [None]
    yes = [TokenLogprob("Yes", value, (("Yes", value), ("No", value)))]
    assert yes_probability("Yes", loads(dumps(yes))) == (1.0, False)  # the reply's own word


# --- 7. an API key echoed by the endpoint -------------------------------------------------------


def test_an_echoed_api_key_is_in_nothing_ragmeter_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAULTY_KEY", KEY)
    with FakeOpenAI(Smart(), faults=[Fault("echo_key")]) as server:
        result = _run(
            tmp_path,
            server.base_url,
            *("--api-key-env", "FAULTY_KEY", "--cache-dir", str(tmp_path / "cache")),
        )
        echoed = [r for r in server.chat_log() if r.fault == "echo_key"]
    assert result.exit_code == 0, result.output
    assert echoed and KEY not in result.output
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p.name != "cases.jsonl"]
    assert any(p.name == "llm.sqlite" for p in written)
    for path in written:
        assert KEY.encode() not in path.read_bytes(), path
    with sqlite3.connect(tmp_path / "cache" / "llm.sqlite") as db:
        rows = db.execute("SELECT response, logprobs FROM calls").fetchall()
    assert rows and any("***" in response for response, _ in rows)
    for _response, stored in rows:
        tokens = loads(stored)
        # the tokens spell the reply: joined, they gave the key back
        assert tokens is None or KEY not in "".join(t.token for t in tokens)


class _KeyInAlternatives(BaseHTTPRequestHandler):
    """A reply of "hi" whose alternatives at its one token include the bearer token."""

    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        key = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
        top = [{"token": "hi", "logprob": 0.0}, {"token": key, "logprob": -9.0}]
        reply = {
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "hi"},
                    "logprobs": {"content": [{"token": "hi", "logprob": 0.0, "top_logprobs": top}]},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        pass


async def test_a_key_among_the_alternatives_is_not_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAULTY_KEY", KEY)
    cache = LLMCache(tmp_path / "c.db")
    with serving(_KeyInAlternatives) as url:
        judge = ChatClient(
            model="m", base_url=url, api_key_env="FAULTY_KEY", cache=cache, top_logprobs=2
        )
        reply = await judge.complete(HI)
        await judge.aclose()
    assert reply.text == "hi" and reply.logprobs is None
    hit = cache.get(reply.key)
    assert hit is not None and hit.response == "hi" and hit.logprobs is None
    cache.close()
    assert KEY.encode() not in (tmp_path / "c.db").read_bytes()


# --- 8. waiting is bounded; quota is not a rate limit --------------------------------------------


async def test_a_retry_after_past_the_patience_stops_at_once_saying_so() -> None:
    with FakeOpenAI(Smart(), faults=[Fault("rate_limit", retry_after=86400)]) as server:
        judge = client(server.base_url)
        # Before, each of the 5 attempts waited 120 s (Retry-After capped): a hang guard only.
        with pytest.raises(JudgeUnavailable) as caught:
            await asyncio.wait_for(judge.complete(HI), 60)
        with pytest.raises(JudgeUnavailable):  # the next call is not sent at all
            await judge.complete([{"role": "user", "content": "Again."}])
        await judge.aclose()
        assert len(server.chat_log()) == 1
    message = str(caught.value)
    assert "asks to wait 86400s more (Retry-After)" in message
    assert "past the patience of 300s" in message and "--patience" in message


async def test_rate_limits_that_add_up_past_the_patience_stop_the_calls() -> None:
    with FakeOpenAI(Smart(), faults=[Fault("rate_limit", retry_after=0.4)]) as server:
        policy = RetryPolicy(max_retries=50, backoff_base=0.01, timeout=5.0, patience=1.0)
        judge = client(server.base_url, policy=policy)
        with pytest.raises(JudgeUnavailable, match=r"of HTTP 429 with no call answered"):
            await asyncio.wait_for(judge.complete(HI), 60)
        await judge.aclose()
        assert 2 <= len(server.chat_log()) <= 4  # 0.4 s waits until a second is spent


async def test_rate_limits_without_retry_after_stop_once_past_the_patience() -> None:
    with FakeOpenAI(Smart(), faults=[Fault("rate_limit", retry_after=None)]) as server:
        policy = RetryPolicy(max_retries=50, backoff_base=0.2, timeout=5.0, patience=1.0)
        judge = client(server.base_url, policy=policy)
        with pytest.raises(JudgeUnavailable, match=r"answered only HTTP 429 for \d"):
            await asyncio.wait_for(judge.complete(HI), 60)
        await judge.aclose()
        assert len(server.chat_log()) < 10  # backoff 0.2, 0.4, 0.8 s...: not 51 attempts


def test_the_patience_runs_from_the_first_429_since_an_answer_and_restarts_with_a_run() -> None:
    from ragmeter.clients import AdaptiveLimiter

    limiter = AdaptiveLimiter(4)
    assert limiter.waited() == 0.0
    limiter.on_rate_limited(None)
    first = limiter.waited()
    limiter.on_rate_limited(None)
    assert limiter.waited() >= first > 0.0  # counted from the first 429, not the last
    limiter.on_success()
    assert limiter.waited() == 0.0
    limiter.on_rate_limited(None)
    limiter.reset()  # a run ended (aclose): the next one is not charged for it
    assert limiter.waited() == 0.0


async def test_a_rate_limit_within_the_patience_is_waited_out() -> None:
    with FakeOpenAI(Smart(), faults=[Fault("rate_limit", times=2, retry_after=0.2)]) as server:
        judge = client(server.base_url, policy=RetryPolicy(backoff_base=0.01, patience=1.0))
        reply = await judge.complete(HI)
        await judge.aclose()
    assert reply.text and server.counts() == {"rate_limit": 2, "ok": 1}


@pytest.mark.parametrize(
    ("status", "code"),
    [(429, "insufficient_quota"), (429, "billing_hard_limit_reached"), (402, "payment_required")],
)
async def test_a_spent_quota_stops_at_once_as_quota_not_rate_limit(status: int, code: str) -> None:
    with FakeOpenAI(Smart(), faults=[Fault("quota", status=status, code=code)]) as server:
        judge = client(server.base_url)
        with pytest.raises(JudgeUnavailable) as caught:
            await asyncio.wait_for(judge.complete(HI), 60)
        await judge.aclose()
        assert len(server.chat_log()) == 1  # not retried
    message = str(caught.value)
    assert isinstance(caught.value, QuotaSpent)
    assert "quota or billing, not a rate limit" in message and "rate limited" not in message
    assert judge.limiter.rate_limited == 0


def test_the_cli_stops_a_run_past_its_patience_and_on_a_spent_quota(tmp_path: Path) -> None:
    with FakeOpenAI(Smart(), faults=[Fault("rate_limit", retry_after=30)]) as server:
        result = _run(tmp_path, server.base_url, "--patience", "10")
    assert result.exit_code == 5, result.output
    assert "asks to wait 30s more (Retry-After)" in result.output
    assert "past the patience of 10s" in result.output
    assert not (tmp_path / "out" / "results.json").exists()
    with FakeOpenAI(Smart(), faults=[Fault("quota")]) as server:
        result = _run(tmp_path, server.base_url)
    assert result.exit_code == 5, result.output
    assert "quota or billing, not a rate limit" in result.output


def test_patience_comes_from_the_config_file(tmp_path: Path) -> None:
    from ragmeter.api import build_judge, resolve_settings
    from ragmeter.judges.llm import OpenAIJudge

    config = tmp_path / "ragmeter.toml"
    config.write_text(
        '[judge]\nkind = "openai"\nmodel = "m"\napi_key_env = ""\npatience = 42\n'
        f'cache_dir = "{tmp_path / "cache"}"\n'
    )
    judge = build_judge(resolve_settings(config))
    assert isinstance(judge, OpenAIJudge) and judge.client.policy.patience == 42


@pytest.mark.parametrize(
    ("option", "said"),
    [
        (("--max-cost", "nan"), "--max-cost nan: input should be a finite number"),
        (("--max-cost", "inf"), "--max-cost inf: input should be a finite number"),
        (("--max-cost", "-1"), "--max-cost -1.0: must be at least 0"),
        (("--patience", "0"), "--patience 0.0: must be more than 0"),
        (("--patience", "nan"), "--patience nan: input should be a finite number"),
    ],
)
def test_impossible_budgets_and_patience_are_refused_up_front(
    tmp_path: Path, option: tuple[str, str], said: str
) -> None:
    with FakeOpenAI(Smart()) as server:
        result = _run(tmp_path, server.base_url, *option)
        assert server.chat_log() == []
    assert result.exit_code == 2, result.output
    assert said in result.output
    assert not (tmp_path / "out").exists()


# --- redirects and resets ------------------------------------------------------------------------


def _redirect_to(target: str) -> type[BaseHTTPRequestHandler]:
    class Redirect(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(307)
            self.send_header("Location", f"{target}{self.path.removeprefix('/v1')}")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Redirect


@pytest.fixture
def elsewhere() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(Smart()) as server:
        yield server


async def test_a_redirect_to_another_host_is_refused_and_nothing_is_sent_there(
    elsewhere: FakeOpenAI,
) -> None:
    other_host = elsewhere.base_url.replace("127.0.0.1", "localhost")
    with serving(_redirect_to(other_host)) as url:
        judge = client(f"{url}/v1")
        with pytest.raises(JudgeUnavailable, match="redirected \\(HTTP 307\\) to another host"):
            await judge.complete(HI)
        await judge.aclose()
    assert elsewhere.chat_log() == []


async def test_a_redirect_on_the_same_host_is_followed(elsewhere: FakeOpenAI) -> None:
    with serving(_redirect_to(elsewhere.base_url)) as url:
        judge = client(f"{url}/v1")
        reply = await judge.complete(HI)
        await judge.aclose()
    assert reply.text and len(elsewhere.chat_log()) == 1


@pytest.mark.parametrize("after", [0, 60])
async def test_a_connection_reset_mid_run_is_retried(after: int) -> None:
    nth = iter(range(100))
    fault = Fault("reset", reset_after=after, match=lambda _r: next(nth) == 1)
    with FakeOpenAI(Smart(), faults=[fault]) as server:
        judge = client(server.base_url)
        replies = [
            await judge.complete([{"role": "user", "content": f"Hi {i}."}]) for i in range(3)
        ]
        await judge.aclose()
    assert all(r.text for r in replies)
    assert server.counts() == {"ok": 3, "reset": 1}
    assert judge.retry_stats.connection_errors == 1 and judge.retry_stats.retries == 1


def test_a_run_whose_endpoint_resets_a_connection_mid_reply_finishes(tmp_path: Path) -> None:
    nth = iter(range(1000))
    fault = Fault("reset", reset_after=1500, match=lambda _r: next(nth) == 3)
    with FakeOpenAI(Smart(), faults=[fault]) as server:
        metrics = "faithfulness,context_recall,context_precision"  # no local model to load
        result = _run(tmp_path, server.base_url, "--metrics", metrics)
        counts = server.counts()
    assert result.exit_code == 0, result.output
    assert counts["reset"] == 1
    run = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert all(m["n_scored"] == 3 for m in run["summary"]["metrics"].values())
    assert run["run"]["judge_stats"]["connection_errors"] == 1
