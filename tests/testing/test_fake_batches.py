"""The fake server's batch API, through the openai SDK as ragmeter calls it."""

from __future__ import annotations

import json
import time

import openai
import pytest

from ragmeter.testing import BatchFault, FakeOpenAI, Fault


def _line(custom_id: str, content: str = "hello", **extra: object) -> str:
    body = {"model": "m", "messages": [{"role": "user", "content": content}]}
    record = {"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions"}
    return json.dumps({**record, "body": body, **extra})


def _submit(client: openai.OpenAI, lines: list[str]):
    data = "\n".join(lines).encode()
    upload = client.files.create(file=("in.jsonl", data, "application/jsonl"), purpose="batch")
    return client.batches.create(
        input_file_id=upload.id, endpoint="/v1/chat/completions", completion_window="24h"
    )


def _ended(client: openai.OpenAI, batch_id: str):
    deadline = time.monotonic() + 10
    while True:
        batch = client.batches.retrieve(batch_id)
        if batch.status in ("completed", "failed", "expired", "cancelled"):
            return batch
        assert time.monotonic() < deadline
        time.sleep(0.02)


def _records(client: openai.OpenAI, file_id: str | None) -> list[dict]:
    if file_id is None:
        return []
    text = client.files.content(file_id).content.decode()
    return [json.loads(line) for line in text.splitlines()]


@pytest.fixture
def server():
    with FakeOpenAI(
        faults=[Fault("server_error", match=lambda r: "boom" in str(r.messages))], batch_delay=0.05
    ) as fake:
        yield fake


def test_lines_are_answered_through_the_chat_path_errors_in_the_error_file(server):
    client = openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=0)
    created = _submit(client, [_line("a"), _line("b", "boom"), _line("c")])
    assert created.status == "validating"
    batch = _ended(client, created.id)
    assert batch.status == "completed"
    assert (batch.request_counts.total, batch.request_counts.completed) == (3, 2)
    output = _records(client, batch.output_file_id)
    assert [r["custom_id"] for r in output] == ["a", "c"]
    assert output[0]["response"]["status_code"] == 200
    assert output[0]["response"]["body"]["choices"][0]["message"]["role"] == "assistant"
    [error] = _records(client, batch.error_file_id)
    assert error["custom_id"] == "b" and error["response"]["status_code"] == 500
    assert [r.batch for r in server.batch_log()] == [created.id] * 3
    assert server.online_log() == [] and server.batches.uploads == ["file-fake-0"]


def test_an_invalid_input_file_fails_the_batch_naming_the_line(server):
    client = openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=0)
    batch = _ended(client, _submit(client, [_line("a"), _line("a"), "not json"]).id)
    assert batch.status == "failed" and batch.output_file_id is None
    problems = [(e.code, e.line) for e in batch.errors.data]
    assert problems == [("duplicate_custom_id", 2), ("invalid_json", 3)]
    assert server.batch_log() == []


def test_batch_faults_expire_part_of_a_batch():
    with FakeOpenAI(batch_delay=0.05, batch_faults=[BatchFault("expired", done_share=0.5)]) as fake:
        client = openai.OpenAI(base_url=fake.base_url, api_key="k", max_retries=0)
        batch = _ended(client, _submit(client, [_line(str(i)) for i in range(4)]).id)
        assert batch.status == "expired"
        assert [r["custom_id"] for r in _records(client, batch.output_file_id)] == ["0", "1"]
        errors = _records(client, batch.error_file_id)
        assert [(r["custom_id"], r["error"]["code"]) for r in errors] == [
            ("2", "batch_expired"),
            ("3", "batch_expired"),
        ]


def test_cancel_and_unknown_ids(server):
    server.batches.delay = 5.0
    client = openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=0)
    created = _submit(client, [_line("a")])
    client.batches.cancel(created.id)
    assert _ended(client, created.id).status == "cancelled"
    with pytest.raises(openai.NotFoundError):
        client.batches.retrieve("batch_nope")
    with pytest.raises(openai.NotFoundError):
        client.files.content("file-nope")
    with pytest.raises(openai.BadRequestError):
        client.files.create(file=("x.jsonl", b"{}", "application/jsonl"), purpose="assistants")
