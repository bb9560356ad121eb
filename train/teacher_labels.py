"""Teacher labels: P(Yes) of a local LLM for premise/claim pairs, for training a small verifier.

    python train/teacher_labels.py --out train/out/teacher.jsonl --minutes 10 \
        --base-url http://127.0.0.1:8177/v1 --model qwen2.5-coder-1.5b@cc324af070c2

Reads pairs from ``../shared/data/train`` (training data only: never an evaluation set), a
seeded sample mixing English and Chinese, and optionally (``--perturb``) adds rule-made variants
of each claim (a negation, a changed number); every pair is asked of the model with ragmeter's
verifier prompt (evidence first, one output token, logprobs) and written with
P(Yes) / (P(Yes) + P(No)). The variants of one premise are asked one after another, so
llama.cpp's prompt cache reuses the premise's prefill. The output is JSONL, one line per pair,
flushed as it goes; a re-run skips the ids already written (resumable), and ``--minutes`` stops
it cleanly. The gold label of the source (and of the rule, for variants) is kept beside the
teacher's probability so a trainer can mix or compare them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATA = HERE.parent.parent / "shared" / "data" / "train"
OUT = HERE / "out" / "teacher.jsonl"

NEGATE_EN = [
    (re.compile(r"\b(is|are|was|were|can|will|has|have|had|does|did|should|could)\b"), r"\1 not"),
]
NEGATE_ZH = [(re.compile(r"是"), "不是"), (re.compile(r"有"), "没有"), (re.compile(r"会"), "不会")]
NUMBER = re.compile(r"\d+")


def negate(text: str, lang: str) -> str | None:
    """`text` with its first auxiliary (en) or 是/有/会 (zh) negated; None when it has none or
    is negated already."""
    if lang == "zh":
        if re.search(r"不|没|未|无", text):
            return None
        rules = NEGATE_ZH
    else:
        if re.search(r"\b(not|never|no)\b|n't", text, re.I):
            return None
        rules = NEGATE_EN
    for pattern, repl in rules:
        changed, n = pattern.subn(repl, text, count=1)
        if n:
            return changed
    return None


def change_number(text: str, rng: random.Random) -> str | None:
    """`text` with its first number changed (a different value); None when it has none."""
    found = NUMBER.search(text)
    if not found:
        return None
    value = int(found.group())
    new = value + rng.choice([1, 2, 3, 10]) if value < 1000 else value + rng.choice([1, 10, 100])
    return f"{text[: found.start()]}{new}{text[found.end() :]}"


def sample_rows(
    data: Path, n: int, seed: int, zh_share: float, groups: set[str] | None, max_chars: int
) -> list[dict[str, Any]]:
    """A seeded sample of `n` rows (about `zh_share` Chinese) with premises up to `max_chars`."""
    rng = random.Random(seed)
    out = []
    for lang, k in (("en", n - round(n * zh_share)), ("zh", round(n * zh_share))):
        rows = []
        with (data / f"{lang}.jsonl").open(encoding="utf-8") as f:
            for line_no, line in enumerate(f):
                row = json.loads(line)
                if groups and row["group"] not in groups:
                    continue
                if not row["premise"].strip() or len(row["premise"]) > max_chars:
                    continue
                row["id"] = f"{lang}:{line_no}"
                rows.append(row)
        out.extend(rng.sample(rows, min(k, len(rows))))
    rng.shuffle(out)
    return out


def variants(row: dict[str, Any], perturb: bool, rng: random.Random) -> Iterator[dict[str, Any]]:
    """The pair itself, then (with `perturb`) its rule-made variants, with the rule's label."""
    yield {**row, "variant": "original", "rule_label": row["label"]}
    if not perturb:
        return
    negated = negate(row["hypothesis"], row["lang"])
    if negated is not None:
        flipped = 1 - row["label"] if row["label3"] != "neutral" else None
        yield {**row, "id": f"{row['id']}:neg", "hypothesis": negated, "variant": "negation",
               "rule_label": flipped}  # fmt: skip
    if row["label"] == 1 and (changed := change_number(row["hypothesis"], rng)) is not None:
        yield {**row, "id": f"{row['id']}:num", "hypothesis": changed, "variant": "number",
               "rule_label": 0}  # fmt: skip


def done_ids(path: Path) -> set[str]:
    """Ids already written; a torn last line (a killed run) is cut off."""
    if not path.exists():
        return set()
    ids = set()
    good = 0
    with path.open("rb") as f:
        for line in f:
            try:
                ids.add(json.loads(line)["id"])
            except (json.JSONDecodeError, KeyError):
                break
            good += len(line)
    with path.open("r+b") as f:
        f.truncate(good)
    return ids


async def label(args: argparse.Namespace) -> None:
    from ragmeter.clients.cache import LLMCache
    from ragmeter.clients.client import ChatClient
    from ragmeter.clients.retry import RetryPolicy
    from ragmeter.judges.llm.verifier import (
        statement_messages,
        verifier_prompt_version,
        yes_probability,
    )

    args.out.parent.mkdir(parents=True, exist_ok=True)
    seen = done_ids(args.out)
    rows = sample_rows(
        args.data, args.pairs, args.seed, args.zh_share, set(args.groups or ()), args.max_chars
    )
    rng = random.Random(args.seed + 1)
    todo = [[v for v in variants(r, args.perturb, rng) if v["id"] not in seen] for r in rows]
    todo = [t for t in todo if t]
    client = ChatClient(
        model=args.model,
        base_url=args.base_url,
        api_key_env=None,
        concurrency=args.concurrency,
        cache=LLMCache(args.cache),
        use_cache=args.cache is not None,
        top_logprobs=10,
        policy=RetryPolicy(timeout=600),
    )
    meta = {"teacher": args.model, "prompt_version": verifier_prompt_version()}
    deadline = time.monotonic() + args.minutes * 60
    started = time.monotonic()
    written = 0
    queue: asyncio.Queue[list[dict[str, Any]]] = asyncio.Queue()
    for group in todo:
        queue.put_nowait(group)

    async def worker(out: Any) -> None:
        nonlocal written
        while time.monotonic() < deadline and not queue.empty():
            group = queue.get_nowait()
            for pair in group:  # one premise's variants in turn: its prefill is reused
                asked = time.monotonic()
                reply = await client.complete(
                    statement_messages(pair["premise"], "", pair["hypothesis"], pair["lang"]),
                    max_tokens=1,
                )
                read = yes_probability(reply.text, reply.logprobs)
                record = {
                    **{k: pair[k] for k in ("id", "premise", "hypothesis", "lang", "source")},
                    **{k: pair[k] for k in ("group", "label", "label3", "variant", "rule_label")},
                    "p_yes": None if read is None else read[0],
                    "graded": bool(read and read[1]),
                    "reply": reply.text,
                    "seconds": round(time.monotonic() - asked, 2),
                    "cached": reply.cached,
                    **meta,
                }
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
                out.flush()
                written += 1

    with args.out.open("a", encoding="utf-8") as out:
        await asyncio.gather(*(worker(out) for _ in range(args.concurrency)))
    await client.aclose()
    hours = (time.monotonic() - started) / 3600
    total = len(seen) + written
    print(
        f"{written} pairs labelled in {hours * 60:.1f} min ({written / hours:.0f} pairs an hour; "
        f"{total} in {args.out}, {sum(map(len, todo)) - written} of this sample left)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help="shared/data/train")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--base-url", default="http://127.0.0.1:8177/v1")
    parser.add_argument("--model", default="qwen2.5-coder-1.5b@cc324af070c2")
    parser.add_argument("--pairs", type=int, default=2000, help="source pairs to sample")
    parser.add_argument("--zh-share", type=float, default=0.4)
    parser.add_argument("--groups", nargs="*", help="only these groups (nli factver doc para)")
    parser.add_argument("--max-chars", type=int, default=1200, help="longest premise")
    parser.add_argument("--perturb", action="store_true", help="add negation/number variants")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--minutes", type=float, default=60.0, help="stop after this long")
    parser.add_argument("--cache", type=Path, default=None, help="a call cache (SQLite) to use")
    args = parser.parse_args()
    if "shared/data/train" not in args.data.resolve().as_posix():
        sys.exit("teacher labels come from shared/data/train only, never an evaluation set")
    asyncio.run(label(args))


if __name__ == "__main__":
    main()
