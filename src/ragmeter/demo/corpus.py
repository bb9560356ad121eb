"""Loading the bundled demo corpus: one Markdown file per document, `# Title` on the first line."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ragmeter.text import Lang

DATA_DIR = Path(__file__).parent / "data"
"""Package data directory holding `corpus/` and `evalset.jsonl`."""

LANGS: tuple[Lang, ...] = ("en", "zh")
"""The corpus's languages, one sub-directory each."""


@dataclass(frozen=True)
class Document:
    """One corpus document."""

    id: str
    """Path relative to the corpus directory, e.g. `en/pricing.md` (what eval metadata cites)."""
    lang: Lang
    """`en` or `zh`, from the sub-directory name."""
    title: str
    """The first-line `# Title`, without the hash."""
    body: str
    """Everything after the title line, stripped."""


def parse_document(doc_id: str, lang: Lang, text: str) -> Document:
    """Split a Markdown file into its `# Title` line and its body."""
    text = text.replace("\r\n", "\n").strip()
    first, _, rest = text.partition("\n")
    if first.startswith("#"):
        title = first.lstrip("#").strip()
        body = rest.strip()
    else:
        title = Path(doc_id).stem.replace("-", " ").replace("_", " ")
        body = text
    return Document(id=doc_id, lang=lang, title=title, body=body)


def load_corpus(directory: str | Path | None = None) -> list[Document]:
    """Load every `<lang>/*.md` document under `directory` (the bundled corpus by default).

    Documents are sorted by id so that indexes, and therefore answers, are deterministic.
    """
    root = Path(directory) if directory is not None else DATA_DIR / "corpus"
    docs: list[Document] = []
    for lang in LANGS:
        sub = root / lang
        if not sub.is_dir():
            continue
        for path in sorted(sub.glob("*.md")):
            text = path.read_text(encoding="utf-8")
            docs.append(parse_document(f"{lang}/{path.name}", lang, text))
    return docs
