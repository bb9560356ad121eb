"""Latency models and load views for the fake server (benchmarks).

A latency model is a callable taking the server's seeded ``random.Random`` and returning the
seconds one request takes; :func:`concurrency_timeline` and :func:`load_summary` turn the
request log into the concurrency seen over time.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any, Protocol

LatencyFn = Callable[[random.Random], float]


class _Timed(Protocol):
    path: str
    started: float
    finished: float
    status: int
    in_flight: int
    prompt_tokens: int
    completion_tokens: int


def fixed(seconds: float) -> LatencyFn:
    """Every request takes ``seconds``."""
    return lambda _rng: seconds


def uniform(low: float, high: float) -> LatencyFn:
    """Latency drawn uniformly between ``low`` and ``high`` seconds."""
    return lambda rng: rng.uniform(low, high)


def lognormal(median: float, p95: float) -> LatencyFn:
    """A right-skewed latency with the given median and 95th percentile (seconds), the usual
    shape of LLM API latencies."""
    sigma = math.log(p95 / median) / 1.6449 if p95 > median else 0.0
    mu = math.log(median)
    return lambda rng: rng.lognormvariate(mu, sigma)


def parse_latency(spec: str) -> LatencyFn:
    """``0.2`` (fixed), ``uniform:0.1:0.3`` or ``lognormal:0.2:0.6`` (median, p95)."""
    kind, _, rest = spec.partition(":")
    if not rest:
        return fixed(float(kind))
    args = [float(x) for x in rest.split(":")]
    if kind == "uniform":
        return uniform(*args)
    if kind == "lognormal":
        return lognormal(*args)
    raise ValueError(
        f"unknown latency model {spec!r}: use SECONDS, uniform:LO:HI or lognormal:MEDIAN:P95"
    )


def concurrency_timeline(log: Sequence[_Timed], step: float = 0.1) -> list[int]:
    """Requests in flight at every ``step`` seconds from the first arrival to the last reply."""
    done = [r for r in log if r.finished]
    if not done:
        return []
    start = min(r.started for r in done)
    end = max(r.finished for r in done)
    points = int((end - start) / step) + 1
    events: list[tuple[float, int]] = []
    for r in done:
        events += [(r.started, 1), (r.finished, -1)]
    events.sort()
    out, level, i = [], 0, 0
    for k in range(points):
        t = start + k * step
        while i < len(events) and events[i][0] <= t:
            level += events[i][1]
            i += 1
        out.append(level)
    return out


def load_summary(log: Sequence[_Timed], step: float = 0.1) -> dict[str, Any]:
    """Calls (chat and embeddings), tokens, span and concurrency of the requests in ``log``."""
    done = [r for r in log if r.finished]
    chat = [r for r in done if r.path.endswith("/chat/completions")]
    embed = [r for r in done if r.path.endswith("/embeddings")]
    span = (max(r.finished for r in done) - min(r.started for r in done)) if done else 0.0
    busy = sum(r.finished - r.started for r in done)
    timeline = concurrency_timeline(done, step)
    return {
        "chat_calls": len(chat),
        "embedding_calls": len(embed),
        "rejected": sum(r.status != 200 for r in done),
        "prompt_tokens": sum(r.prompt_tokens for r in chat),
        "completion_tokens": sum(r.completion_tokens for r in chat),
        "embedding_tokens": sum(r.prompt_tokens for r in embed),
        "span_seconds": round(span, 4),
        "first_arrival": min((r.started for r in done), default=0.0),
        "last_reply": max((r.finished for r in done), default=0.0),
        "mean_in_flight": round(busy / span, 2) if span else 0.0,
        "max_in_flight": max((r.in_flight for r in done), default=0),
        "timeline_step": step,
        "timeline": timeline,
    }
