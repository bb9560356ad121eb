"""The bundled demo: a bilingual handbook corpus, an eval set and a reference RAG pipeline.

Everything runs offline. `DemoPipeline` answers with BM25 (or hybrid) retrieval and an
extractive generator; `VARIANTS` names deliberately broken versions to show what ragmeter finds.
"""

from __future__ import annotations

from pathlib import Path

from .corpus import DATA_DIR
from .generator import ABSTENTIONS
from .pipeline import VARIANTS, DemoConfig, DemoPipeline, answer, get_pipeline

__all__ = [
    "ABSTENTIONS",
    "VARIANTS",
    "DemoConfig",
    "DemoPipeline",
    "answer",
    "demo_cases_path",
    "demo_corpus_dir",
    "get_pipeline",
]


def demo_cases_path() -> Path:
    """Path of the bundled eval set (`evalset.jsonl`)."""
    return DATA_DIR / "evalset.jsonl"


def demo_corpus_dir() -> Path:
    """Directory of the bundled corpus (`en/*.md`, `zh/*.md`)."""
    return DATA_DIR / "corpus"
