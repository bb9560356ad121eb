"""`ragmeter generate` (extractive): questions a person would ask, Markdown out of ground
truths, no question made from URLs, code or sentences that point elsewhere (issue 34)."""

from pathlib import Path

import pytest

from ragmeter.generate import (
    generate_extractive,
    load_documents,
    markdown_to_text,
)
from ragmeter.generate.templates import (
    SKIP_NO_TEMPLATE,
    SKIP_REFERS,
    Casing,
    Question,
    make_text_question,
)

CASING = Casing(
    [
        "The docs say Black formats code, and Larkspur Labs writes them; ask Nimbus Notes.",
        "we remove support for old code when the trash is full",
    ]
)


@pytest.mark.parametrize(
    ("sentence", "question", "kind"),
    [
        (
            "To reset a forgotten password, select Forgot password on the sign-in page.",
            "How do I reset a forgotten password?",
            "how-to",
        ),
        (
            "If you need to access blackd from a browser-based client, pass one or more "
            "--cors-allow-origin options.",
            "How do I access blackd from a browser-based client?",
            "how-to",
        ),
        (
            "You can use the --check flag to see which files would be reformatted.",
            "How can I see which files would be reformatted?",
            "how-to",
        ),
        (
            "You can even configure git to ignore revisions listed in a file.",
            "Can I configure git to ignore revisions listed in a file?",
            "yes-no",
        ),
        (
            "Deleted notes are kept in the trash for 30 days on every plan.",
            "For how many days are deleted notes kept in the trash on every plan?",
            "amount",
        ),
        (
            "The Pro plan costs $8 per member per month.",
            "How much does the Pro plan cost per member per month?",
            "amount",
        ),
        (
            "A webhook endpoint must answer with a 2xx status within 10 seconds.",
            "Within how many seconds must a webhook endpoint answer with a 2xx status?",
            "amount",
        ),
        (
            "Education verification must be renewed every 12 months.",
            "How often must education verification be renewed?",
            "amount",
        ),
        (
            "Larkspur Labs was founded in 2016 in Portland by two engineers.",
            "In which year was Larkspur Labs founded in Portland by two engineers?",
            "when",
        ),
        (
            "Support for formatting Python 2 code was removed in version 22.0.",
            "In which version was support for formatting Python 2 code removed?",
            "when",
        ),
        (
            "Black is a PEP 8 compliant opinionated formatter with its own style.",
            "What is Black?",
            "definition",
        ),
        (
            "The action defaults to the latest release available on PyPI.",
            "What does the action default to?",
            "what",
        ),
        (
            "Black supports formatting Jupyter Notebooks (.ipynb files) natively.",
            "Does Black support formatting Jupyter Notebooks natively?",
            "yes-no",
        ),
        (
            "Nimbus Notes supports SAML 2.0 and has tested setup guides for Okta.",
            "Does Nimbus Notes support SAML 2.0?",
            "yes-no",
        ),
        (
            "Backups are encrypted with AES-256 and are stored in a second data center.",
            "Are backups encrypted with AES-256?",
            "yes-no",
        ),
    ],
)
def test_an_english_sentence_becomes_the_question_a_person_would_ask(
    sentence, question, kind
) -> None:
    made = make_text_question(sentence, "en", CASING)
    assert isinstance(made, Question)
    assert (made.text, made.kind) == (question, kind)


@pytest.mark.parametrize(
    ("sentence", "question", "kind"),
    [
        (
            "如果要把海外区域的笔记迁移到上海区域，需要先在原区域导出整个工作区。",
            "如何把海外区域的笔记迁移到上海区域？",
            "how-to",
        ),
        (
            "所有套餐的回收站都保留 30 天，之后会被永久删除。",
            "所有套餐的回收站都保留多少天？",
            "amount",
        ),
        ("Nimbus Notes 于 2018 年 3 月正式上线。", "Nimbus Notes 于哪年哪月正式上线？", "amount"),
        ("中国大陆区域支持使用微信扫码登录。", "中国大陆区域支持使用微信扫码登录吗？", "yes-no"),
        ("你可以在设置中关闭邮件通知。", "我可以在设置中关闭邮件通知吗？", "yes-no"),
        ("模板是一份预先写好结构的笔记。", "模板是什么？", "definition"),
        (
            "Nimbus Notes 支持 SAML 2.0，并提供配置指南。",
            "Nimbus Notes 支持 SAML 2.0 吗？",
            "yes-no",
        ),
        (
            "如果连续 3 天推送失败，Webhook 会被自动停用。",
            "如果连续多少天推送失败，Webhook 会被自动停用？",
            "amount",
        ),
    ],
)
def test_a_chinese_sentence_becomes_the_question_a_person_would_ask(
    sentence, question, kind
) -> None:
    from ragmeter.generate import _zh_cloze

    made = make_text_question(sentence, "zh", CASING, _zh_cloze(sentence))
    assert isinstance(made, Question)
    assert (made.text, made.kind) == (question, kind)


@pytest.mark.parametrize(
    ("sentence", "lang", "reason"),
    [
        # the "What does the … documentation say about grows and depend?"
        (
            "As HTTPX usage grows, there is an expanding community of developers building "
            "tools and libraries that integrate with HTTPX, or depend on HTTPX.",
            "en",
            SKIP_NO_TEMPLATE,
        ),
        ("Emptying the trash permanently deletes its contents immediately.", "en", SKIP_REFERS),
        ("We aim to release whatever is on main every 1-2 months.", "en", SKIP_NO_TEMPLATE),
        (
            "If you need to customize request instantiation, see Request instances.",
            "en",
            SKIP_NO_TEMPLATE,
        ),
        ("To do so, pass None as the proxy URL.", "en", SKIP_NO_TEMPLATE),
        (
            "存储用量达到 80% 和 95% 时，工作区所有者会分别收到一封提醒邮件。",
            "zh",
            SKIP_NO_TEMPLATE,
        ),
        ("该功能支持所有套餐的工作区使用。", "zh", SKIP_NO_TEMPLATE),
        ("单个附件的大小上限为：免费版 10 MB，专业版 200 MB。", "zh", SKIP_NO_TEMPLATE),
    ],
)
def test_a_sentence_no_natural_question_fits_is_skipped_with_the_reason(
    sentence, lang, reason
) -> None:
    from ragmeter.generate import _zh_cloze

    cloze = _zh_cloze(sentence) if lang == "zh" else None
    assert make_text_question(sentence, lang, CASING, cloze) == reason


MARKDOWN = """---
title: Proxies
---
# Proxies

> **Note:** _Black_ is a *fast* formatter, see [the docs](https://black.rtfd.io).

## Routing

- Use `httpx.Client` for [pooling][pool].
1. Install it.

| Option | Meaning |
|--------|---------|
| proxy  | a URL   |

    client = httpx.Client(proxy="http://localhost:8030")

!!! tip "Gotcha"
    The proxy URL for the https key should use the http scheme.

<div align="center"><img src="x.png"/></div>

![diagram](img/d.png)

[pool]: https://example.com/pool
"""


def test_markdown_leaves_prose_as_a_reader_sees_it() -> None:
    assert markdown_to_text(MARKDOWN).split("\n\n") == [
        "Proxies",
        "Note: Black is a fast formatter, see the docs.",
        "Routing",
        "Use httpx.Client for pooling.",
        "Install it.",
        "The proxy URL for the https key should use the http scheme.",
    ]


HTTPX_LIKE = """# Proxies

To route all traffic to a proxy at `http://localhost:8030`, pass the proxy URL to the client.

> Proxy credentials can be passed as the userinfo section of the proxy URL.

Deleted notes are kept in the trash for 30 days on every plan.

```python
with httpx.Client(proxy="http://localhost:8030") as client:
    client.get("https://example.com")  # The client retries 3 times on every plan.
```

| Setting | Meaning |
|---------|---------|
| Backups are encrypted with AES-256 in every region. | yes |
"""


def test_no_question_is_spliced_into_a_url_code_or_a_table_and_truths_have_no_markdown(
    tmp_path: Path,
) -> None:
    (tmp_path / "proxies.md").write_text(HTTPX_LIKE, encoding="utf-8")
    docs, _ = load_documents(tmp_path)
    result = generate_extractive(docs, n=20, seed=0)
    asked = [c for c in result.cases if c.category in ("normal", "typo")]
    assert {c.ground_truth for c in asked} == {
        "Proxy credentials can be passed as the userinfo section of the proxy URL.",
        "Deleted notes are kept in the trash for 30 days on every plan.",
    }
    for case in result.cases:
        assert "localhost" not in case.question and "how many pass" not in case.question
        assert not case.ground_truth.startswith((">", "#", "-", "*"))
        assert "`" not in case.ground_truth and "AES-256" not in case.ground_truth
    assert result.sentences_skipped == {"holds a URL or code": 1}
    assert result.sentences == 3


def test_the_cli_says_how_many_sentences_made_no_question_and_why(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from ragmeter.cli import app

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "proxies.md").write_text(
        HTTPX_LIKE + "\nThis is because HTTP proxying requires a connection to the proxy.\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(
        app, ["generate", str(docs), "-o", str(tmp_path / "out.jsonl"), "--n", "6"]
    )
    assert result.exit_code == 0, result.output
    assert "of 4 sentences read, 2 made no question:" in result.output
    assert "1: holds a URL or code" in result.output
    assert "1: opens by pointing elsewhere (this, it, however, then…)" in result.output
