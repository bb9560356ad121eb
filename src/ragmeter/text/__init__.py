"""Language-aware text utilities for English and Chinese: tokens, sentences, negation.

Everything here is pure and cheap; jieba is imported on first Chinese use. Numbers and dates
are read in `text.numbers`, near-duplicate questions found in `text.near_duplicates`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, Literal

from .._util.paths import cache_root

Lang = Literal["en", "zh"]


def _split(blob: str) -> tuple[str, ...]:
    return tuple(blob.split())


def _words(blob: str) -> frozenset[str]:
    return frozenset(_split(blob))


_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_RE = re.compile(f"[{_CJK}]")
_CJK_RUN_RE = re.compile(f"[{_CJK}]+")
_EN_TOKEN_RE = re.compile(r"[a-z0-9]+(?:[.,/:'’][a-z0-9]+)*%?")
_NORM_DROP_RE = re.compile(r"[\W_]+")

EN_STOPWORDS = _words(
    """
    a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is
    it its itself just me more most my myself no nor not now of off on once only or other our
    ours ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself
    yourselves s t d ll m re ve don't doesn't didn't isn't aren't wasn't weren't won't can't
    cannot couldn't shouldn't wouldn't hasn't haven't hadn't it's i'm you're that's there's
    let's may might must shall yes ok okay please thanks thank hi hello get got also etc e g
    i.e e.g via per
    """
)

ZH_STOPWORDS = _words(
    """
    的 了 是 在 和 与 及 或 也 都 就 而 且 但 对 把 被 让 给 从 向 于 以 为 之 其 这 那
    这个 那个 这些 那些 这样 那样 此 该 我 你 您 他 她 它 我们 你们 他们 她们 它们 自己 吗 呢
    吧 啊 呀 哦 嗯 么 什么 怎么 怎样 如何 哪 哪里 哪些 谁 多少 几 个 些 有 没 没有 不 无 未
    非 别 很 更 最 太 还 又 再 已 已经 会 能 可 可以 要 需要 应 应该 得 地 着 过 等 等等
    如果 因为 所以 但是 然而 并 并且 以及 或者 还是 就是 即 则 只 只是 一 一个 一下 请 谢谢 好
    吧 上 下 中 内 外 里 时 时候 后 前 之后 之前 关于 根据 按照 通过 进行 一些 所有 每 各
    其他 另外 即可 便 来 去 到 说 做 用
    """
)

NEGATIONS_EN = _words(
    """
    not no never without cannot none nobody nothing neither nor isn't aren't wasn't weren't
    don't doesn't didn't won't can't couldn't shouldn't wouldn't hasn't haven't hadn't mustn't
    """
)
NEGATIONS_ZH = ("不", "没", "无", "未", "非", "别", "莫", "勿", "禁止")
# Words starting with a negation character that are not negations.
_ZH_NOT_NEGATION = ("不仅", "不但", "不过", "无论", "非常", "别的", "别人", "未来", "无线", "不少")


def detect_lang(text: str) -> Lang:
    """`zh` when CJK ideographs outweigh Latin words, else `en`.

    Each ideograph is weighed against a whole Latin word (not a letter), so a Chinese question
    naming products ("Nimbus Notes 支持 Linux 吗？") is Chinese, while an English sentence quoting
    one Chinese term ("log in with 微信 on the phone") stays English.
    """
    cjk = len(_CJK_RE.findall(text))
    if cjk < 2:
        return "en"
    latin_words = len(_LATIN_WORD_RE.findall(text))
    return "zh" if cjk >= 0.5 * latin_words else "en"


_LATIN_WORD_RE = re.compile(r"[A-Za-z]+")


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """Light English suffix stripping (plurals, -ed, -ing, final e), consistent not linguistic."""
    if len(word) <= 3 or not word.isalpha():
        return word
    w = word
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    stripped = False
    for suffix in ("ing", "ed"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)]
            stripped = True
            break
    if stripped and len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":
        w = w[:-1]
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    return w


def _en_tokens(text: str, stem_words: bool) -> list[str]:
    tokens = _EN_TOKEN_RE.findall(text.lower().replace("’", "'"))
    return [stem(t) for t in tokens] if stem_words else tokens


@lru_cache(maxsize=1)
def _jieba() -> Any:  # the jieba module, which has no type information
    import logging

    import jieba

    jieba.setLogLevel(logging.WARNING)
    with _jieba_cache_dir() as folder:
        jieba.dt.tmp_dir = folder
        jieba.dt.cache_file = f"jieba-{jieba.__version__}.cache"
        jieba.initialize()
    return jieba


@contextmanager
def _jieba_cache_dir() -> Iterator[str]:
    """Where jieba keeps its parsed dictionary, a marshal file it loads unchecked: by default
    `/tmp/jieba.cache`, which anyone on the machine may have planted. Here `<cache>/jieba`
    (ragmeter's cache dir, see `paths.cache_root`), or where that cannot be written, a private
    temporary directory removed once the dictionary is loaded."""
    import tempfile

    folder = cache_root() / "jieba"
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        usable = os.access(folder, os.W_OK | os.X_OK)
    except OSError:
        usable = False
    if usable:
        yield str(folder)
        return
    with tempfile.TemporaryDirectory(prefix="ragmeter-jieba-") as private:
        yield private


@lru_cache(maxsize=8192)
def _zh_cut(run: str) -> tuple[str, ...]:
    return tuple(_jieba().lcut(run, HMM=True))


def tokenize(text: str, lang: Lang | None = None, *, stem_words: bool = False) -> list[str]:
    """Word tokens, lowercased, without punctuation.

    English: words and numbers such as `8.50`, `24/7`, `1,000`, `2fa`. Chinese: jieba words for
    CJK runs, English tokens for the ASCII parts in between.
    """
    lang = lang or detect_lang(text)
    if lang == "en" and not _CJK_RE.search(text):
        return _en_tokens(text, stem_words)
    tokens: list[str] = []
    pos = 0
    for match in _CJK_RUN_RE.finditer(text):
        tokens.extend(_en_tokens(text[pos : match.start()], stem_words))
        tokens.extend(_zh_cut(match.group()))
        pos = match.end()
    tokens.extend(_en_tokens(text[pos:], stem_words))
    return tokens


def is_stopword(token: str) -> bool:
    """Whether a token is an English or Chinese stopword."""
    return token in EN_STOPWORDS or token in ZH_STOPWORDS


def content_words(text: str, lang: Lang | None = None, *, stem_words: bool = True) -> list[str]:
    """Tokens minus stopwords (English ones stemmed unless `stem_words=False`)."""
    out = []
    for token in tokenize(text, lang):
        if is_stopword(token):
            continue
        out.append(stem(token) if stem_words else token)
    return out


# --- sentences ---------------------------------------------------------------------------

_ABBREVIATIONS = _words(
    """
    e.g i.e etc vs mr mrs ms dr prof sr jr st no approx fig inc ltd co corp dept est min max
    jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed thu fri sat sun a.m p.m u.s
    """
)
_BULLET_RE = re.compile(
    r"\s*(?:[-*•·●▪‣]\s*|(?:\d{1,2}[.)]|[a-z][.)]|[（(]?\d{1,2}[）)])\s+|\d{1,2}、\s*|#+\s*)"
)
_EN_END_RE = re.compile(r"[.!?]+[\"'”’)\]]*(?=\s)")
_ZH_END_RE = re.compile(r"[。！？；!?;…]+[\"'”’）)\]」』]*")
_LINE_END_RE = re.compile(r"[.!?。！？；:：]\s*$")


def _strip_span(text: str, start: int, end: int) -> tuple[int, int] | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    bullet = _BULLET_RE.match(text, start, end)
    if bullet and bullet.end() < end and not _is_bare_number_start(text, start, end):
        start = bullet.end()
    if start >= end or not any(ch.isalnum() for ch in text[start:end]):
        return None
    return start, end


def _is_bare_number_start(text: str, start: int, end: int) -> bool:
    # "8.50 is the fee" must keep its number; a list marker "1. " is followed by a space.
    return bool(re.match(r"\d+\.\d", text[start:end]))


def _blocks(text: str) -> list[tuple[int, int]]:
    """Split on line breaks that end a block: blank lines, bullets, or a finished line."""
    blocks: list[tuple[int, int]] = []
    start = 0
    lines = list(re.finditer(r"[^\n]*(?:\n|$)", text))
    for i, line in enumerate(lines[:-1]):
        content = line.group().rstrip("\n")
        nxt = lines[i + 1].group()
        breaks = (
            not content.strip()
            or not nxt.strip()
            or _BULLET_RE.match(nxt) is not None
            or _LINE_END_RE.search(content) is not None
            or _CJK_RE.search(content) is not None
        )
        if breaks:
            blocks.append((start, line.end()))
            start = line.end()
    blocks.append((start, len(text)))
    return blocks


def _en_cuts(text: str, start: int, end: int) -> list[int]:
    """Offsets after each English sentence end in `text[start:end]`.

    Linear: every check looks at the characters near the sentence end, never at the whole
    block before or after it.
    """
    cuts = []
    first_gap = _first_gap(text, start, end)
    for match in _EN_END_RE.finditer(text, start, end):
        after = _NON_SPACE_RE.search(text, match.end(), end)
        if after is None:
            continue
        if after.group().islower() or _is_lone_bullet(text, start, match.end(), first_gap):
            continue
        if text[match.start()] == "." and _is_abbreviation(text, start, match.start()):
            continue
        cuts.append(match.end())
    return cuts


_NON_SPACE_RE = re.compile(r"\S")
_SPACE_RE = re.compile(r"\s")


def _first_gap(text: str, start: int, end: int) -> int:
    """Where the first whitespace after the block's first word is (`end` when none)."""
    word = _NON_SPACE_RE.search(text, start, end)
    gap = _SPACE_RE.search(text, word.start(), end) if word else None
    return gap.start() if gap else end


def _is_lone_bullet(text: str, start: int, cut: int, first_gap: int) -> bool:
    """Whether `text[start:cut]` is only a list marker ("1.", "a)").

    A marker is a single word, so only a cut within the block's first word can be one.
    """
    return cut <= first_gap and _BULLET_RE.fullmatch(text[start:cut] + " ") is not None


def _is_abbreviation(text: str, start: int, dot: int) -> bool:
    """Whether the word ending at the period `text[dot]` is an abbreviation or an initial."""
    begin = dot
    while begin > start and text[begin - 1] in _WORD_CHARS:
        begin -= 1
    if begin == dot:
        return False
    token = text[begin:dot].lower().rstrip(".")
    return token in _ABBREVIATIONS or (len(token) == 1 and token.isalpha())


_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz.")


def sentence_spans(text: str, lang: Lang | None = None) -> list[tuple[int, int]]:
    """Character spans (start, end exclusive) of the sentences of `text`, bullets stripped."""
    lang = lang or detect_lang(text)
    spans: list[tuple[int, int]] = []
    for b_start, b_end in _blocks(text):
        cuts = set(_en_cuts(text, b_start, b_end))
        if lang == "zh" or _CJK_RE.search(text, b_start, b_end):
            cuts.update(m.end() for m in _ZH_END_RE.finditer(text, b_start, b_end))
        prev = b_start
        for cut in [*sorted(cuts), b_end]:
            span = _strip_span(text, prev, cut)
            if span:
                spans.append(span)
            prev = cut
    return spans


def split_sentences(text: str, lang: Lang | None = None) -> list[str]:
    """Sentences of `text` (English or Chinese); each bullet line is a sentence."""
    return [text[s:e] for s, e in sentence_spans(text, lang)]


def normalize(text: str) -> str:
    """Lowercase and drop whitespace and punctuation."""
    return _NORM_DROP_RE.sub("", text.lower())


def char_ngrams(text: str, n: int = 2) -> set[str]:
    """Character n-grams of the normalised text (no spaces or punctuation)."""
    norm = normalize(text)
    if len(norm) < n:
        return {norm} if norm else set()
    return {norm[i : i + n] for i in range(len(norm) - n + 1)}


def has_negation(text: str, lang: Lang | None = None) -> bool:
    """Whether the text contains a negation (not, never, n't, 不, 没有, 无, 未 ...)."""
    lower = text.lower().replace("’", "'")
    if any(t in NEGATIONS_EN or t.endswith("n't") for t in _EN_TOKEN_RE.findall(lower)):
        return True
    if (lang or detect_lang(text)) == "zh" or _CJK_RE.search(text):
        cleaned = text
        for word in _ZH_NOT_NEGATION:
            cleaned = cleaned.replace(word, "")
        return any(neg in cleaned for neg in NEGATIONS_ZH)
    return False
