"""`ragmeter generate --model`: questions written by an LLM, against the fake OpenAI server."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragmeter._exceptions import JudgeUnavailable
from ragmeter.cases import load_cases
from ragmeter.cases.lint import lint_cases
from ragmeter.cli import app
from ragmeter.clients import ChatClient, LLMCache, forget_output_modes
from ragmeter.generate import (
    SKIP_LANG,
    SKIP_NO_REPLY,
    SKIP_UNGROUNDED,
    generate_llm,
    load_documents,
)
from ragmeter.testing import FakeOpenAI
from ragmeter.testing.fake_openai import Fault
from ragmeter.testing.responders import FakeRequest, Scripted
from ragmeter.text import split_sentences

EN_DOCS = {
    "trash": "Deleted notes stay in the trash for 30 days. Admins can restore notes from it.",
    "backups": "Snapshots of all data are taken every 4 hours. Snapshots are kept for 30 days.",
    "pricing": "The Pro plan costs 8 dollars per member. The Team plan costs 12 dollars.",
    "support": "Support answers email within one business day. Chat support opens at nine.",
    "exports": "Exports are written as Markdown files. The download link stays valid 7 days.",
    "sharing": "Public links can expire after 7 days. Guests see only the notes shared with them.",
    "webhooks": "Webhook deliveries are signed. Failed deliveries are retried 8 times.",
    "mobile": "The mobile apps scan paper pages into PDF files. Voice memos last up to 60 minutes.",
    "search": "Search finds words inside attachments. Quotes around words match the exact phrase.",
}
ZH_DOCS = {
    "huishouzhan": "删除的笔记会在回收站保留 30 天。管理员可以恢复成员删除的笔记。",
    "beifen": "系统每 4 小时为全部数据做一次快照。快照保留 30 天后删除。",
    "jiage": "专业版每位成员每月 8 美元。团队版每位成员每月 12 美元。",
    "daochu": "导出文件采用 Markdown 格式。下载链接的有效期为 7 天。",
    "fenxiang": "公开链接可以设置 7 天后失效。访客只能看到分享给他们的笔记。",
    "sousuo": "搜索可以查找附件中的文字。用引号括起的词会按完整短语匹配。",
}


@pytest.fixture
def docs_dir(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "en").mkdir(parents=True)
    (root / "zh").mkdir()
    for name, text in EN_DOCS.items():
        (root / "en" / f"{name}.md").write_text(f"# {name.title()}\n\n{text}\n", encoding="utf-8")
    for name, text in ZH_DOCS.items():
        (root / "zh" / f"{name}.md").write_text(f"# {name}\n\n{text}\n", encoding="utf-8")
    return root


def _passage(request: FakeRequest) -> str:
    return request.blocks()["PASSAGE"]


def writer(request: FakeRequest) -> dict:
    """Two questions per passage: one per sentence, its ground truth the sentence; the
    pricing passage's second is ungrounded and the exports passage's second in Chinese."""
    passage = _passage(request)
    items = []
    for sentence in split_sentences(passage)[:2]:
        if "。" in sentence:
            question = f"{sentence.rstrip('。')}吗？"
        else:
            question = f"Is it true that {sentence.rstrip('.').lower()}?"
        items.append({"question": question, "ground_truth": sentence})
    if "Pro plan" in passage:
        items[1]["ground_truth"] = "Astronauts bake croissants on the Moon every Sunday morning."
    if "Exports" in passage:
        items[1] = {"question": "导出的下载链接有效多久？", "ground_truth": "七天。"}
    return {"questions": items}


def conversation(request: FakeRequest) -> dict:
    """A first question on the passage's first sentence, a follow-up on its second that names
    its subject by a pronoun."""
    first, second = split_sentences(_passage(request))[:2]
    if "。" in first:
        return {
            "first_question": f"{first.rstrip('。')}吗？",
            "first_answer": first,
            "follow_up": f"那它呢：{second[2:].rstrip('。')}？",
            "referent": second[:2],
            "ground_truth": second,
        }
    rest = second.split(" ", 1)[1].rstrip(".")
    return {
        "first_question": f"Is it true that {first.rstrip('.').lower()}?",
        "first_answer": first,
        "follow_up": f"And what about it: {rest}?",
        "referent": second.split()[0],
        "ground_truth": second,
    }


@pytest.fixture
def server():
    forget_output_modes()
    broken = Fault("malformed", match=lambda request: "Snapshots" in request.task_text)
    script = Scripted({"GeneratedQuestions": writer, "GeneratedFollowUp": conversation})
    with FakeOpenAI(script, faults=[broken]) as fake:
        yield fake


def _client(server: FakeOpenAI) -> ChatClient:
    return ChatClient(
        model="writer", base_url=server.base_url, api_key_env=None, cache=LLMCache(None)
    )


def test_questions_come_from_the_model_and_bad_replies_are_skipped_and_counted(
    server, docs_dir
) -> None:
    docs, _ = load_documents(docs_dir)
    result = generate_llm(docs, _client(server), n=20, seed=0)
    cases = result.cases
    assert result.mode == "llm"
    # the backups passage's reply is never valid JSON: skipped after a repair and a retry
    assert result.skipped[SKIP_NO_REPLY] == ["en/backups.md#0"]
    assert result.skipped[SKIP_UNGROUNDED] == ["en/pricing.md#0"]
    assert result.skipped[SKIP_LANG] == ["en/exports.md#0"]
    backups = [
        r
        for r in server.chat_log()
        if "Snapshots" in json.dumps(r.body) and r.schema_name == "GeneratedQuestions"
    ]
    assert len(backups) == 3 and backups[1].repair  # first try, the repair round, a retry
    assert result.calls == len(server.chat_log())
    by_id = {case.id: case for case in cases}
    assert {c.category for c in cases} == {"normal", "typo", "multi_turn", "out_of_scope"}
    for case in (c for c in cases if c.category == "multi_turn"):
        first, answer = case.history
        assert first.role == "user" and answer.content in case.reference_contexts[0]
        assert case.ground_truth in case.reference_contexts[0]
        assert case.metadata["generate"]["template"] == "follow-up"
        assert case.metadata["generate"]["referent"] not in case.question
    trash = next(c for c in cases if c.metadata.get("source") == ["en/trash.md"])
    assert trash.ground_truth in EN_DOCS["trash"]
    assert trash.metadata["generate"]["mode"] == "llm"
    assert trash.metadata["generate"]["model"] == "writer"
    assert trash.metadata["generate"]["chunk_id"] == "en/trash.md#0"
    assert trash.reference_contexts == [EN_DOCS["trash"]]
    zh = [c for c in cases if c.lang == "zh" and c.category in ("normal", "typo")]
    assert zh and all(c.question.endswith("吗？") or "typo" in c.metadata["generate"] for c in zh)
    typos = [c for c in cases if c.category == "typo"]
    assert all(c.question != c.metadata["generate"]["clean_question"] for c in typos)
    assert not any("backups" in json.dumps(c.metadata) for c in by_id.values())
    report = lint_cases(cases)
    assert report.errors == []
    assert not [f for f in report.findings if "duplicate" in f.code]

    forget_output_modes()
    again = generate_llm(docs, _client(server), n=20, seed=0)
    assert [c.model_dump() for c in again.cases] == [c.model_dump() for c in cases]


def test_a_refused_key_stops_generation(docs_dir) -> None:
    forget_output_modes()
    docs, _ = load_documents(docs_dir)
    with FakeOpenAI(faults=[Fault("unauthorized")]) as fake, pytest.raises(JudgeUnavailable):
        generate_llm(docs, _client(fake), n=10, seed=0)
    forget_output_modes()
    with FakeOpenAI(faults=[Fault("unauthorized")]) as fake:
        out = docs_dir.parent / "gen.jsonl"
        result = CliRunner().invoke(
            app,
            [
                "generate",
                str(docs_dir),
                "-o",
                str(out),
                "-m",
                "writer",
                "--no-cache",
                "--base-url",
                fake.base_url,
            ],
        )
    assert result.exit_code == 5, result.output
    assert not out.exists()


def test_the_cli_takes_the_judge_style_options(server, docs_dir, tmp_path: Path) -> None:
    out = tmp_path / "gen.jsonl"
    result = CliRunner().invoke(
        app,
        [
            "generate",
            str(docs_dir),
            "-o",
            str(out),
            "--n",
            "10",
            "--model",
            "writer",
            "--base-url",
            server.base_url,
            "--api-key-env",
            "",
            "--cache-dir",
            str(tmp_path / "cache"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "(llm mode, " in result.output and " calls)" in result.output
    assert f"left out 1: {SKIP_NO_REPLY} (en/backups.md#0)" in result.output
    assert len(load_cases(out)) == 10
    assert (tmp_path / "cache" / "llm.sqlite").exists()
    no_model = CliRunner().invoke(
        app, ["generate", str(docs_dir), "-o", str(out), "--base-url", server.base_url]
    )
    assert no_model.exit_code == 2 and "give --model too" in no_model.output


def test_a_follow_up_must_name_its_subject_by_a_pronoun() -> None:
    from ragmeter.demo.chunking import Chunk
    from ragmeter.generate import SKIP_NO_PRONOUN, GeneratedFollowUp, _Dedup, _llm_follow_up

    text = EN_DOCS["trash"]
    chunk = Chunk("en/trash.md", "Trash", "en", text, 0, len(text))
    reply = {
        "first_question": "How long do deleted notes stay in the trash?",
        "first_answer": "Deleted notes stay in the trash for 30 days.",
        "follow_up": "Who can restore notes from it?",
        "referent": "the trash",
        "ground_truth": "Admins can restore notes from it.",
    }
    case = _llm_follow_up(GeneratedFollowUp(**reply), chunk, "en/trash.md#0", {}, _Dedup())
    assert not isinstance(case, str) and case.category == "multi_turn"
    assert case.metadata["generate"]["pronoun"] == "it"
    named = {**reply, "follow_up": "Who can restore notes from the trash?"}
    assert _llm_follow_up(GeneratedFollowUp(**named), chunk, "x", {}, _Dedup()) == SKIP_NO_PRONOUN
    unnamed = {**reply, "referent": ""}
    assert _llm_follow_up(GeneratedFollowUp(**unnamed), chunk, "x", {}, _Dedup()) == SKIP_NO_PRONOUN
