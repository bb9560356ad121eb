"""One case's one-token calls, every metric's together, sent in the order of their prompts.

llama.cpp keeps the prompt of a slot's last call: the next call prefills only what follows
the prefix the two share. The verifier prompts begin with their evidence, so sorting a case's
calls by prompt text walks their common prefixes depth first: every evidence window is
prefilled once for the case's chunk check, claims and reference points together, where one
metric after another came back to each window (and relied on llama.cpp's RAM prompt cache to
restore it). A prompt asked twice (a reference point that is also a claim) is sent once.

The queue waits until every verifier metric of the case has asked or finished (`members`),
then sends the calls one at a time; a metric's calls are answered in the order it asked them.
"""

from __future__ import annotations

import asyncio
from contextvars import Context, ContextVar, copy_context
from dataclasses import dataclass, field

from ...clients.client import ChatClient, ChatResponse

Messages = list[dict[str, str]]

ACTIVE: ContextVar[VerdictQueue | None] = ContextVar("verdict_queue", default=None)
"""The queue of the case being judged in this task (None: each metric sends its own calls)."""


def prompt_order(messages: Messages) -> str:
    """The text calls are sorted by: every message's role and content, in order."""
    return "\x1e".join(f"{m['role']}\x1f{m['content']}" for m in messages)


@dataclass
class _Call:
    messages: Messages
    waiting: list[tuple[str, Context, asyncio.Future[ChatResponse]]] = field(default_factory=list)
    """Who asked: the metric, its context (where its calls are counted) and its answer."""


class VerdictQueue:
    """The one-token calls of one case's `members` verifier metrics, sent together."""

    def __init__(self, client: ChatClient, case_id: str, salt: int, members: int) -> None:
        self.client = client
        self.case_id = case_id
        self.salt = salt
        self.members = members
        self._asking = 0
        self._left = 0
        self._pending: dict[str, _Call] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def ask(self, metric: str, calls: list[Messages]) -> list[ChatResponse | BaseException]:
        """The reply to each of `calls` (or the exception its call raised), once every member
        has asked or left."""
        loop = asyncio.get_running_loop()
        context = copy_context()
        futures: list[asyncio.Future[ChatResponse]] = []
        for messages in calls:
            call = self._pending.setdefault(prompt_order(messages), _Call(messages))
            future: asyncio.Future[ChatResponse] = loop.create_future()
            call.waiting.append((metric, context, future))
            futures.append(future)
        self._asking += 1
        self._flush_when_ready()
        return list(await asyncio.gather(*futures, return_exceptions=True))

    def leave(self) -> None:
        """A member finished: it asks nothing more."""
        self._left += 1
        self._flush_when_ready()

    def _flush_when_ready(self) -> None:
        if self._asking + self._left < self.members or not self._pending:
            return
        batch = [self._pending[key] for key in sorted(self._pending)]
        self._pending = {}
        self._asking = 0
        task = asyncio.get_running_loop().create_task(self._send(batch))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send(self, batch: list[_Call]) -> None:
        loop = asyncio.get_running_loop()
        try:
            for call in batch:
                if all(future.done() for _, _, future in call.waiting):
                    continue  # its metrics were cancelled (a case past its deadline)
                metric, context, _ = call.waiting[0]
                # sent in the first asker's context, so its run counts the call as its own
                sent = loop.create_task(
                    self.client.complete(
                        call.messages,
                        metric=metric,
                        case_id=self.case_id,
                        salt=self.salt,
                        max_tokens=1,
                    ),
                    context=context,
                )
                try:
                    reply = await sent
                except Exception as exc:  # handed to the metrics that asked
                    for _, _, future in call.waiting:
                        if not future.done():
                            future.set_exception(exc)
                    continue
                for n, (metric, context, future) in enumerate(call.waiting):
                    if n and self.client.tracker is not None:  # asked again: no call
                        context.run(
                            self.client.tracker.record,
                            reply.usage,
                            cached=True,
                            metric=metric,
                            case_id=self.case_id,
                        )
                    if not future.done():
                        future.set_result(reply)
        finally:  # cancelled: nobody waits for ever
            for call in batch:
                for _, _, future in call.waiting:
                    if not future.done():
                        future.cancel()


__all__ = ["ACTIVE", "VerdictQueue", "prompt_order"]
