"""The llama judge's one-token verdicts on the demo set: seconds a case and the issue-32 targets.

    python bench/verdicts.py demo --en 4 --zh 4                 # starts the bundled 1.5B
    python bench/verdicts.py demo --base-url http://127.0.0.1:8391/v1   # a running server
    python bench/verdicts.py compare --en 1 --zh 1 --base-url ...   # verifier vs JSON modes
    python bench/verdicts.py throughput --parallel 2            # the sample at once, N slots
    python bench/verdicts.py alternate --before /tmp/old/src     # two versions, cases in turn
    python bench/verdicts.py table                              # what was measured, no calls

A fixed sample: the first `--en` English and `--zh` Chinese in-scope demo cases the default
pipeline (top_k 3) answers. Each case is judged on all four metrics by the llama judge's
defaults (every metric in verifier mode), one case at a time, no call cache: seconds a case.
Then, from the same judge: answer relevancy of the reference answer (a paraphrase on topic)
and of the answer of the next case drawn from other documents (off topic); faithfulness of
the `hallucinating` variant's answer. Reported: the chunk holding the answer (the one with
most of the reference's words) rated useful; context precision graded and thresholded;
faithfulness pass and fail rates at the report's threshold under three ways of combining the
claims (mean, min, soft min). Nothing is fitted here. Writes bench/results/verdicts.json.

Time depends on the machine's load; what does not: calls, and llama.cpp's own count of the
prompt tokens it prefilled, took from the slot's cache and generated, per metric (each
reply's `timings`), and the process's CPU seconds a case (about the wall time on an idle
machine with one thread). `--threads` sets the server's threads (default: the idle cores).
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import RESULTS, machine, print_table, write_json  # noqa: E402

from ragmeter.judges.base import Sample  # noqa: E402
from ragmeter.judges.llm.combine import COMBINERS  # noqa: E402
from ragmeter.results.summary import DEFAULT_FAIL_THRESHOLDS  # noqa: E402
from ragmeter.text import content_words  # noqa: E402

NAME = "verdicts.json"


class _Attached:
    """A running llama.cpp server given by URL, in place of one the judge starts (the bundled
    model's digest when `model_id` names it, so its shipped calibration applies)."""

    def __init__(self, url: str, model_id: str) -> None:
        from types import SimpleNamespace

        from ragmeter.judges.llama import BUNDLED_MODELS

        sha = next(
            (m.sha256 for m in BUNDLED_MODELS.values() if model_id == f"{m.name}@{m.sha256[:12]}"),
            model_id,
        )
        self.url = url
        self.model = SimpleNamespace(model_id=model_id, sha256=sha)
        self.options = SimpleNamespace(parallel=1)

    def start(self) -> str:
        return self.url

    def close(self) -> None:
        pass


Sources = dict[str, tuple[str, ...]]


TIMINGS: list[dict[str, Any]] = []
"""llama.cpp's own `timings` of each reply (prompt_n, cache_n, prompt_ms, predicted_n,
predicted_ms), with the metric whose call it answered."""
SERVER_KEYS = ("prompt_n", "cache_n", "prompt_ms", "predicted_n", "predicted_ms")
_METRIC: contextvars.ContextVar[str | None] = contextvars.ContextVar("metric", default=None)


def record_server_timings() -> None:
    """Keep the `timings` llama.cpp adds to each reply (the client asks for the raw bytes),
    tagged with the metric of the call (`ChatClient.complete`'s argument)."""
    import openai

    from ragmeter.clients.client import ChatClient

    post = openai.AsyncOpenAI.post
    complete = ChatClient.complete

    async def recorded(self: Any, *args: Any, **kwargs: Any) -> Any:
        out = await post(self, *args, **kwargs)
        if isinstance(out, bytes):
            timings = json.loads(out).get("timings")
            if timings:
                TIMINGS.append({"metric": _METRIC.get(), **timings})
        return out

    async def tagged(self: Any, *args: Any, **kwargs: Any) -> Any:
        token = _METRIC.set(kwargs.get("metric"))
        try:
            return await complete(self, *args, **kwargs)
        finally:
            _METRIC.reset(token)

    openai.AsyncOpenAI.post = recorded  # type: ignore[method-assign]
    ChatClient.complete = tagged  # type: ignore[method-assign]


def server_totals(timings: list[dict[str, Any]]) -> dict[str, Any]:
    """Calls and llama.cpp's token counts and milliseconds summed, in all and per metric."""

    def total(picked: list[dict[str, Any]]) -> dict[str, float]:
        out = {key: round(sum(t.get(key, 0) for t in picked), 1) for key in SERVER_KEYS}
        return {"calls": len(picked), **out}

    metrics = sorted({t["metric"] for t in timings if t["metric"]})
    return {
        **total(timings),
        "per_metric": {m: total([t for t in timings if t["metric"] == m]) for m in metrics},
    }


async def samples(n_en: int, n_zh: int) -> tuple[list[Sample], dict[str, str], Sources]:
    """The fixed sample (default pipeline), each case's hallucinating answer and the corpus
    documents its reference comes from."""
    from ragmeter.cases import load_cases
    from ragmeter.demo import DemoConfig, DemoPipeline, demo_cases_path
    from ragmeter.pipeline import CallablePipeline
    from ragmeter.testing.responders import noncommittal

    cases = load_cases(demo_cases_path())
    default = CallablePipeline(DemoPipeline(DemoConfig()))
    wrong = CallablePipeline(DemoPipeline(DemoConfig.for_variant("hallucinating")))
    wanted = {"en": n_en, "zh": n_zh}

    async def run() -> tuple[list[Sample], dict[str, str], Sources]:
        out, hallucinated, sources = [], {}, {}
        for case in cases:
            lang = case.lang or "en"
            if case.category == "out_of_scope" or wanted.get(lang, 0) <= 0:
                continue
            result = await default.run(case)
            if not result.answer or noncommittal(result.answer) or not result.contexts:
                continue
            wanted[lang] -= 1
            out.append(
                Sample(
                    case_id=case.id,
                    question=case.question,
                    history=case.history,
                    ground_truth=case.ground_truth,
                    contexts=list(result.contexts),
                    answer=result.answer,
                    lang=lang,
                    category=case.category,
                )
            )
            hallucinated[case.id] = (await wrong.run(case)).answer
            sources[case.id] = tuple((case.metadata or {}).get("source") or ())
        return out, hallucinated, sources

    return await run()


def off_topic(chosen: list[Sample], sample: Sample, sources: Sources) -> Sample:
    """The next case in the same language whose reference comes from other documents: its
    answer is about something else."""
    same = [s for s in chosen if s.lang == sample.lang]
    start = same.index(sample)
    for k in range(1, len(same)):
        other = same[(start + k) % len(same)]
        if not set(sources[other.case_id]) & set(sources[sample.case_id]):
            return other
    raise ValueError(f"no case of another document for {sample.case_id}: draw more cases")


def answer_chunk(sample: Sample) -> int | None:
    """The chunk holding most of the reference's content words (None: none holds half)."""
    words = set(content_words(sample.ground_truth, sample.lang))
    shares = [
        len(words & set(content_words(c, sample.lang))) / max(1, len(words))
        for c in sample.contexts
    ]
    best = max(range(len(shares)), key=lambda i: (shares[i], -i))
    return best if shares[best] >= 0.5 else None


def claim_ps(result: Any) -> list[float]:
    return [c.confidence for c in result.evidence.claims if c.confidence is not None]


async def demo(args: argparse.Namespace) -> None:
    from ragmeter.judges.llama.judge import start_llama_judge

    chosen, hallucinated, sources = await samples(args.en, args.zh)
    if args.base_url:
        server: Any = _Attached(args.base_url, args.model)
    else:
        from ragmeter.judges.llama import LlamaServer, ServerOptions, resolve_model

        options = ServerOptions(
            parallel=args.parallel, **({"threads": args.threads} if args.threads else {})
        )
        server = LlamaServer(resolve_model(None, None), options)
    load_before = os.getloadavg()
    record_server_timings()
    started = time.perf_counter()
    judge = start_llama_judge(server, use_cache=False)
    startup = round(time.perf_counter() - started, 1)  # the model loaded, before any call
    rows = []
    try:
        for sample in chosen:
            started, cpu = time.perf_counter(), time.process_time()
            calls_before = judge.stats()["calls"]
            TIMINGS.clear()
            results = await judge.judge(sample)
            seconds = time.perf_counter() - started
            cpu_s = round(time.process_time() - cpu, 1)
            server_side = server_totals(TIMINGS)
            calls = judge.stats()["calls"] - calls_before
            other = off_topic(chosen, sample, sources)
            relevancy = {}
            for kind, answer in (("paraphrase", sample.ground_truth), ("off_topic", other.answer)):
                probe = sample.model_copy(update={"answer": answer})
                relevancy[kind] = (await judge.judge(probe, ("answer_relevancy",)))[
                    "answer_relevancy"
                ].score
            wrong = sample.model_copy(update={"answer": hallucinated[sample.case_id]})
            faith_wrong = (await judge.judge(wrong, ("faithfulness",)))["faithfulness"]
            prec = results["context_precision"]
            a = answer_chunk(sample)
            row = {
                "case": sample.case_id,
                "lang": sample.lang,
                "seconds": round(seconds, 1),
                "cpu_s": cpu_s,
                "calls": calls,
                "server": server_side,
                "per_call": list(TIMINGS),
                "loadavg": os.getloadavg()[0],
                "scores": {m: r.score for m, r in results.items()},
                "unscored": {m: r.unscored_reason for m, r in results.items() if r.score is None},
                "chunk_p": [c.score for c in prec.evidence.chunks],
                "answer_chunk": a,
                "thresholded_precision": _ap([(c.score or 0) >= 0.5 for c in prec.evidence.chunks]),
                "claims_default": claim_ps(results["faithfulness"]),
                "claims_hallucinating": claim_ps(faith_wrong),
                "relevancy": {"answer": results["answer_relevancy"].score, **relevancy},
                "calibration": judge.config.calibration,
            }
            rows.append(row)
            print(f"… {sample.case_id}: {seconds:.1f} s, {calls} calls {row}", file=sys.stderr)
            save(args, rows, load_before, startup)
    finally:
        await judge.aclose()
    save(args, rows, load_before, startup)
    table(load())


async def compare(args: argparse.Namespace) -> None:
    """Seconds a case, all four metrics, every metric in verifier mode against every metric in
    JSON mode (the path for large endpoint models), the same cases under the same load, the
    two alternating which goes first; no call cache."""
    from ragmeter.judges.llama.judge import start_llama_judge

    chosen, _, _ = await samples(args.en, args.zh)
    json_modes = {
        f"{m}_mode": "json"
        for m in ("faithfulness", "context_recall", "context_precision", "answer_relevancy")
    }
    judges = {
        "verifier": start_llama_judge(_Attached(args.base_url, args.model), use_cache=False),
        "json": start_llama_judge(
            _Attached(args.base_url, args.model), use_cache=False, **json_modes
        ),
    }
    data = load()
    rows = data.setdefault("compare", [])
    try:
        for i, sample in enumerate(chosen):
            for mode in ("verifier", "json") if i % 2 == 0 else ("json", "verifier"):
                judge = judges[mode]
                calls = judge.stats()["calls"]
                tokens = judge.stats()["completion_tokens"]
                started = time.perf_counter()
                results = await judge.judge(sample)
                rows.append(
                    {
                        "case": sample.case_id,
                        "mode": mode,
                        "seconds": round(time.perf_counter() - started, 1),
                        "calls": judge.stats()["calls"] - calls,
                        "completion_tokens": judge.stats()["completion_tokens"] - tokens,
                        "scored": sum(r.score is not None for r in results.values()),
                        "loadavg": os.getloadavg()[0],
                    }
                )
                print(f"… {rows[-1]}", file=sys.stderr)
                data["machine"] = {**machine(), "loadavg": os.getloadavg()}
                write_json(NAME, data)
    finally:
        for judge in judges.values():
            await judge.aclose()
    table(load())


def judged_row(sample: Sample, results: Any, seconds: float, calls: int) -> dict[str, Any]:
    """One case's seconds, calls and llama.cpp's token counts (in all and per metric)."""
    return {
        "case": sample.case_id,
        "lang": sample.lang,
        "seconds": round(seconds, 1),
        "calls": calls,
        "server": server_totals(TIMINGS),
        "scores": {m: r.score for m, r in results.items()},
        "loadavg": os.getloadavg()[0],
    }


async def serve_cases(args: argparse.Namespace) -> None:
    """A child of `alternate`: one server and judge, then each case index read from stdin
    judged on all four metrics, its row written to stdout as one JSON line."""
    from ragmeter.judges.llama import LlamaServer, ServerOptions, resolve_model
    from ragmeter.judges.llama.judge import start_llama_judge

    chosen, _, _ = await samples(args.en, args.zh)
    options = ServerOptions(threads=args.threads)
    record_server_timings()
    started = time.perf_counter()
    judge = start_llama_judge(LlamaServer(resolve_model(None, None), options), use_cache=False)
    startup = round(time.perf_counter() - started, 1)
    print(json.dumps({"ready": len(chosen), "threads": options.threads, "startup_s": startup}))
    sys.stdout.flush()
    try:
        for line in sys.stdin:
            sample = chosen[int(line)]
            TIMINGS.clear()
            calls = judge.stats()["calls"]
            started, cpu = time.perf_counter(), time.process_time()
            results = await judge.judge(sample)
            seconds = time.perf_counter() - started
            row = judged_row(sample, results, seconds, judge.stats()["calls"] - calls)
            row["cpu_s"] = round(time.process_time() - cpu, 1)
            print(json.dumps(row), flush=True)
    finally:
        await judge.aclose()


def alternate(args: argparse.Namespace) -> None:
    """Two versions of ragmeter (`--before` and `--after`: directories holding its package),
    each with its own server held in a child process, judge the same cases in turn (before
    first on even cases, after first on odd ones), so both meet the same load."""
    import subprocess

    children = {}
    startups: dict[str, float] = {}
    for label, src in (("before", args.before), ("after", args.after)):
        env = {**os.environ, "PYTHONPATH": str(Path(src).resolve())}
        command = [sys.executable, __file__, "serve-cases", "--en", str(args.en)]
        command += ["--zh", str(args.zh), "--threads", str(args.threads)]
        child = subprocess.Popen(
            command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert child.stdout is not None
        ready = _json_line(child)
        startups[label] = ready["startup_s"]
        children[label] = child
        n = ready["ready"]
    data = load()
    rows: list[dict[str, Any]] = []
    data[args.key] = {"threads": args.threads, "startup_s": startups, "rows": rows}
    try:
        for i in range(n):
            for label in ("before", "after") if i % 2 == 0 else ("after", "before"):
                child = children[label]
                assert child.stdin is not None and child.stdout is not None
                child.stdin.write(f"{i}\n")
                child.stdin.flush()
                row = {"version": label, **_json_line(child)}
                rows.append(row)
                print(
                    f"… {label} {row['case']}: {row['seconds']} s, {row['calls']} calls, "
                    f"load {row['loadavg']:.1f}",
                    file=sys.stderr,
                )
                fresh = load()  # another bench may have written meanwhile
                data[args.key]["machine"] = {**machine(), "loadavg": os.getloadavg()}
                fresh[args.key] = data[args.key]
                write_json(NAME, fresh)
    finally:
        for child in children.values():
            assert child.stdin is not None
            child.stdin.close()
            child.wait(timeout=120)
    alternate_table(data, args.key)


def _json_line(child: Any) -> dict[str, Any]:
    """The child's next JSON line (llama.cpp may write other lines to the same stdout)."""
    for line in child.stdout:
        if line.startswith("{"):
            out: dict[str, Any] = json.loads(line)
            return out
    raise RuntimeError(f"the child stopped (exit {child.wait()})")


METRIC_HEAD = [
    "metric",
    "cases",
    "s/case",
    "CPU s/case",
    "calls",
    "prompt tok",
    "prefilled",
    "from cache",
    "generated",
    "server prefill s",
    "load",
]


def metric_rows(picked: list[dict[str, Any]]) -> list[list[Any]]:
    """Medians a case of `picked` rows: in all, then per metric (calls and llama.cpp's
    tokens; a chunk's prefill counts for the metric whose call came first on it)."""
    metrics = sorted({m for r in picked for m in r["server"].get("per_metric", {})})
    out = []
    for metric in (None, *metrics):
        parts = [
            r["server"] if metric is None else r["server"]["per_metric"].get(metric, {})
            for r in picked
        ]
        out.append(
            [
                metric or "all four",
                len(picked),
                statistics.median(r["seconds"] for r in picked) if metric is None else "",
                statistics.median(r.get("cpu_s", 0) for r in picked) if metric is None else "",
                statistics.median(p.get("calls", 0) for p in parts),
                statistics.median(p.get("prompt_n", 0) + p.get("cache_n", 0) for p in parts),
                statistics.median(p.get("prompt_n", 0) for p in parts),
                statistics.median(p.get("cache_n", 0) for p in parts),
                statistics.median(p.get("predicted_n", 0) for p in parts),
                round(statistics.median(p.get("prompt_ms", 0) for p in parts) / 1000, 1),
                statistics.median(r["loadavg"] for r in picked) if metric is None else "",
            ]
        )
    return out


def alternate_table(data: dict[str, Any], key: str = "alternate") -> None:
    """Median seconds, calls and llama.cpp's tokens a case, per version and metric."""
    got = data.get(key, {})
    rows = got.get("rows", [])
    if not rows:
        return
    out = [
        [label, *line]
        for label in ("before", "after")
        for line in metric_rows([r for r in rows if r["version"] == label])
    ]
    print(
        f"\n{key}: before and after, the same cases in turn, threads {got['threads']}, "
        f"server start {got.get('startup_s')} s (medians a case)"
    )
    print_table(["version", *METRIC_HEAD], out)


def claims(row: dict[str, Any], key: str, calibrated: bool) -> list[float]:
    """A row's claim probabilities, raw or calibrated (with the shipped calibration of the
    bundled 1.5B model), whichever way the run recorded them."""
    from ragmeter.judges.llama import BUNDLED_MODELS, DEFAULT_MODEL
    from ragmeter.judges.llm.calibration import calibrate, shipped_calibration

    shipped = shipped_calibration(BUNDLED_MODELS[DEFAULT_MODEL].sha256)
    used = row.get("calibration")
    ps = row[key]
    if calibrated and used is None and shipped is not None:
        return [calibrate(p, shipped) for p in ps]
    if not calibrated and used is not None:
        a, b = used  # invert sigmoid(a·logit(p) + b)
        return [calibrate(p, (1 / a, -b / a)) for p in ps]
    return ps


async def throughput(args: argparse.Namespace) -> None:
    """Seconds for the whole sample judged at once (the runner's way) on a server this bench
    starts with `--parallel` slots; no call cache."""
    from ragmeter.judges.llama import LlamaServer, ServerOptions, resolve_model
    from ragmeter.judges.llama.judge import start_llama_judge

    chosen, _, _ = await samples(args.en, args.zh)
    options = ServerOptions(
        parallel=args.parallel, **({"threads": args.threads} if args.threads else {})
    )
    server = LlamaServer(resolve_model(None, None), options)
    judge = start_llama_judge(server, use_cache=False)
    try:
        started = time.perf_counter()
        await asyncio.gather(*(judge.judge(s) for s in chosen))
        seconds = time.perf_counter() - started
    finally:
        await judge.aclose()
    data = load()
    data.setdefault("throughput", []).append(
        {
            "parallel": args.parallel,
            "threads": options.threads,
            "cases": len(chosen),
            "seconds": round(seconds, 1),
            "loadavg": os.getloadavg()[0],
        }
    )
    write_json(NAME, data)
    print(data["throughput"])


def _ap(useful: list[bool]) -> float:
    from ragmeter.judges.rules import average_precision

    return average_precision(useful)


def save(
    args: argparse.Namespace, rows: list[dict[str, Any]], load_before: Any, startup: float
) -> None:
    data = load()
    data.update(
        {
            "cases": rows,
            "startup_s": startup,
            "machine": {**machine(), "loadavg_before": load_before, "loadavg": os.getloadavg()},
            "parallel": args.parallel,
        }
    )
    write_json(NAME, data)


def load() -> dict[str, Any]:
    path = RESULTS / NAME
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def table(data: dict[str, Any]) -> None:
    compared = data.get("compare", [])
    if compared:
        print("\nseconds a case, all four metrics, same cases and load, no cache (median)")
        print_table(
            ["mode", "cases", "s/case", "calls", "completion tokens", "metrics scored", "load"],
            [
                [
                    mode,
                    len(picked),
                    statistics.median(r["seconds"] for r in picked),
                    statistics.median(r["calls"] for r in picked),
                    statistics.median(r["completion_tokens"] for r in picked),
                    f"{sum(r['scored'] for r in picked)}/{4 * len(picked)}",
                    statistics.median(r["loadavg"] for r in picked),
                ]
                for mode in ("verifier", "json")
                if (picked := [r for r in compared if r["mode"] == mode])
            ],
        )
    rows = data.get("cases", [])
    if not rows:
        return
    threshold = DEFAULT_FAIL_THRESHOLDS["faithfulness"]
    out = []
    for lang in ("en", "zh", "all"):
        picked = [r for r in rows if lang in (r["lang"], "all")]
        held = [r for r in picked if r["answer_chunk"] is not None]
        line = [
            lang,
            len(picked),
            statistics.median(r["seconds"] for r in picked),
            statistics.median(r["calls"] for r in picked),
            statistics.median(r.get("server", {}).get("prompt_n", 0) for r in picked),
            statistics.median(r.get("server", {}).get("cache_n", 0) for r in picked),
            f"{sum(r['chunk_p'][r['answer_chunk']] >= 0.5 for r in held)}/{len(held)}",
            statistics.median(r["relevancy"]["answer"] for r in picked),
            statistics.median(r["relevancy"]["paraphrase"] for r in picked),
            statistics.median(r["relevancy"]["off_topic"] for r in picked),
            f"{sum(r['relevancy']['off_topic'] < 0.4 for r in picked)}/{len(picked)}",
        ]
        for fn in COMBINERS.values():
            for calibrated in (False, True):
                default = [claims(r, "claims_default", calibrated) for r in picked]
                wrong = [claims(r, "claims_hallucinating", calibrated) for r in picked]
                passed = sum(fn(ps) >= threshold for ps in default if ps)
                failed = sum(fn(ps) < threshold for ps in wrong if ps)
                line.append(f"{passed}/{failed}")
        out.append(line)
    if all("per_metric" in r.get("server", {}) for r in rows):
        print(f"\nper metric, medians a case; server start {data.get('startup_s')} s")
        print_table(METRIC_HEAD, metric_rows(rows))
    load_avg = data["machine"].get("loadavg_before")
    print(f"\nllama judge, 1.5B, every metric in verifier mode; load average before {load_avg}")
    print_table(
        [
            "lang",
            "cases",
            "s/case",
            "calls",
            "tokens prefilled",
            "from cache",
            "answer chunk useful",
            "AR answer",
            "AR paraphrase",
            "AR off-topic",
            "off < 0.4",
            *(f"faith {h}{c} pass/fail-halluc" for h in COMBINERS for c in ("", " cal.")),
        ],
        out,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("demo")
    d.add_argument("--en", type=int, default=4)
    d.add_argument("--zh", type=int, default=4)
    d.add_argument("--base-url")
    d.add_argument("--model", default="qwen2.5-coder-1.5b@cc324af070c2")
    d.add_argument("--parallel", type=int, default=1)
    d.add_argument("--threads", type=int, default=None)
    c = sub.add_parser("compare")
    c.add_argument("--en", type=int, default=1)
    c.add_argument("--zh", type=int, default=1)
    c.add_argument("--base-url", required=True)
    c.add_argument("--model", default="qwen2.5-coder-1.5b@cc324af070c2")
    t = sub.add_parser("throughput")
    t.add_argument("--en", type=int, default=2)
    t.add_argument("--zh", type=int, default=2)
    t.add_argument("--parallel", type=int, default=1)
    t.add_argument("--threads", type=int, default=None)
    a = sub.add_parser("alternate")
    a.add_argument("--before", required=True, help="directory holding the old ragmeter package")
    a.add_argument("--after", default=str(HERE.parent / "src"))
    a.add_argument("--en", type=int, default=4)
    a.add_argument("--zh", type=int, default=4)
    a.add_argument("--threads", type=int, default=1)
    a.add_argument("--key", default="alternate", help="where in the JSON the rows go")
    sc = sub.add_parser("serve-cases")
    sc.add_argument("--en", type=int, default=4)
    sc.add_argument("--zh", type=int, default=4)
    sc.add_argument("--threads", type=int, default=1)
    sub.add_parser("table")
    args = parser.parse_args()
    if args.command == "demo":
        asyncio.run(demo(args))
    elif args.command == "compare":
        asyncio.run(compare(args))
    elif args.command == "throughput":
        asyncio.run(throughput(args))
    elif args.command == "alternate":
        alternate(args)
    elif args.command == "serve-cases":
        asyncio.run(serve_cases(args))
    else:
        data = load()
        table(data)
        for key in data:
            if key.startswith("alternate"):
                alternate_table(data, key)


if __name__ == "__main__":
    main()
