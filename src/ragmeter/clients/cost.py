"""Token counting, prices, a running cost tracker with a budget, and dry-run estimates."""

from __future__ import annotations

import contextlib
import re
import threading
from collections import defaultdict
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Protocol

from pydantic import BaseModel, Field

from .errors import CostLimitReached

_CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")


def count_tokens(text: str, model: str | None = None) -> int:
    """Tokens in ``text``: tiktoken when installed, else ~4 chars per token plus 1 per CJK char."""
    if not text:
        return 0
    encoder = _tiktoken_encoder(model)
    if encoder is not None:
        return len(encoder.encode(text, disallowed_special=()))
    cjk = len(_CJK.findall(text))
    return cjk + max(1, round((len(text) - cjk) / 4)) if len(text) > cjk else cjk


class _Encoder(Protocol):
    """The part of a tiktoken ``Encoding`` used here."""

    def encode(self, text: str, *, disallowed_special: tuple[()]) -> list[int]: ...


_ENCODERS: dict[str | None, _Encoder | None] = {}


def _tiktoken_encoder(model: str | None) -> _Encoder | None:
    if model in _ENCODERS:
        return _ENCODERS[model]
    encoder = None
    try:
        import tiktoken

        try:
            encoder = tiktoken.encoding_for_model(model or "gpt-4o")
        except KeyError:
            encoder = tiktoken.get_encoding("o200k_base")
    except Exception:  # not installed, or its encoding files are not available offline
        encoder = None
    _ENCODERS[model] = encoder
    return encoder


class Price(BaseModel):
    """US dollars per million tokens."""

    prompt: float
    completion: float


EXAMPLE_PRICES: dict[str, Price] = {
    # Examples only, as listed by the vendors in 2024-2025; set your own in `prices`.
    "gpt-4o-mini": Price(prompt=0.15, completion=0.60),
    "gpt-4o": Price(prompt=2.50, completion=10.00),
    "gpt-4.1-mini": Price(prompt=0.40, completion=1.60),
    "deepseek-chat": Price(prompt=0.27, completion=1.10),
    "qwen-plus": Price(prompt=0.40, completion=1.20),
}


class PriceTable(BaseModel):
    """Prices by model name; user entries override the examples."""

    prices: dict[str, Price] = Field(default_factory=lambda: dict(EXAMPLE_PRICES))

    @classmethod
    def with_overrides(cls, overrides: dict[str, Price] | None) -> PriceTable:
        table = dict(EXAMPLE_PRICES)
        table.update(overrides or {})
        return cls(prices=table)

    def get(self, model: str) -> Price | None:
        """The price of ``model``, also matching a provider prefix (``openai/gpt-4o``)."""
        if model in self.prices:
            return self.prices[model]
        short = model.rsplit("/", 1)[-1]
        return self.prices.get(short)

    def cost(self, model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
        price = self.get(model)
        if price is None:
            return None
        return (prompt_tokens * price.prompt + completion_tokens * price.completion) / 1e6


@dataclass
class Usage:
    """Token and call counts."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, other: Usage) -> None:
        self.calls += other.calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens


BATCH_PRICE_SHARE = 0.5
"""Share of the online price a batch API bills (OpenAI's Batch API: half, prompt and
completion alike)."""

PROMPT_SAFETY = 1.25
"""Prompt tokens are estimated before a call (see :func:`count_tokens`); the budget sets aside
this much more in case the endpoint's tokenizer counts more than the estimate."""
MIN_COMPLETION_TOKENS = 256
"""A call the budget can pay fewer completion tokens than this for is not sent: its reply would
be cut off before it says anything useful."""
DEFAULT_MAX_COMPLETION_TOKENS = 4096
"""Completion tokens set aside per call under a budget (and its `max_tokens`)."""


_collector: ContextVar[Usage | None] = ContextVar("ragmeter_usage_collector", default=None)


@contextlib.contextmanager
def collecting_usage() -> Iterator[Usage]:
    """Also count, into the Usage yielded, every call :meth:`CostTracker.record` records
    in this context (tasks started in it included), cached or not: the calls behind one
    metric result, whatever code made them."""
    usage = Usage()
    token = _collector.set(usage)
    try:
        yield usage
    finally:
        _collector.reset(token)


class BudgetBusy(Exception):
    """The budget could pay for a call once the calls in flight have settled: wait, retry."""


@dataclass(frozen=True)
class Reservation:
    """Money set aside for one call before it is sent."""

    cost: float
    max_tokens: int | None
    """The call's completion-token ceiling; None without a budget."""


class CostTracker:
    """Tokens and cost spent so far, per metric and per case, with an optional hard budget.

    Under a budget every call first reserves the most it can cost (its estimated prompt plus a
    completion ceiling it is sent with as `max_tokens`), so concurrent calls cannot overshoot.
    A call that only the reservations of calls in flight keep out waits for them to settle
    (:class:`BudgetBusy`); one the unspent budget itself cannot pay for is refused, and every
    later one with it.
    Calls answered from the cache are counted apart (``cached``) and cost nothing. Calls sent
    through a batch API are part of ``spent`` and also counted in ``batch``; they cost
    ``batch_share`` of the price.
    """

    def __init__(
        self,
        model: str,
        prices: PriceTable,
        max_cost: float | None = None,
        *,
        batch_share: float = BATCH_PRICE_SHARE,
    ) -> None:
        self.model = model
        self.prices = prices
        self.max_cost = max_cost
        self.batch_share = batch_share
        self.spent = Usage()
        self.cached = Usage()
        self.batch = Usage()
        """The part of ``spent`` sent through a batch API, billed at ``batch_share``."""
        self.by_metric: dict[str, Usage] = defaultdict(Usage)
        self.by_case: dict[str, Usage] = defaultdict(Usage)
        self.reserved = 0.0
        self.refused_calls = 0
        """Calls not sent because the budget could not pay for them."""
        self._lock = threading.Lock()

    def reserve(
        self,
        prompt_tokens: int,
        max_completion: int = DEFAULT_MAX_COMPLETION_TOKENS,
        *,
        batch: bool = False,
    ) -> Reservation:
        """Set aside the most a call with ``prompt_tokens`` (estimated) can cost (at batch
        prices when ``batch``).

        Raises :class:`CostLimitReached` when the budget cannot pay for it, or already could
        not for an earlier call.
        """
        price = self.prices.get(self.model)
        if self.max_cost is None or price is None:
            return Reservation(0.0, None)
        if batch:
            share = self.batch_share
            price = Price(prompt=price.prompt * share, completion=price.completion * share)
        with self._lock:
            prompt_cost = prompt_tokens * PROMPT_SAFETY * price.prompt / 1e6

            def affordable(available: float) -> int:
                if prompt_cost > available:
                    return 0
                if price.completion <= 0:
                    return max_completion
                return min(max_completion, int((available - prompt_cost) * 1e6 / price.completion))

            unreserved = self.max_cost - (self.cost or 0.0)
            if self.refused_calls or affordable(unreserved) < MIN_COMPLETION_TOKENS:
                self.refused_calls += 1
                raise CostLimitReached(self.max_cost)
            tokens = affordable(unreserved - self.reserved)
            if tokens < MIN_COMPLETION_TOKENS:  # affordable once calls in flight settle
                raise BudgetBusy()
            cost = prompt_cost + tokens * price.completion / 1e6
            self.reserved += cost
            return Reservation(cost, tokens)

    def release(self, reservation: Reservation) -> None:
        """Return a reservation once its call has finished (its real cost is recorded)."""
        with self._lock:
            self.reserved = max(0.0, self.reserved - reservation.cost)

    @property
    def priced(self) -> bool:
        return self.prices.get(self.model) is not None

    @property
    def cost(self) -> float | None:
        """Dollars spent so far (batch calls at batch prices), None when the model has no
        price."""
        spent, batch = self.spent, self.batch
        online = self.prices.cost(
            self.model,
            spent.prompt_tokens - batch.prompt_tokens,
            spent.completion_tokens - batch.completion_tokens,
        )
        if online is None:
            return None
        batched = self.prices.cost(self.model, batch.prompt_tokens, batch.completion_tokens)
        return online + self.batch_share * (batched or 0.0)

    @property
    def batch_saving(self) -> float | None:
        """Dollars the batch calls saved against the online price, None without a price."""
        batched = self.prices.cost(
            self.model, self.batch.prompt_tokens, self.batch.completion_tokens
        )
        return None if batched is None else (1 - self.batch_share) * batched

    def check_budget(self) -> None:
        """Raise :class:`CostLimitReached` when the budget is spent."""
        if self.max_cost is None:
            return
        cost = self.cost
        if cost is not None and cost >= self.max_cost:
            raise CostLimitReached(self.max_cost)

    def record(
        self,
        usage: Usage,
        *,
        cached: bool,
        metric: str | None = None,
        case_id: str | None = None,
        batch: bool = False,
    ) -> None:
        """Count one call: answered from the cache, or spent (through a batch API if
        ``batch``)."""
        collector = _collector.get()
        with self._lock:
            if collector is not None:
                collector.add(usage)
            (self.cached if cached else self.spent).add(usage)
            if cached:
                return
            if batch:
                self.batch.add(usage)
            if metric:
                self.by_metric[metric].add(usage)
            if case_id:
                self.by_case[case_id].add(usage)


class MetricEstimate(BaseModel):
    """Expected calls and tokens for one metric over the whole eval set."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


class Estimate(BaseModel):
    """What a run would spend, computed before any call (``--dry-run``)."""

    model: str
    cases: int
    calls: int
    prompt_tokens: int
    completion_tokens: int
    cost: float | None
    """Dollars; None when the model has no price in the table."""
    batch: bool = False
    """Whether `cost` is at batch prices (`--batch`)."""
    by_metric: dict[str, MetricEstimate] = Field(default_factory=dict)
    tokenizer: str = "approximate (4 chars/token, 1 token per CJK char)"
