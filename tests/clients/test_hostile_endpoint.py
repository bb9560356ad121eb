"""A judge endpoint that misbehaves (issue 13): bytes trickling in, huge replies, impossible
usage. Every test talks HTTP to a real server on 127.0.0.1 (the fake, or a tiny one here)."""

from __future__ import annotations

import functools
import gzip
import json
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from local_http import serving
from ragmeter.clients import (
    ChatClient,
    CostLimitReached,
    CostTracker,
    LLMCache,
    LLMCallError,
    Price,
    PriceTable,
    RetryPolicy,
    forget_output_modes,
)
from ragmeter.clients.errors import InvalidReply
from ragmeter.clients.replycap import MAX_REPLY_BYTES
from ragmeter.embeddings.similarity import EmbeddingClient
from ragmeter.judges.base import METRICS, Sample
from ragmeter.judges.llm import EmbeddingEndpoint, LLMJudgeConfig, build_llm_judge
from ragmeter.testing import FakeOpenAI, Fault, Smart

HI = [{"role": "user", "content": "Say hi."}]


@pytest.fixture(autouse=True)
def _fresh_modes() -> None:
    forget_output_modes()


def client(base_url: str, cache: LLMCache, **kw: Any) -> ChatClient:
    policy = RetryPolicy(max_retries=1, backoff_base=0.01, timeout=2.0)
    return ChatClient(
        model="m", base_url=base_url, api_key_env=None, policy=policy, cache=cache, **kw
    )


# --- 2. a total deadline per call -------------------------------------------------------------


async def test_a_slow_drip_reply_is_cut_at_the_call_deadline_and_retried_as_a_timeout(
    tmp_path: Path,
) -> None:
    # A byte every 0.25 s: every read comes well within the 2 s timeout, the whole reply
    # (some 300 bytes) would take over a minute.
    with FakeOpenAI(Smart(), faults=[Fault("slow_drip", drip_interval=0.25)]) as server:
        judge = client(server.base_url, LLMCache(tmp_path / "c.db"))
        started = time.monotonic()
        with pytest.raises(LLMCallError, match=r"timed out after 2s \(1 retries exhausted\)"):
            await judge.complete(HI)
        elapsed = time.monotonic() - started
        await judge.aclose()
        assert elapsed < 15  # two attempts of 2 s each, not two minutes
        assert judge.retry_stats.timeouts == 2 and judge.retry_stats.retries == 1
        assert len(server.chat_log()) == 2
        assert all(r.drip == 0.25 for r in server.chat_log())
        assert judge.cache.count() == 0


# --- 3. a bound on reply size ------------------------------------------------------------------


def sample() -> Sample:
    return Sample(
        case_id="c1",
        question="How long are deleted notes kept?",
        ground_truth="Deleted notes stay 30 days.",
        contexts=["Deleted notes stay 30 days in the bin."],
        answer="Deleted notes stay 30 days.",
    )


async def test_an_oversized_reply_is_refused_unscored_with_the_reason_and_not_cached(
    tmp_path: Path,
) -> None:
    faults = [Fault("oversized", size=10_000_000)]  # 10 MB of content, still valid JSON
    with FakeOpenAI(Smart(), faults=faults) as server:
        config = LLMJudgeConfig(
            model="judge-m",
            base_url=server.base_url,
            api_key_env=None,
            cache_path=tmp_path / "c.db",
            embedding=EmbeddingEndpoint(model="emb", base_url=server.base_url, api_key_env=None),
            max_retries=0,
        )
        judge = build_llm_judge(config)
        try:
            results = await judge.judge(sample(), METRICS)
        finally:
            await judge.aclose()
        assert server.counts().get("oversized", 0) >= 1
    for metric in METRICS:
        result = results[metric]
        assert result.score is None, metric
        assert f"larger than {MAX_REPLY_BYTES:,} bytes" in (result.unscored_reason or ""), metric
    assert LLMCache(tmp_path / "c.db").count() == 0


@functools.cache
def _gzipped_reply(embeddings: bool, bomb: bool) -> bytes:
    """A chat or embeddings reply compressed with gzip; a bomb is padded with 50 MB of spaces
    that compress to some 50 KB. Compressed once per session, before any call is timed: under
    load, compressing 50 MB took longer than the client's 2 s deadline."""
    padding = " " * 50_000_000 if bomb else ""
    if embeddings:
        vector = {"object": "embedding", "index": 0, "embedding": [0.6, 0.8]}
        usage = {"prompt_tokens": 2, "total_tokens": 2}
        text = json.dumps({"object": "list", "data": [vector], "model": "e", "usage": usage})
        return gzip.compress((text + padding).encode(), compresslevel=9)
    reply = {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "hi" + padding},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
    }
    return gzip.compress(json.dumps(reply).encode(), compresslevel=9)


class _Gzip(BaseHTTPRequestHandler):
    """A chat or embeddings reply compressed with gzip: under `/ok` a normal one, under `/bomb`
    one that decompresses to over 50 MB."""

    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        data = _gzipped_reply(self.path.endswith("/embeddings"), "/bomb/" in self.path)
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def gzip_url() -> Iterator[str]:
    for embeddings in (False, True):
        for bomb in (False, True):
            _gzipped_reply(embeddings, bomb)
    with serving(_Gzip) as url:
        yield url


async def test_a_compressed_reply_is_bounded_after_decompression(gzip_url: str) -> None:
    ok = client(f"{gzip_url}/ok", LLMCache(None))
    reply = await ok.complete(HI)
    await ok.aclose()
    assert reply.text == "hi"  # a gzip reply of normal size still works
    bomb = client(f"{gzip_url}/bomb", LLMCache(None))
    with pytest.raises(InvalidReply, match=f"larger than {MAX_REPLY_BYTES:,} bytes"):
        await bomb.complete(HI)
    await bomb.aclose()
    assert bomb.retry_stats.retries == 0  # refused at once, not retried


async def test_an_embeddings_reply_is_bounded_like_a_chat_reply(gzip_url: str) -> None:
    policy = RetryPolicy(max_retries=1, backoff_base=0.01, timeout=2.0)

    def embedder(base_url: str) -> EmbeddingClient:
        return EmbeddingClient(
            "e", base_url=base_url, api_key_env=None, policy=policy, cache=LLMCache(None)
        )

    ok = embedder(f"{gzip_url}/ok")
    assert await ok.embed(["a"]) == [[0.6, 0.8]]
    await ok.aclose()
    bomb = embedder(f"{gzip_url}/bomb")
    with pytest.raises(InvalidReply, match=f"larger than {MAX_REPLY_BYTES:,} bytes"):
        await bomb.embed(["a"])
    await bomb.aclose()
    assert bomb.retry_stats.retries == 0


# --- 4. usage that cannot be ------------------------------------------------------------------


async def test_negative_usage_is_estimated_instead_with_a_warning_and_the_budget_holds(
    tmp_path: Path,
) -> None:
    prices = PriceTable.with_overrides({"m": Price(prompt=1000.0, completion=1000.0)})
    tracker = CostTracker("m", prices, max_cost=0.5)  # some 250 tokens' worth
    with FakeOpenAI(Smart(), faults=[Fault("bad_usage")]) as server:
        judge = client(server.base_url, LLMCache(tmp_path / "c.db"), tracker=tracker)
        reply = await judge.complete(HI)
        assert reply.prompt_tokens > 0 and reply.completion_tokens > 0  # estimated, not -1e6
        assert tracker.cost is not None and tracker.cost > 0
        assert judge.usage_note is not None
        assert "reported impossible token usage (-1000000 prompt" in judge.usage_note
        with pytest.raises(CostLimitReached):  # the budget trips; before, it never would
            for i in range(50):
                await judge.complete([{"role": "user", "content": f"Say hi {i}. " * 20}])
        await judge.aclose()
        cached = judge.cache.get(reply.key)
        assert cached is not None and cached.prompt_tokens == reply.prompt_tokens >= 0


async def test_absurd_or_non_integer_usage_is_not_believed(tmp_path: Path) -> None:
    faults = [
        Fault("bad_usage", times=1, usage={"prompt_tokens": 10**15, "completion_tokens": 3}),
        Fault("bad_usage", times=1, usage={"prompt_tokens": "12", "completion_tokens": 3}),
    ]
    with FakeOpenAI(Smart(), faults=faults) as server:
        judge = client(server.base_url, LLMCache(None))
        for i in range(3):
            reply = await judge.complete([{"role": "user", "content": f"Say hi {i}."}])
            assert isinstance(reply.prompt_tokens, int) and 0 < reply.prompt_tokens < 1000
        await judge.aclose()
    assert judge.tracker is not None and judge.tracker.spent.prompt_tokens < 3000


# --- 5. bodies the fast JSON decoder refuses --------------------------------------------------


class _Odd(BaseHTTPRequestHandler):
    """`/inf` a reply whose log-probabilities hold -Infinity (what Python's json writes for an
    impossible token; orjson refuses it), `/html` a 200 that is not JSON at all."""

    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        if self.path.startswith("/html"):
            data, kind = b"<html>maintenance</html>", "text/html"
        else:
            token = {"token": "hi", "logprob": 0.0, "top_logprobs": []}
            token["top_logprobs"] = [
                {"token": "hi", "logprob": 0.0},
                {"token": "yo", "logprob": float("-inf")},
            ]
            reply = {
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": "hi"},
                        "logprobs": {"content": [token]},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
            }
            data, kind = json.dumps(reply).encode(), "application/json"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def odd_url() -> Iterator[str]:
    with serving(_Odd) as url:
        yield url


async def test_an_infinite_logprob_is_read_cached_and_read_back(
    odd_url: str, tmp_path: Path
) -> None:
    cache = LLMCache(tmp_path / "c.db")
    first = client(f"{odd_url}/inf", cache, top_logprobs=2)
    reply = await first.complete(HI)
    await first.aclose()
    assert reply.text == "hi" and reply.logprobs is not None
    assert list(reply.logprobs[0].top) == [("hi", 0.0), ("yo", float("-inf"))]
    again = client(f"{odd_url}/inf", cache, top_logprobs=2)
    hit = await again.complete(HI)
    await again.aclose()
    assert hit.cached and hit.logprobs is not None
    assert list(hit.logprobs) == list(reply.logprobs)


async def test_a_reply_that_is_not_json_fails_quoting_it(odd_url: str) -> None:
    html = client(f"{odd_url}/html", LLMCache(None))
    with pytest.raises(LLMCallError, match="no choices: '<html>maintenance</html>'"):
        await html.complete(HI)
    await html.aclose()


def test_the_client_sends_through_the_sdks_aiohttp_transport() -> None:
    chat = client("http://127.0.0.1:9/v1", LLMCache(None))
    chat.prepare()
    transport = chat._sdk._client._transport  # the SDK's http client, then its transport
    assert type(transport).__module__.endswith("httpx_aiohttp.transport")


async def test_the_embeddings_client_sends_through_the_same_transport() -> None:
    embedder = EmbeddingClient("e", base_url="http://127.0.0.1:9/v1", api_key_env=None)
    transport = embedder._client()._client._transport  # built on the running loop
    assert type(transport).__module__.endswith("httpx_aiohttp.transport")
    await embedder.aclose()
