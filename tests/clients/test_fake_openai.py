"""The fake server itself: OpenAI-shaped answers, faults, logs."""

from __future__ import annotations

import json

import httpx
import pytest

from ragmeter.clients.structured import strict_schema
from ragmeter.judges.llm import schemas
from ragmeter.testing import FakeOpenAI, FakeRequest, Fault, Scripted, schema_valid


def _chat(server: FakeOpenAI, schema_model=None, **extra):
    body = {"model": "m", "messages": [{"role": "user", "content": "hello"}], **extra}
    if schema_model is not None:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": schema_model.__name__, "schema": strict_schema(schema_model)},
        }
    return httpx.post(f"{server.base_url}/chat/completions", json=body, timeout=5)


@pytest.mark.parametrize("name", schemas.SCHEMA_NAMES)
def test_schema_valid_responder_returns_valid_instances(name):
    model = getattr(schemas, name)
    request = FakeRequest.parse(
        {
            "model": "m",
            "messages": [],
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": name, "schema": strict_schema(model)},
            },
        }
    )
    model.model_validate_json(schema_valid(request))


def test_chat_response_is_openai_shaped_with_usage():
    with FakeOpenAI(Scripted({"ChunkRating": {"index": 0, "useful": True, "reason": "r"}})) as srv:
        reply = _chat(srv, schemas.ChunkRating).json()
        assert json.loads(reply["choices"][0]["message"]["content"])["useful"] is True
        assert reply["usage"]["prompt_tokens"] > 0 and reply["usage"]["completion_tokens"] > 0
        assert srv.log[0].response_format == "json_schema"
        assert srv.log[0].schema_name == "ChunkRating"


def test_faults_fire_as_configured():
    faults = [
        Fault("rate_limit", times=1, retry_after=7),
        Fault("server_error", times=1),
        Fault("truncated", times=1),
    ]
    with FakeOpenAI(faults=faults) as srv:
        first = _chat(srv, schemas.ChunkRating)
        assert first.status_code == 429 and first.headers["retry-after"] == "7"
        assert _chat(srv, schemas.ChunkRating).status_code == 500
        text = _chat(srv, schemas.ChunkRating).json()["choices"][0]["message"]["content"]
        with pytest.raises(json.JSONDecodeError):
            json.loads(text)
        assert _chat(srv, schemas.ChunkRating).status_code == 200
        assert srv.counts() == {"rate_limit": 1, "server_error": 1, "truncated": 1, "ok": 1}


def test_no_json_schema_mode_answers_500_like_llama_cpp():
    with FakeOpenAI(json_schema=False) as srv:
        reply = _chat(srv, schemas.ChunkRating)
        assert reply.status_code == 500 and "json_schema" in reply.text
        ok = _chat(srv, response_format={"type": "json_object"})
        assert ok.status_code == 200


def test_embeddings_are_deterministic_unit_vectors():
    with FakeOpenAI() as srv:
        body = {"model": "e", "input": ["water boils", "水的沸点"]}
        a = httpx.post(f"{srv.base_url}/embeddings", json=body, timeout=5).json()
        b = httpx.post(f"{srv.base_url}/embeddings", json=body, timeout=5).json()
        assert a["data"] == b["data"] and len(a["data"]) == 2
        vec = a["data"][0]["embedding"]
        assert abs(sum(x * x for x in vec) - 1.0) < 1e-9
