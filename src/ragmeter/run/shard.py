"""Sharding a run across CI jobs, and merging the shards back into the single run.

`ragmeter run --shard I/N` judges the cases at positions I-1, I-1+N, I-1+2N, ... of the eval
set (every N-th, so each shard gets a like mix of categories and languages); `ragmeter merge`
takes the N results and rebuilds exactly what one unsharded run writes: the cases in eval-set
order, and the summary, diagnosis and health computed from them by the same functions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypeVar

from .._exceptions import ConfigError, ResultsError
from ..cases.digest import short
from ..results import RunResult
from ..vocabulary import METRICS, MetricName
from ._runner import assemble_run

T = TypeVar("T")

_SHARD_RE = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


def parse_shard(text: str) -> tuple[int, int]:
    """`"2/4"` -> (2, 4); a one-line ConfigError for anything else."""
    match = _SHARD_RE.match(text)
    if match is None:
        raise ConfigError(f"--shard {text}: expected I/N, e.g. 2/4")
    index, count = int(match.group(1)), int(match.group(2))
    if count < 1 or not 1 <= index <= count:
        raise ConfigError(f"--shard {text}: I must be between 1 and N")
    return index, count


def select_shard(items: Sequence[T], index: int, count: int) -> list[T]:
    """The items of shard `index` (1-based) of `count`: every `count`-th, from `index - 1`."""
    return list(items[index - 1 :: count])


def merge_shards(runs: Sequence[tuple[str, RunResult]]) -> RunResult:
    """One run from its shards (`(where it was read, run)` pairs, any order).

    Refused with the file named: a run that is not a shard, shards of different sizes N,
    a shard missing or given twice, a different judge, eval set (its contents' digest, and
    its file name), pipeline, metric set, thresholds or targets. The merged run's time is the
    longest shard's (they ran side by side), its judge spend the sum, its warnings each
    shard's once (and a warning when the shards predate the digest)."""
    if not runs:
        raise ConfigError("merge: no shard given")
    shards: dict[int, tuple[str, RunResult]] = {}
    count = None
    for where, run in runs:
        if run.run.shard is None:
            raise ResultsError(f"{where}: not a shard (run without --shard)")
        index, n = parse_shard(run.run.shard)
        if count is not None and n != count:
            raise ResultsError(f"{where}: shard {index}/{n} of a run split in {count}")
        count = n
        if index in shards:
            raise ResultsError(f"{where}: shard {index}/{n} again (also {shards[index][0]})")
        shards[index] = (where, run)
    assert count is not None
    missing = [str(i) for i in range(1, count + 1) if i not in shards]
    if missing:
        raise ResultsError(f"merge: shard {', '.join(missing)} of {count} missing")
    first_where, first = shards[1]
    metrics: tuple[MetricName, ...] = tuple(m for m in METRICS if m in first.summary.metrics)
    for index in range(2, count + 1):
        where, run = shards[index]
        _same(where, first_where, "judge", run.judge.key(), first.judge.key())
        _same_eval_set(where, first_where, run, first)
        _same(where, first_where, "run.cases_file", run.run.cases_file, first.run.cases_file)
        _same(where, first_where, "run.pipeline", run.run.pipeline, first.run.pipeline)
        _same(where, first_where, "run.thresholds", run.run.thresholds, first.run.thresholds)
        _same(where, first_where, "run.targets", run.run.targets, first.run.targets)
        _same(where, first_where, "metrics", sorted(run.summary.metrics), sorted(metrics))
        _same(where, first_where, "health.min_scored_share", _share(run), _share(first))
    ordered = [shards[i][1].cases for i in range(1, count + 1)]
    total = sum(len(c) for c in ordered)
    for index, shard_cases in enumerate(ordered, start=1):
        expected = len(range(index - 1, total, count))
        if len(shard_cases) != expected:
            raise ResultsError(
                f"{shards[index][0]}: {len(shard_cases)} cases where shard {index}/{count} of "
                f"a {total}-case eval set has {expected}"
            )
    cases = [ordered[p % count][p // count] for p in range(total)]
    thresholds: dict[MetricName, float] = {
        m: v for m, v in first.run.thresholds.items() if m in METRICS
    }
    targets: dict[MetricName, float] = {m: v for m, v in first.run.targets.items() if m in METRICS}
    info = first.run.model_copy(deep=True)
    info.shard = None
    info.started_at = min(run.run.started_at for _, run in shards.values())
    seconds = [run.run.seconds for _, run in shards.values() if run.run.seconds is not None]
    info.seconds = max(seconds) if seconds else None
    info.warnings = list(dict.fromkeys(w for _, run in shards.values() for w in run.run.warnings))
    info.judge_stats = _summed([run.run.judge_stats for _, run in shards.values()])
    if info.cases_digest is None:
        info.warnings.append(
            "the shards carry no eval-set digest (written by an older ragmeter): they were "
            "matched by the eval set's file name only"
        )
    return assemble_run(first.judge, info, cases, metrics, thresholds, targets, _share(first))


def _same_eval_set(where: str, first_where: str, run: RunResult, first: RunResult) -> None:
    """Refuse a shard of another eval set's contents, whatever its file is called."""
    mine, theirs = run.run.cases_digest, first.run.cases_digest
    if mine != theirs:
        shown = [short(d) if d else "none (an older ragmeter)" for d in (mine, theirs)]
        name = run.run.cases_file
        named = f" (both name {name!r})" if name and name == first.run.cases_file else ""
        raise ResultsError(
            f"{where}: a shard of another eval set: its contents' digest is {shown[0]} but "
            f"{first_where} has {shown[1]}{named}; only shards of one run merge"
        )


def _share(run: RunResult) -> float | None:
    return run.health.min_scored_share if run.health is not None else None


def _same(where: str, first_where: str, field: str, value: object, expected: object) -> None:
    if value != expected:
        raise ResultsError(
            f"{where}: field '{field}' is {value!r} but {first_where} has {expected!r}; "
            "only shards of one run merge"
        )


_PER_SHARD = frozenset({"concurrency", "max_cost", "output_mode"})
"""Judge stats that are settings, not spend: kept from the first shard, not added."""


def _summed(stats: list[dict[str, object]]) -> dict[str, object]:
    """Counts and spend added across shards; settings kept from the first shard."""
    out: dict[str, object] = {}
    for part in stats:
        for key, value in part.items():
            held = out.get(key)
            if key not in out:
                out[key] = value
            elif key not in _PER_SHARD and _number(held) and _number(value):
                out[key] = held + value  # type: ignore[operator]
    return out


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
