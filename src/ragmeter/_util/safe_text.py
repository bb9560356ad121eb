"""Text from users and endpoints, made safe to print on a terminal or in a CI log.

Questions, answers, categories, ids and error messages come from files and servers ragmeter
does not control. Control characters among them (an ESC sequence can clear the screen, move
the cursor or set the window title) are shown as escapes instead of being obeyed. Rich markup
is never parsed in such text: printers pass it as `rich.text.Text` or with `markup=False`.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """`text` with every control character but newline and tab shown as a `\\xNN` escape."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


_RAW_IN_JSON = re.compile(r"[\x7f-\x9f]")


def json_escaped(text: str) -> str:
    """JSON text (from `json.dumps`, which escapes C0 controls but writes DEL and the C1
    controls raw) with those written as `\\u00NN` escapes too: the same data, no control byte."""
    return _RAW_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


__all__ = ["json_escaped", "printable"]
