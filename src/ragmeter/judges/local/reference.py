"""The local judge's published agreement with people on public labelled sets.

``bench/meta/run.py --write-reference`` measures the local judge on the shared human-labelled
sets and writes ``weights/reference_agreement.json``: one headline figure per metric, keyed by
the judge's fingerprint. Reports of runs with exactly that judge configuration quote it, so a
reader of an uncalibrated run still learns how far the judge agrees with people somewhere.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

from ..base import JudgeFingerprint

REFERENCE_FILE = "reference_agreement.json"


@lru_cache(maxsize=1)
def load_reference() -> dict[str, Any] | None:
    """The shipped reference measurement, or None when the package has none."""
    try:
        text = resources.files(__package__).joinpath("weights", REFERENCE_FILE).read_text("utf-8")
    except (FileNotFoundError, ModuleNotFoundError, OSError):
        return None
    data = json.loads(text)
    return data if isinstance(data, dict) else None


def reference_headline(fingerprint: JudgeFingerprint) -> list[dict[str, Any]]:
    """The headline figures (one `CalibrationNote` each, as plain data: the judge layer does
    not depend on the results model) if the reference was measured with that very judge
    configuration (same model, settings and weights); [] otherwise."""
    reference = load_reference()
    if not reference or reference.get("judge_key") != fingerprint.key():
        return []
    return list(reference.get("headline", []))
