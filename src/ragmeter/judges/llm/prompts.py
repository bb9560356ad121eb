"""Judge prompts: data files per language, rendered with fenced untrusted text."""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import resources
from string import Template

from ..base import Lang, Sample

PROMPT_NAMES = (
    "system",
    "faithfulness_claims",
    "faithfulness_verify",
    "answer_relevancy",
    "context_precision",
    "context_recall",
    "repair",
)


@cache
def load_prompt(name: str, lang: Lang) -> str:
    """The text of prompt ``name`` in ``lang`` (``prompts/<lang>/<name>.txt``)."""
    path = resources.files(__package__).joinpath("prompts", lang, f"{name}.txt")
    return path.read_text(encoding="utf-8").strip()


@cache
def prompt_version() -> str:
    """A short hash of every prompt file: changes whenever a prompt changes."""
    digest = hashlib.sha256()
    langs: tuple[Lang, ...] = ("en", "zh")
    for lang in langs:
        for name in PROMPT_NAMES:
            digest.update(f"{lang}/{name}\n{load_prompt(name, lang)}\n".encode())
    return digest.hexdigest()[:12]


def fence(label: str, text: str) -> str:
    """``text`` between ``<<<LABEL>>>`` and ``<<<END LABEL>>>`` lines; marker look-alikes inside
    the text are defused so untrusted text cannot close its fence."""
    clean = text.replace("<<<", "‹‹‹").replace(">>>", "›››")
    return f"<<<{label}>>>\n{clean}\n<<<END {label}>>>"


def fence_contexts(contexts: list[str]) -> str:
    if not contexts:
        return fence("CONTEXT", "(no chunks were retrieved)")
    return "\n".join(fence(f"CONTEXT {i}", chunk) for i, chunk in enumerate(contexts))


def fence_history(sample: Sample) -> str:
    if not sample.history:
        return ""
    lines = "\n".join(f"{turn.role}: {turn.content}" for turn in sample.history)
    return fence("HISTORY", lines)


def render(name: str, lang: Lang, **fields: object) -> list[dict[str, str]]:
    """System and user messages for prompt ``name``; ``fields`` fill its ``$placeholders``."""
    body = Template(load_prompt(name, lang)).substitute({k: str(v) for k, v in fields.items()})
    return [
        {"role": "system", "content": load_prompt("system", lang)},
        {"role": "user", "content": body},
    ]


def sample_fields(sample: Sample) -> dict[str, str]:
    """The fenced blocks every prompt may use."""
    return {
        "question": fence("QUESTION", sample.question),
        "answer": fence("ANSWER", sample.answer),
        "reference": fence("REFERENCE", sample.ground_truth),
        "history": fence_history(sample),
        "contexts": fence_contexts(sample.contexts),
        "last_chunk": str(max(len(sample.contexts) - 1, 0)),
    }
