"""The check that a model file shipped by another package is the release ragmeter pins."""

from __future__ import annotations

import hashlib
from pathlib import Path


def check_pinned_file(
    path: Path, digest: str, *, model: str, distribution: str, version: str
) -> None:
    """Raise ``RuntimeError`` saying how to fix it unless ``path`` is the file of `distribution`
    `version` whose sha256 is `digest`."""
    hint = f"pip install '{distribution}=={version}'"
    if not path.is_file():
        raise RuntimeError(f"{model}: {path} is missing; {hint}")
    with path.open("rb") as f:
        actual = hashlib.file_digest(f, "sha256").hexdigest()
    if actual != digest:
        raise RuntimeError(
            f"{model}: {path} is not the file of {distribution} {version} "
            f"(sha256 {actual[:12]}…); {hint}"
        )
