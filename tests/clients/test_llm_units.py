"""Pure pieces of the LLM layer: JSON extraction, Retry-After, AIMD, keys, cost, cache."""

from __future__ import annotations

import email.utils
import time

import pytest

from ragmeter._exceptions import ConfigError
from ragmeter.clients import (
    AdaptiveLimiter,
    CostLimitReached,
    CostTracker,
    LLMCache,
    Price,
    PriceTable,
    Usage,
    cache_key,
    count_tokens,
    extract_json,
    parse_retry_after,
    resolve_api_key,
    strict_schema,
)
from ragmeter.judges.llm.schemas import FaithfulnessVerdicts


def test_extract_json_from_fences_and_prose():
    assert extract_json('```json\n{"a": [1, {"b": "}"}]}\n```') == {"a": [1, {"b": "}"}]}
    assert extract_json('Verdict follows {x} then {"a": 1} done') == {"a": 1}
    with pytest.raises(ValueError, match="truncated"):
        extract_json('{"verdicts": [{"a": 1}, {"b"')
    with pytest.raises(ValueError, match="not valid JSON"):
        extract_json("no json at all")


def test_retry_after_seconds_and_http_date():
    assert parse_retry_after("2") == 2.0
    assert parse_retry_after("0.25") == 0.25
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None
    now = time.time()
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert 28 <= parse_retry_after(date, now=now) <= 31
    assert parse_retry_after(email.utils.formatdate(now - 30, usegmt=True), now=now) == 0.0


def test_adaptive_limiter_halves_and_grows_back():
    limiter = AdaptiveLimiter(8)
    limiter.on_rate_limited(None)
    assert limiter.limit == 4
    limiter.on_rate_limited(None)
    assert limiter.limit == 2
    for _ in range(2):
        limiter.on_success()
    assert limiter.limit == 3
    for _ in range(100):
        limiter.on_success()
    assert limiter.limit == 8
    limiter.on_rate_limited(5.0)
    limiter.on_rate_limited(5.0)  # same burst: only one cut per pause window
    assert limiter.limit == 4


def test_api_key_resolution(monkeypatch):
    monkeypatch.delenv("RAGMETER_TEST_KEY", raising=False)
    with pytest.raises(ConfigError, match="RAGMETER_TEST_KEY"):
        resolve_api_key("RAGMETER_TEST_KEY", "https://api.deepseek.com/v1")
    assert resolve_api_key("RAGMETER_TEST_KEY", "http://localhost:11434/v1") == "EMPTY"
    assert resolve_api_key(None, "https://example.com/v1") == "EMPTY"
    monkeypatch.setenv("RAGMETER_TEST_KEY", "sk-test")
    assert resolve_api_key("RAGMETER_TEST_KEY", "https://api.deepseek.com/v1") == "sk-test"


def test_count_tokens_approximation_counts_cjk_per_char():
    assert count_tokens("") == 0
    assert count_tokens("水在海平面") == 5
    assert 9 <= count_tokens("x" * 40) <= 11


def test_cost_tracker_budget_and_cache_hits_are_free():
    prices = PriceTable.with_overrides({"m": Price(prompt=1.0, completion=2.0)})
    tracker = CostTracker("m", prices, max_cost=0.003)
    tracker.record(Usage(1, 1000, 500), cached=False, metric="faithfulness", case_id="c1")
    tracker.record(Usage(1, 9000, 9000), cached=True, metric="faithfulness", case_id="c1")
    assert tracker.cost == pytest.approx(0.002)
    assert tracker.by_metric["faithfulness"].calls == 1 and tracker.cached.calls == 1
    tracker.check_budget()
    tracker.record(Usage(1, 1000, 0), cached=False, metric="context_recall", case_id="c2")
    with pytest.raises(CostLimitReached, match=r"judge budget reached: --max-cost 0.003"):
        tracker.check_budget()


def test_strict_schema_requires_every_property():
    schema = strict_schema(FaithfulnessVerdicts)
    item = schema["$defs"]["ClaimCheck"]
    assert item["additionalProperties"] is False
    assert set(item["required"]) == set(item["properties"])
    assert "default" not in str(schema)


def test_cache_roundtrip_and_capabilities(tmp_path):
    path = tmp_path / "c.sqlite"
    cache = LLMCache(path)
    key = cache_key({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    cache.put(
        key,
        base_url="u",
        model="m",
        request={"x": 1},
        response="out",
        prompt_tokens=3,
        completion_tokens=1,
    )
    cache.put_mode("u|m", "json_object")
    cache.close()
    again = LLMCache(path)
    assert again.get(key).response == "out" and again.raw_output(key) == "out"
    assert again.get_mode("u|m") == "json_object"
    assert again.get("0" * 64) is None
    assert key != cache_key({"model": "m", "messages": [{"role": "user", "content": "hi!"}]})


def test_budget_reservations_wait_for_calls_in_flight_and_never_overshoot():
    from ragmeter.clients.cost import MIN_COMPLETION_TOKENS, BudgetBusy

    prices = PriceTable.with_overrides({"m": Price(prompt=1.0, completion=1.0)})
    tracker = CostTracker("m", prices, max_cost=0.001)  # 1,000 tokens at $1 per million
    first = tracker.reserve(100)
    assert first.max_tokens == 1000 - 125  # the prompt is set aside with 25% to spare
    with pytest.raises(BudgetBusy):  # only the call in flight keeps this one out
        tracker.reserve(100)
    tracker.record(Usage(1, 100, 300), cached=False)
    tracker.release(first)
    second = tracker.reserve(100)
    assert second.max_tokens == 1000 - 400 - 125
    assert (tracker.cost or 0) + second.cost <= 0.001
    tracker.release(second)
    tracker.record(Usage(1, 100, 1000 - 400 - 100 - MIN_COMPLETION_TOKENS + 1), cached=False)
    with pytest.raises(CostLimitReached):  # the unspent budget itself is too small now
        tracker.reserve(100)
    with pytest.raises(CostLimitReached):  # and it stays stopped
        tracker.reserve(1)


def test_redact_hides_keys_key_like_tokens_and_url_passwords():
    from ragmeter._util.redact import looks_like_a_key, redact

    text = "bad key sk-abcdefghijklmnop for https://bob:hunter2@api.example/v1, secret=MYKEY123"
    out = redact(text, ["MYKEY123"])
    assert "sk-abcdef" not in out and "hunter2" not in out and "MYKEY123" not in out
    assert "https://***@api.example/v1" in out
    assert looks_like_a_key("sk-abcdefghijklmnop") and not looks_like_a_key("OPENAI_API_KEY")


def test_a_key_given_as_the_variable_name_is_refused_without_echoing_it():
    from ragmeter.clients import resolve_api_key

    with pytest.raises(ConfigError) as info:
        resolve_api_key("sk-live-abcdefghijklmnop", "https://api.openai.com/v1")
    assert "NAME of an environment variable" in str(info.value)
    assert "abcdefghijklmnop" not in str(info.value)


async def test_a_judge_that_only_times_out_is_slow_not_unreachable(tmp_path):
    from ragmeter.clients import ChatClient, LLMCache, LLMCallError, RetryPolicy
    from ragmeter.testing import FakeOpenAI, Fault, Smart

    with FakeOpenAI(Smart(), faults=[Fault("slow", delay=1.0)]) as server:
        client = ChatClient(
            model="m",
            base_url=server.base_url,
            api_key_env=None,
            policy=RetryPolicy(max_retries=1, backoff_base=0.01, timeout=0.2),
            cache=LLMCache(None),
        )
        with pytest.raises(LLMCallError, match="timed out"):  # unscored, the run goes on
            await client.complete([{"role": "user", "content": "hi"}])
        await client.aclose()


def test_a_cache_key_with_a_prerendered_member_is_the_key_of_the_whole_payload():
    from ragmeter.clients.cache import cache_key, canonical_json

    schema = {
        "type": "json_schema",
        "json_schema": {
            "name": "V",
            "strict": True,
            "schema": {"type": "object", "properties": {"verdict": {"enum": ["是", "no"]}}},
        },
    }
    payload: dict[str, object] = {
        "model": "m",
        "messages": [{"role": "user", "content": "Évidence «x» 证据"}],
        "params": {"temperature": 0.0, "top_logprobs": 5},
        "base_url": "http://h/v1",
        "response_format": schema,
    }
    whole = cache_key(payload)
    assert cache_key(payload, {"response_format": canonical_json(schema)}) == whole
    assert cache_key(payload, {"response_format": canonical_json({"type": "json_object"})}) != whole


def test_the_client_renders_each_response_format_once_and_keys_every_call_as_before():
    import json as json_module

    from pydantic import BaseModel

    from ragmeter.clients.cache import cache_key
    from ragmeter.clients.client import ChatClient
    from ragmeter.clients.structured import response_format

    class Verdict(BaseModel):
        verdict: str

    fmt = response_format("json_schema", Verdict)
    assert response_format("json_schema", Verdict) is fmt  # one object per mode and class
    client = ChatClient(model="m", base_url="http://127.0.0.1:9/v1", api_key_env=None)
    messages = [{"role": "user", "content": "q"}]
    expected = cache_key(
        {
            "base_url": "http://127.0.0.1:9/v1",
            "model": "m",
            "messages": messages,
            "params": {"temperature": 0.0},
            "response_format": json_module.loads(json_module.dumps(fmt)),  # a copy: no memo
        }
    )
    assert client.request_key(messages, fmt) == expected
    assert client.request_key(messages, fmt) == expected  # rendered once, reused
    assert client.request_key(messages, None) != expected
