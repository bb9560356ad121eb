"""Terminal-safe text for renderers (kept here for the renderers' imports; the function lives
in :mod:`ragmeter._util.safe_text`, where core modules can use it too)."""

from __future__ import annotations

from .._util.safe_text import json_escaped, printable

__all__ = ["json_escaped", "printable"]
