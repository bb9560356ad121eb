"""A `user:pass@` base URL (judge and embedding endpoints) leaves its password in no file and no
printed line: not in results.json (the judge fingerprint names the embedding endpoint, warnings
name the judge's), not in the call cache (rows, and keys: a key hashes the request stored next
to it, so a password in it could be guessed offline), not in any report (issue 13).

Drives the real command line against the fake OpenAI-compatible server."""

import json
from pathlib import Path

from typer.testing import CliRunner

from ragmeter.cli import app
from ragmeter.clients import forget_output_modes
from ragmeter.testing import FakeOpenAI, Fault, Smart

runner = CliRunner()
PASSWORD = "hunter2pass"


def invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def test_url_passwords_reach_no_file_no_line_and_no_cache_key(tmp_path, monkeypatch):
    monkeypatch.setenv("JUDGE_KEY", "sk-test-0123456789abcdef")
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        json.dumps(
            {
                "id": "q1",
                "question": "How long are deleted notes kept?",
                "ground_truth": "Deleted notes stay 30 days.",
                "contexts": ["Deleted notes stay 30 days."],
                "answer": "Deleted notes stay 30 days.",
            }
        )
    )
    outputs = []
    with FakeOpenAI(Smart(), faults=[Fault("bad_usage")]) as server:  # a warning names the URL

        def run(password: str):
            forget_output_modes()
            url = server.base_url.replace("://", f"://alice:{password}@")
            config = tmp_path / "ragmeter.toml"
            config.write_text(f'[judge]\nembedding_model = "emb"\nembedding_base_url = "{url}"\n')
            result = invoke(
                "run", "--cases", cases, "--out", tmp_path / "run", "--overwrite",
                "--config", config, "--judge", "openai", "--model", "judge-model",
                "--base-url", url, "--api-key-env", "JUDGE_KEY",
                "--cache-dir", tmp_path / "cache", "--no-progress",
            )  # fmt: skip
            assert result.exit_code == 0, result.output
            outputs.append(result.output)

        run(PASSWORD)
        sent = len(server.log)
        assert server.chat_log and any(r.path.endswith("/embeddings") for r in server.log)
        run("rotated-password")  # the same endpoint: every call answered from the cache
        assert len(server.log) == sent

    results = (tmp_path / "run" / "results.json").read_text()
    assert "alice:" not in results
    fingerprint = json.loads(results)["judge"]["params"]["embedding"]
    assert fingerprint.startswith("emb@http://***@127.0.0.1:")
    for fmt in ("md", "html", "junit", "json", "terminal"):
        shown = invoke("report", tmp_path / "run", "--format", fmt)
        assert shown.exit_code == 0 and "alice:" not in shown.output, fmt
        outputs.append(shown.output)
    assert not [o for o in outputs if "rotated-password" in o or PASSWORD in o]
    stored = [p for p in tmp_path.rglob("*") if p.is_file() and p.suffix != ".toml"]
    assert any(p.name.startswith("llm.sqlite") for p in stored)
    assert [p for p in stored if PASSWORD.encode() in Path(p).read_bytes()] == []
