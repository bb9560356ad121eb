"""Judged metric results kept in the call cache, so an unchanged case is not judged again.

A re-run of an unchanged eval set against a filled cache answers every call from the cache,
but rebuilding each result from its cached replies still rendered every prompt, hashed every
request and re-read every reply: about 0.5 ms a call, 10 s for 5,000 cases here
(bench/scale.py). A result is kept under a key made of everything it was computed from, so
it is reused only when judging again would rebuild it exactly:

- the case as the judge saw it (question, history, reference, contexts, answer, language,
  repeat index);
- the metric;
- the judge's fingerprint (model, prompts, parameters, similarity models), the endpoint, the
  output mode and log-probabilities in use, and the whole of ragmeter's code (a digest of
  its source files), so any change of settings, prompts or code judges afresh.

Only results the case decided are kept: scored ones, and those an edge case of the case itself
left unscored (a refusal has no claims to check, an out-of-scope case no contexts to grade). A
result a failure left unscored (a timeout, an unusable reply, a spent budget) is judged again on
the next run. And nothing more is kept once the endpoint refused log-probabilities or reported
impossible token counts, because a re-run must show those warnings again.

The calls and tokens behind a result are kept with it and counted as cached on reuse, so a
re-run reports the same spend as replaying its calls would.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..._version import __version__
from ...clients.cache import LLMCache, canonical_json
from ...clients.cost import Usage
from ..base import MetricName, MetricResult, ReasonCode, Sample

DECIDED_BY_THE_CASE: frozenset[ReasonCode] = frozenset(
    {"empty_answer", "refusal", "out_of_scope", "no_ground_truth", "no_contexts", "no_points"}
)
"""Reason codes of the unscored results the case decided, not a failure of the judge."""


def decided(result: MetricResult) -> bool:
    """Whether judging the same case again gives `result` again: it is scored, or an edge case
    of the case left it unscored (an unscored result from a failure has no code yet when the
    judge returns it; the runner gives it one)."""
    return result.scored or result.reason_code in DECIDED_BY_THE_CASE


NO_CALLS: dict[str, object] = {"calls": 0}
"""The conditions a result reached without a call is kept under: none of the judge's calls
could change it (an out-of-scope case, judged before the endpoint's output mode is known)."""


@dataclass(frozen=True)
class ReusedResult:
    """A kept result and the calls behind it (all answered from the cache on a re-run)."""

    result: MetricResult
    usage: Usage


class ResultReuse:
    """Keeps and finds the results of one judge configuration in an :class:`LLMCache`."""

    def __init__(
        self, cache: LLMCache, identity: dict[str, object], *, write_every: int = 256
    ) -> None:
        self._cache = cache
        self._identity = canonical_json({**identity, "code": code_digest()})
        self._pending: list[tuple[str, str, int, int, int]] = []
        self._write_every = write_every

    def keys(
        self, case: str, metrics: Sequence[MetricName], conditions: dict[str, object]
    ) -> list[str]:
        """The keys of `metrics` for a case (its :func:`case_text`) under the judge's current
        `conditions` (the output mode and log-probabilities in use, which can change during a
        run; :data:`NO_CALLS` for a result that needed no call)."""
        head = "\n".join((self._identity, canonical_json(conditions), case))
        return [hashlib.sha256(f"{head}\n{m}".encode()).hexdigest() for m in metrics]

    def find(self, keys: Sequence[str]) -> dict[str, ReusedResult]:
        """The kept results among `keys`, by key."""
        found = {}
        for key, text, calls, prompt, completion in self._cache.get_results(keys):
            found[key] = ReusedResult(
                MetricResult.model_validate_json(text), Usage(calls, prompt, completion)
            )
        return found

    def keep(self, key: str, result: MetricResult, usage: Usage) -> None:
        """Keep a :func:`decided` `result` and the calls behind it under `key`. Results are
        written `write_every` at a time, in one transaction (58 µs a result with one commit
        each here, 10 µs in 256s), the rest by :meth:`flush`."""
        if not decided(result):
            raise ValueError("only results the case decided are kept")
        row = (key, result.model_dump_json(), usage.calls, usage.prompt_tokens)
        self._pending.append((*row, usage.completion_tokens))
        if len(self._pending) >= self._write_every:
            self.flush()

    def flush(self) -> None:
        """Write the results kept since the last write."""
        rows, self._pending = self._pending, []
        if rows:
            self._cache.put_results(rows)


def case_text(sample: Sample) -> str:
    """The case as the judge saw it, as keys hold it (every field of the sample)."""
    return sample.model_dump_json()


@functools.cache
def code_digest() -> str:
    """The :func:`digest_of` ragmeter's installed package, computed once per process."""
    return digest_of(Path(__file__).resolve().parents[2])


def digest_of(package: Path) -> str:
    """sha256 of ragmeter's version and of the source files (`.py`) and prompts under
    `package`: any change of the code that judges invalidates every kept result. Model weights
    are left out (reading them would cost more than the reuse saves); the fingerprint names
    the models."""
    digest = hashlib.sha256(__version__.encode())
    files = sorted(
        p
        for p in package.rglob("*")
        if p.is_file() and (p.suffix == ".py" or "prompts" in p.relative_to(package).parts)
    )
    for path in files:
        digest.update(str(path.relative_to(package)).encode("utf-8") + b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()
