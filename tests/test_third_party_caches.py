"""What ragmeter's libraries write or read outside ragmeter's cache dir (issue 13): jieba's
dictionary cache (a marshal file, by default in the shared temp dir) and onnxruntime's telemetry
(a device id under ~/.cache/Microsoft and a `.ses` file in the temp dir).

Each runs in a fresh interpreter with its own HOME, TMPDIR and RAGMETER_CACHE_DIR."""

import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest


def _python(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "TMPDIR": str(tmp_path / "tmp"),
        "RAGMETER_CACHE_DIR": str(tmp_path / "cache"),
    }
    env.pop("ORT_DISABLE_TELEMETRY", None)
    env.pop("XDG_CACHE_HOME", None)
    for folder in ("home", "tmp", "cache"):
        (tmp_path / folder).mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )


def test_jieba_never_loads_the_shared_temp_dir_cache(tmp_path):
    # A dictionary planted where jieba looks by default: 删除的笔记 as one word.
    word = "删除的笔记"
    freq = {word[:i]: 0 for i in range(1, len(word))} | {word: 10**9}
    planted = tmp_path / "tmp" / "jieba.cache"
    planted.parent.mkdir()
    planted.write_bytes(marshal.dumps((freq, 10**9 + 1)))
    before = planted.read_bytes()
    proc = _python(
        f"from ragmeter.text import tokenize; print(' '.join(tokenize('{word}', 'zh')))",
        tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["删除", "的", "笔记"]  # jieba's own dictionary
    assert planted.read_bytes() == before
    assert [p.name for p in (tmp_path / "cache" / "jieba").iterdir()] == [
        f"jieba-{__import__('jieba').__version__}.cache"
    ]
    assert list((tmp_path / "tmp").iterdir()) == [planted]


def test_onnxruntime_writes_nothing_outside_ragmeters_cache_dir(tmp_path):
    pytest.importorskip("onnxruntime")
    proc = _python(
        "from ragmeter.embeddings import load_local_embedder\n"
        "e = load_local_embedder()\n"
        "print('none' if e is None else e.embed(['hello world']).shape)",
        tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    if proc.stdout.strip() == "none":
        pytest.skip("the local MiniLM model is not installed")
    written = sorted(
        str(p.relative_to(tmp_path))
        for p in tmp_path.rglob("*")
        if p.is_file() and not p.is_relative_to(tmp_path / "cache")
    )
    assert written == []  # was home/.cache/Microsoft/DeveloperTools/.onnxruntime/*, tmp/.ses
