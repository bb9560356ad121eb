"""A small bilingual handbook, so the demo pipeline can be tested without the bundled data."""

from __future__ import annotations

from pathlib import Path

import pytest

DOCS = {
    "en/pricing.md": """# Plans and pricing

Nimbus Notes has three plans: Free, Pro and Team. The Free plan costs nothing and keeps 100 notes.

The Pro plan costs $8 per month and removes the note limit. The Team plan costs $12 per user per \
month and adds shared notebooks.

Every paid plan starts with a 14-day free trial. You can cancel at any time from the Billing page.
""",
    "en/sync.md": """# Sync and offline mode

Notes sync across devices within a few seconds. Sync needs an internet connection.

Offline mode keeps your last 500 notes on the device. Changes made offline are uploaded when the \
device reconnects.
""",
    "en/export.md": """# Exporting notes

You can export any notebook as Markdown, PDF or HTML. Exports are sent by email as a zip file.

Large exports over 2 GB are split into several archives.
""",
    "en/security.md": """# Security

All notes are encrypted at rest with AES-256. Two-factor authentication can be turned on in \
Settings under Security.

Larkspur Labs never reads the content of your notes.
""",
    "en/support.md": """# Contacting support

Support answers emails within 24 hours on working days. Team plan customers also get live chat.
""",
    "zh/pricing.md": """# 套餐与价格

Nimbus Notes 提供三种套餐：免费版、专业版和团队版。免费版不收费，最多保存 100 条笔记。

专业版每月 8 美元，取消笔记数量限制。团队版每位用户每月 12 美元，并提供共享笔记本。

所有付费套餐都有 14 天免费试用期。
""",
    "zh/sync.md": """# 同步与离线模式

笔记会在几秒钟内在设备之间同步。同步需要网络连接。

离线模式会在设备上保留最近的 500 条笔记。离线时的修改会在重新联网后上传。
""",
    "zh/export.md": """# 导出笔记

你可以把任何笔记本导出为 Markdown、PDF 或 HTML 格式。导出文件会以压缩包形式发送到你的邮箱。
""",
    "zh/security.md": """# 安全

所有笔记在存储时都使用 AES-256 加密。你可以在设置的安全页面开启双重验证。
""",
}


@pytest.fixture(scope="session")
def fixture_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory with `en/*.md` and `zh/*.md` documents."""
    root = tmp_path_factory.mktemp("corpus")
    for name, text in DOCS.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root
