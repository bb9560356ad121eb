"""One deterministic typo in a question, English or Chinese, for `ragmeter vary`.

The slip is the kind a person makes, kept simple so it is easy to read and reason about:

- English: one lowercase word of four letters or more (a content word when the question has
  one; capitalised names, acronyms and numbers are left alone) gets one edit, away from its
  first letter: two neighbouring letters swapped (`much` → `mcuh`), a letter dropped
  (`plan` → `pln`), a letter doubled (`plan` → `pllan`), or a letter replaced by a neighbouring
  key on a QWERTY keyboard (`plan` → `plsn`).
- Chinese: a pinyin-input slip, one character replaced by a homophone (same syllable, any tone)
  from the table below (`密码` → `蜜码`, `下载` → `下再`); a question with none of those
  characters loses one Chinese character (never the first).

Every choice comes from the `random.Random` passed in, so a seed fixes the typo.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from ..text import is_stopword
from ..vocabulary import Lang

_KEYBOARD_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")


def _keyboard_neighbours() -> dict[str, str]:
    """Letters next to each letter on its QWERTY row and the rows above and below."""
    where = {c: (r, i) for r, row in enumerate(_KEYBOARD_ROWS) for i, c in enumerate(row)}
    neighbours: dict[str, str] = {}
    for letter, (r, i) in where.items():
        near = []
        for other, (r2, i2) in where.items():
            if other != letter and abs(r - r2) <= 1 and abs(i - i2) <= 1:
                near.append(other)
        neighbours[letter] = "".join(sorted(near))
    return neighbours


KEYBOARD_NEIGHBOURS = _keyboard_neighbours()

_HOMOPHONE_TABLE = """
    的:得 在:再 是:事 以:已 吗:嘛 号:好 码:马 密:蜜 登:灯 录:路 删:山 除:出 设:社 置:制
    费:废 付:副 限:线 个:各 天:添 时:十 间:见 件:建 用:永 户:护 可:克 何:和 如:入 支:知
    持:迟 文:问 档:当 成:城 员:原 务:物 请:情 求:球 计:记 记:计 价:假 格:隔 数:书 据:句
    保:宝 存:寸 期:其 导:到 版:板 验:演 证:正 安:按 全:权 享:想 共:供 链:连 接:街 试:式
    笔:比 队:对 单:担 次:此 最:醉 传:船 附:付 步:部 知:之 通:同 多:朵 少:绍 样:洋 回:会
    站:占 工:公 作:做 区:去 上:尚 载:再 功:工 开:凯 启:起 页:夜 面:免 免:面 钱:前 元:园
    月:越 年:念 每:美 人:任 几:机 名:明 久:九 留:流 哪:那 些:写 退:推 款:宽 发:法 送:松
    邮:有 箱:想 入:如 改:该 修:休 找:照 帮:邦 助:住
"""
HOMOPHONES: dict[str, str] = dict(re.findall(r"(\S):(\S)", _HOMOPHONE_TABLE))
"""Common characters and a homophone a pinyin input method offers beside them (same
syllable, tone ignored): the Chinese typo swaps one of them."""

_EN_WORD_RE = re.compile(r"(?<![A-Za-z'’])[a-z]{4,}(?![A-Za-z'’])")
_HAN_RE = re.compile("[\u3400-\u4dbf\u4e00-\u9fff]")
_EN_EDITS = ("swap", "drop", "double", "neighbour")


@dataclass(frozen=True)
class Typo:
    """A question with one typo, and what changed."""

    text: str
    """The question with the typo."""
    edit: str
    """What changed, e.g. `much → mcuh`, `码 → 马 (homophone)`, `dropped 的`."""


def make_typo(text: str, lang: Lang, rng: random.Random) -> Typo | None:
    """`text` with one typo in the language `lang` (see the module docstring), or None when it
    has nothing to misspell. A Chinese question with no Chinese character gets an English
    typo, and the other way round."""
    if lang == "zh":
        return _chinese_typo(text, rng) or _english_typo(text, rng)
    return _english_typo(text, rng) or _chinese_typo(text, rng)


def _english_typo(text: str, rng: random.Random) -> Typo | None:
    words = list(_EN_WORD_RE.finditer(text))
    content = [m for m in words if not is_stopword(m.group())]
    if not (content or words):
        return None
    match = rng.choice(content or words)
    word = match.group()
    new = _edit_word(word, rng.choice(_EN_EDITS), rng)
    start, end = match.span()
    return Typo(text[:start] + new + text[end:], f"{word} → {new}")


def _edit_word(word: str, edit: str, rng: random.Random) -> str:
    """`word` with one edit away from its first letter (a swap of two equal letters, which
    would change nothing, becomes a drop)."""
    if edit == "swap":
        spots = [i for i in range(1, len(word) - 1) if word[i] != word[i + 1]]
        if spots:
            i = rng.choice(spots)
            return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
        edit = "drop"
    i = rng.randrange(1, len(word))
    if edit == "drop":
        return word[:i] + word[i + 1 :]
    if edit == "double":
        return word[: i + 1] + word[i:]
    return word[:i] + rng.choice(KEYBOARD_NEIGHBOURS[word[i]]) + word[i + 1 :]


def _chinese_typo(text: str, rng: random.Random) -> Typo | None:
    han = [m.start() for m in _HAN_RE.finditer(text)]
    if not han:
        return None
    swappable = [i for i in han if text[i] in HOMOPHONES]
    if swappable:
        i = rng.choice(swappable)
        new = HOMOPHONES[text[i]]
        return Typo(text[:i] + new + text[i + 1 :], f"{text[i]} → {new} (homophone)")
    if len(han) < 3:  # dropping one of two characters leaves little of the question
        return None
    i = rng.choice(han[1:])
    return Typo(text[:i] + text[i + 1 :], f"dropped {text[i]}")


__all__ = ["HOMOPHONES", "KEYBOARD_NEIGHBOURS", "Typo", "make_typo"]
