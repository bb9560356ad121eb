"""Antonym substitutions: a claim that swaps one word of its evidence for its opposite.

A minimal edit such as "prices rose" for "prices fell" keeps almost every word of the
evidence, so lexical coverage and sentence similarity both call it supported. This module
holds a small curated lexicon of opposites and finds such a swap between a claim's clause and
its best-matching context clause.

The lexicon is written here rather than taken from WordNet: nltk and wn download WordNet's
data at run time, which ragmeter never does, and its antonym relation is sparse for the verbs
and quantities that matter in answers (increase/decrease, allow/forbid, more/less). The pairs
below are the common, unambiguous ones. Left out on purpose: words whose opposite depends on
the sense (`right`, `light`, `leave`, `fire`, `like`, `present`), and converse pairs, which
a bag of words cannot tell from a contradiction ("A bought it from B" is "B sold it to A",
"A came before B" is "B came after A", "A is higher than B" is "B is lower than A").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from ...text import Lang, stem, tokenize

# "a b | c d", one pair of opposites between bars or line ends (see _table).
_EN_PAIRS = """
increase decrease | increase reduce | rise fall | rise drop | rise decline | raise lower
grow shrink | growth decline | expand shrink | expansion contraction | gain loss | gain lose
win lose | won lost | victory defeat | profit loss | surplus deficit | highest lowest
maximum minimum | most least | many few | single multiple | single several
largest smallest | biggest smallest | longest shortest | opened closed | start end
start finish | begin end | began ended | first last | earliest latest | inside outside
internal external | domestic foreign | accept reject | approve reject | approved rejected
allow forbid | allow prohibit | allow ban | allowed banned | allowed prohibited | permit ban
permitted prohibited | enable disable | enabled disabled | include exclude | included excluded
add remove | added removed | hired fired | arrive depart | arrival departure | enter exit
push pull | supported opposed | agree disagree | love hate | remember forget | succeed fail
success failure | successful unsuccessful | passed failed | true false | correct incorrect
possible impossible | legal illegal | public private | visible hidden | online offline
required optional | mandatory optional | temporary permanent | partial complete
same different | similar different | majority minority | all none | always never
everyone nobody | positive negative | strong weak | safe dangerous | safe unsafe
cheap expensive | rich poor | fast slow | quickly slowly | easy difficult | hot cold | wet dry
wide narrow | deep shallow | thick thin | full empty | young old | modern ancient
male female | man woman | men women | father mother | son daughter | brother sister
boy girl | king queen | north south | east west | northern southern | eastern western
day night | morning evening | summer winter | spring autumn | guilty innocent
convicted acquitted | ally enemy | friend enemy | peace war | best worst | improve worsen
improved worsened | encrypted unencrypted
"""

_ZH_PAIRS = """
增加 减少 | 增长 下降 | 增长 减少 | 上升 下降 | 提高 降低 | 上涨 下跌 | 涨价 降价 | 扩大 缩小
延长 缩短 | 提前 推迟 | 盈利 亏损 | 收入 支出 | 胜利 失败 | 成功 失败 | 赢得 输掉 | 获胜 落败
最高 最低 | 最多 最少 | 最大 最小 | 最长 最短 | 最早 最晚 | 开始 结束 | 打开 关闭 | 开启 关闭
启用 禁用 | 允许 禁止 | 接受 拒绝 | 同意 反对 | 支持 反对 | 批准 拒绝 | 国内 国外 | 内部 外部
公开 私有 | 公开 保密 | 合法 非法 | 正确 错误 | 真实 虚假 | 安全 危险 | 便宜 昂贵 | 免费 收费
必须 可选 | 必填 选填 | 永久 临时 | 全部 部分 | 相同 不同 | 多数 少数 | 容易 困难 | 简单 复杂
快速 缓慢 | 加快 减慢 | 加密 明文 | 在线 离线 | 上午 下午 | 白天 夜间 | 男性 女性 | 父亲 母亲
儿子 女儿 | 东部 西部 | 南部 北部 | 有罪 无罪 | 盟友 敌人 | 和平 战争 | 改善 恶化 | 加入 退出
雇用 解雇
"""


def _table(pairs: str, normalise: Callable[[str], str]) -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for pair in re.split(r"[|\n]", pairs):
        words = pair.split()
        if not words:
            continue
        if len(words) != 2:
            raise ValueError(f"antonym pair {pair!r} is not two words")
        a, b = normalise(words[0]), normalise(words[1])
        if a != b:
            table.setdefault(a, set()).add(b)
            table.setdefault(b, set()).add(a)
    return {word: frozenset(opposites) for word, opposites in table.items()}


_EN = _table(_EN_PAIRS, stem)
_ZH = _table(_ZH_PAIRS, str)


@lru_cache(maxsize=20_000)
def _stems(text: str) -> dict[str, str]:
    """English stems of `text`, each with the first word it came from."""
    found: dict[str, str] = {}
    for word in tokenize(text, "en"):
        found.setdefault(stem(word), word)
    return found


def opposites(word: str, lang: Lang) -> frozenset[str]:
    """The opposites of `word` (a stem in English, a word in Chinese) in the lexicon."""
    return (_EN if lang == "en" else _ZH).get(word, frozenset())


def antonym_swap(claim: str, evidence: str, lang: Lang) -> tuple[str, str] | None:
    """A word of `claim` whose opposite `evidence` says instead, as (claim word, evidence
    word); None when there is no such swap. A word both texts share, or an opposite the claim
    also contains ("from low to high"), is no swap."""
    if lang == "zh":
        # jieba glues words such as 价格上涨, so Chinese words are found as substrings
        for word in sorted(w for w in _ZH if w in claim and w not in evidence):
            swapped = sorted(b for b in _ZH[word] if b in evidence and b not in claim)
            if swapped:
                return word, swapped[0]
        return None
    mine, theirs = _stems(claim), _stems(evidence)
    for word in sorted(mine.keys() - theirs.keys()):
        swapped = sorted((opposites(word, lang) & theirs.keys()) - mine.keys())
        if swapped:
            return mine[word], theirs[swapped[0]]
    return None
