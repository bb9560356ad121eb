"""The pool's idle-connection probe (ragmeter.clients.netprobe): same answers, cheaper."""

from __future__ import annotations

import asyncio
import socket

import openai

from ragmeter.clients import netprobe
from ragmeter.testing import FakeOpenAI, Smart


def test_install_wraps_the_pool_backend_once_and_leaves_other_clients_alone() -> None:
    client = openai.DefaultAsyncHttpxClient()
    assert netprobe.install(client) is True
    assert netprobe.install(client) is False  # already wrapped
    assert netprobe.install(object()) is False  # not an httpx client: unchanged


def test_readable_probe_matches_the_socket_state() -> None:
    a, b = socket.socketpair()
    try:
        assert netprobe._readable(a) is False
        b.sendall(b"x")
        assert netprobe._readable(a) is True
        b.close()
        a.recv(1)
        assert netprobe._readable(a) is True  # end of stream: readable, as httpcore says
    finally:
        a.close()
        b.close()
    assert netprobe._readable(a) is True  # no descriptor: counts as readable


def test_calls_go_through_the_wrapped_pool_and_reuse_connections() -> None:
    async def go(base_url: str) -> list[int]:
        client = openai.DefaultAsyncHttpxClient()
        assert netprobe.install(client)
        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        try:
            statuses = []
            for _ in range(3):
                reply = await client.post(f"{base_url}/chat/completions", json=body)
                statuses.append(reply.status_code)
            pool = client._transport._pool  # type: ignore[attr-defined]
            assert len(pool.connections) == 1  # kept alive, probed idle, reused
            return statuses
        finally:
            await client.aclose()

    with FakeOpenAI(Smart()) as server:
        assert asyncio.run(go(server.base_url)) == [200, 200, 200]
