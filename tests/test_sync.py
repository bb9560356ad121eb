"""ragmeter._util.sync.run_sync: the one way synchronous code runs the async core."""

from __future__ import annotations

import asyncio
import contextvars
import threading

import pytest

import ragmeter
from ragmeter._util.sync import run_sync
from ragmeter.clients import ChatClient
from ragmeter.clients.cache import LLMCache
from ragmeter.testing import FakeOpenAI, Smart

ROWS = [
    {
        "id": f"q{i}",
        "question": f"How long is the warranty of model {i}?",
        "ground_truth": "Two years.",
        "contexts": [f"Model {i} carries a two-year warranty."],
        "answer": "The warranty lasts two years.",
    }
    for i in range(3)
]


class Resource:
    def __init__(self, log: list[str], name: str) -> None:
        self.log, self.name = log, name

    async def aclose(self) -> None:
        self.log.append(f"closed {self.name}")


def test_returns_the_result_and_closes_last_first():
    log: list[str] = []

    async def main() -> int:
        log.append("ran")
        return 7

    assert run_sync(main(), closing=(Resource(log, "pipeline"), Resource(log, "judge"))) == 7
    assert log == ["ran", "closed judge", "closed pipeline"]


def test_an_error_is_raised_after_the_closing():
    log: list[str] = []

    async def main() -> None:
        raise ValueError("bad case")

    with pytest.raises(ValueError, match="bad case"):
        run_sync(main(), closing=(Resource(log, "judge"),))
    assert log == ["closed judge"]


def test_every_call_runs_on_the_same_loop_in_its_own_thread():
    async def where() -> tuple[asyncio.AbstractEventLoop, str]:
        return asyncio.get_running_loop(), threading.current_thread().name

    first, second = run_sync(where()), run_sync(where())
    assert first[0] is second[0] and not first[0].is_closed()
    assert first[1] == "ragmeter-loop" != threading.current_thread().name


def test_a_task_raising_system_exit_or_keyboard_interrupt_does_not_stop_the_loop():
    # asyncio lets these two out of run_forever from the task that raised them: before, the
    # loop's thread ended there and every caller waited for ever (issue 30).
    async def exits(error: BaseException) -> None:
        raise error

    async def main() -> list[str]:
        seen = []
        for error in (SystemExit(2), KeyboardInterrupt()):
            try:
                await asyncio.ensure_future(exits(error))
            except BaseException as exc:
                seen.append(type(exc).__name__)
        return seen

    outcome: list[object] = []
    caller = threading.Thread(target=lambda: outcome.append(run_sync(main())), daemon=True)
    caller.start()
    caller.join(120)  # a guard against the hang, not a measure of speed
    assert outcome == [["SystemExit", "KeyboardInterrupt"]]
    assert run_sync(asyncio.sleep(0, "served")) == "served"


def test_the_callers_context_variables_are_seen():
    tag: contextvars.ContextVar[str] = contextvars.ContextVar("tag", default="unset")
    tag.set("from the caller")

    async def read() -> str:
        return tag.get()

    assert run_sync(read()) == "from the caller"


def test_works_from_inside_a_running_loop_like_a_notebook():
    async def notebook_cell() -> str:
        result = ragmeter.evaluate(ROWS[:1], judge="local", metrics="faithfulness")
        return result.cases[0].id

    assert asyncio.run(notebook_cell()) == "q0"


def test_a_sync_call_from_inside_a_run_is_refused_clearly():
    async def pipeline_calling_evaluate() -> None:
        run_sync(asyncio.sleep(0))

    with pytest.raises(RuntimeError, match=r"await ragmeter\.aevaluate there instead"):
        run_sync(pipeline_calling_evaluate())


def test_an_llm_judge_serves_two_runs_in_a_row_over_one_client(tmp_path):
    with FakeOpenAI(Smart()) as server:
        judge = ragmeter.judge(
            "openai", model="fake", base_url=server.base_url, cache_dir=str(tmp_path)
        )
        first = ragmeter.evaluate(ROWS[:2], judge=judge, metrics="faithfulness")
        sdk = judge.client._sdk
        second = ragmeter.evaluate(ROWS[1:], judge=judge, metrics="faithfulness")
        assert judge.client._sdk is sdk  # nothing rebuilt for the second run
        run_sync(judge.aclose())
    scores = [c.score("faithfulness") for c in first.cases + second.cases]
    assert None not in scores and scores[1] == scores[2]  # q1 judged alike in both runs
    assert second.run.judge_stats["cached_calls"] > 0  # q1 came from the cache


def test_a_client_used_on_another_live_loop_says_to_close_it_first(tmp_path):
    with FakeOpenAI(Smart()) as server:
        client = ChatClient(
            model="fake",
            base_url=server.base_url,
            api_key_env=None,
            cache=LLMCache(tmp_path / "c.db"),
        )
        messages = [{"role": "user", "content": "Say yes."}]
        run_sync(client.complete(messages))

        async def elsewhere() -> None:
            await client.complete([{"role": "user", "content": "Say no."}])

        with pytest.raises(RuntimeError, match="in use on another event loop; await its aclose"):
            asyncio.run(elsewhere())
        run_sync(client.aclose())
        asyncio.run(elsewhere())  # closed: any loop may use it now
        asyncio.run(client.aclose())
