"""Where ragmeter keeps what it caches: the LLM call cache, built models, calibrations."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """``$RAGMETER_CACHE_DIR`` when set, else ``~/.cache/ragmeter``."""
    base = os.environ.get("RAGMETER_CACHE_DIR")
    return Path(base).expanduser() if base else Path.home() / ".cache" / "ragmeter"
