"""Helpers with no knowledge of evaluation, shared by every layer: deadlines on threads
(`deadline`), native calls off the event loop (`native_calls`, `workers`), running a coroutine
from synchronous code (`sync`), sequences kept on disk (`on_disk`), cache paths (`paths`),
secrets redacted from messages (`redact`), counted nouns (`plural`), printable text
(`safe_text`), model families (`model_family`) and the process exit codes (`exit_codes`).
Internal: not part of the public API; light to import (the command line's start-up reads it).
"""
