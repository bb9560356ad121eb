"""`ragmeter generate` on PDF documents (through the optional pypdf), built here by hand."""

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragmeter.cli import app
from ragmeter.generate import (
    PDF_MISSING,
    chunk_documents,
    generate_extractive,
    load_documents,
    unwrap_pdf_lines,
)

pytest.importorskip("pypdf")

EN_PAGES = [
    [
        "Trash and retention",
        "Deleted notes are kept in the trash for 30 days on every plan, after which",
        "they are removed for good and cannot be restored by support.",
        "Workspace admins can empty the trash of a shared notebook at any time from",
        "the notebook settings page.",
    ],
    [
        "Backups",
        "Snapshots of every workspace are taken every 4 hours and kept for 14 days, so",
        "a workspace can be rolled back to any snapshot of the last two weeks.",
        "Restoring a snapshot replaces the notebooks of the workspace with their state",
        "at that time.",
    ],
]
ZH_PAGES = [
    [
        "回收站",
        "删除的笔记会在回收站中保留三十天，之后永久删除，客服也无法恢",
        "复。工作区管理员可以随时清空共享笔记本的回收站。",
    ],
    [
        "备份",
        "每个工作区每四小时生成一次快照，快照保留十四天，因此工作区可以",
        "回滚到最近两周内的任何快照。",
    ],
]


def make_pdf(pages: list[list[str]], title: str | None = None) -> bytes:
    """A PDF of one text line per string, English in Helvetica, Chinese in the non-embedded
    STSong-Light with the UniGB-UCS2-H encoding (a PDF reader maps its codes to Unicode
    without the font file); a page with no lines has no text, as a scanned page."""
    objects: list[bytes] = [b"", b""]  # the catalog and the page tree, filled in below
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    objects.append(
        b"<< /Type /Font /Subtype /CIDFontType0 /BaseFont /STSong-Light /CIDSystemInfo "
        b"<< /Registry (Adobe) /Ordering (GB1) /Supplement 4 >> /DW 1000 >>"
    )
    objects.append(
        b"<< /Type /Font /Subtype /Type0 /BaseFont /STSong-Light /Encoding /UniGB-UCS2-H "
        b"/DescendantFonts [4 0 R] >>"
    )
    kids = []
    for lines in pages:
        ops = [b"BT 14 TL 72 760 Td"]
        for line in lines:
            if any(ord(ch) > 0x2E80 for ch in line):
                ops.append(b"/F2 11 Tf <%s> Tj T*" % line.encode("utf-16-be").hex().encode())
            else:
                text = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
                ops.append(b"/F1 11 Tf (%s) Tj T*" % text.encode("latin-1"))
        stream = b"\n".join([*ops, b"ET"]) if lines else b"0.5 g 72 72 200 200 re f"
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources "
            b"<< /Font << /F1 3 0 R /F2 5 0 R >> >> /Contents %d 0 R >>" % (len(objects))
        )
        kids.append(b"%d 0 R" % len(objects))
    objects[0] = b"<< /Type /Catalog /Pages 2 0 R >>"
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(kids), len(kids))
    info = b""
    if title is not None:
        objects.append(b"<< /Title <FEFF%s> >>" % title.encode("utf-16-be").hex().encode())
        info = b" /Info %d 0 R" % len(objects)
    pdf = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(pdf))
        pdf += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(pdf)
    pdf += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    pdf += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    pdf += b"trailer\n<< /Size %d /Root 1 0 R%s >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        info,
        xref,
    )
    return bytes(pdf)


@pytest.fixture
def pdf_dir(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "handbook.pdf").write_bytes(make_pdf(EN_PAGES, title="Notes handbook"))
    (docs / "手册.pdf").write_bytes(make_pdf(ZH_PAGES))
    return docs


def test_wrapped_lines_join_into_paragraphs_and_short_lines_end_them() -> None:
    page = (
        "Trash and retention\n"
        "Deleted notes are kept in the trash for 30 days on every plan, after which the\n"
        "notes are removed for good, and after that not even support can re-\n"
        "store them.\n"
        "- Admins can empty it.\n"
        "\n"
        "删除的笔记会在回收站中保留三十天，之后永久删除，客服也无法恢\n"
        "复。\n"
    )
    assert unwrap_pdf_lines(page).split("\n\n") == [
        "Trash and retention",
        "Deleted notes are kept in the trash for 30 days on every plan, after which the "
        "notes are removed for good, and after that not even support can restore them.",
        "- Admins can empty it.",
        "删除的笔记会在回收站中保留三十天，之后永久删除，客服也无法恢复。",
    ]


def test_pdf_text_is_read_in_english_and_chinese(pdf_dir: Path) -> None:
    docs, skipped = load_documents(pdf_dir)
    assert not skipped
    by_id = {doc.id: doc for doc in docs}
    en, zh = by_id["handbook.pdf"], by_id["手册.pdf"]
    assert (en.title, en.lang, zh.title, zh.lang) == ("Notes handbook", "en", "手册", "zh")
    assert en.body.split("\n\n") == [
        "Trash and retention",
        " ".join(EN_PAGES[0][1:3]),
        " ".join(EN_PAGES[0][3:]),
        "Backups",
        " ".join(EN_PAGES[1][1:3]),
        " ".join(EN_PAGES[1][3:]),
    ]
    assert zh.body.split("\n\n") == [
        "回收站",
        "".join(ZH_PAGES[0][1:]),
        "备份",
        "".join(ZH_PAGES[1][1:]),
    ]


def test_questions_and_ground_truths_come_from_the_pdf_text(pdf_dir: Path) -> None:
    docs, _ = load_documents(pdf_dir)
    bodies = {doc.id: doc.body for doc in docs}
    chunk_ids = [cid for cid, _ in chunk_documents(docs)]
    assert chunk_ids == [cid for cid, _ in chunk_documents(load_documents(pdf_dir)[0])]
    assert chunk_ids[0] == "handbook.pdf#0" and "手册.pdf#0" in chunk_ids
    result = generate_extractive(docs, n=12, seed=0)
    sourced = [c for c in result.cases if c.category != "out_of_scope"]
    assert {c.lang for c in sourced} == {"en", "zh"}
    for case in sourced:
        meta = case.metadata["generate"]
        assert meta["chunk_id"] in chunk_ids
        assert case.ground_truth is not None and case.ground_truth in bodies[meta["source"]]
    by_truth = {case.ground_truth: case for case in sourced}
    trash = by_truth[" ".join(EN_PAGES[0][1:3])]
    assert trash.question == "For how many days are deleted notes kept in the trash on every plan?"
    assert trash.metadata["generate"]["chunk_id"] == "handbook.pdf#0"
    assert by_truth["删除的笔记会在回收站中保留三十天，之后永久删除，客服也无法恢复。"].lang == "zh"


def test_a_pdf_without_text_or_unreadable_is_skipped_with_the_reason(tmp_path: Path) -> None:
    (tmp_path / "scan.pdf").write_bytes(make_pdf([[]]))
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4\nnot really")
    (tmp_path / "notes.txt").write_text("Snapshots are kept for 14 days.", encoding="utf-8")
    docs, skipped = load_documents(tmp_path)
    assert [doc.id for doc in docs] == ["notes.txt"]
    reasons = {s.path: s.reason for s in skipped}
    assert reasons["scan.pdf"].startswith("no extractable text (a scanned PDF?")
    assert reasons["broken.pdf"].startswith("not a readable PDF (")


def test_without_pypdf_pdfs_are_skipped_in_one_warning_line_saying_how_to_install(
    pdf_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (pdf_dir / "trash.md").write_text(
        "# Trash\n\nDeleted notes are kept in the trash for 30 days on every plan.\n",
        encoding="utf-8",
    )
    monkeypatch.setitem(sys.modules, "pypdf", None)  # `import pypdf` raises ImportError
    docs, skipped = load_documents(pdf_dir)
    assert [doc.id for doc in docs] == ["trash.md"]
    assert {s.reason for s in skipped} == {PDF_MISSING}
    out = tmp_path / "gen.jsonl"
    result = CliRunner().invoke(app, ["generate", str(pdf_dir), "-o", str(out), "--n", "3"])
    assert result.exit_code == 0, result.output
    assert "wrote 1 case to" in result.output and "from 1 document, 1 chunk " in result.output
    warnings = [line for line in result.output.splitlines() if "skipped" in line]
    assert warnings == [
        "  skipped 2 files (handbook.pdf, 手册.pdf): PDF not read: pypdf is not installed "
        "(pip install 'ragmeter[pdf]')"
    ]


def test_a_folder_of_pdfs_without_pypdf_fails_saying_why(
    pdf_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pypdf", None)
    out = tmp_path / "gen.jsonl"
    result = CliRunner().invoke(app, ["generate", str(pdf_dir), "-o", str(out)])
    assert result.exit_code == 2 and not out.exists()
    assert result.stderr.splitlines() == [
        "  skipped 2 files (handbook.pdf, 手册.pdf): PDF not read: pypdf is not installed "
        "(pip install 'ragmeter[pdf]')",
        f"error: {pdf_dir}: no document could be read (the files skipped are listed above)",
    ]


def test_the_cli_generates_from_a_folder_of_pdfs(pdf_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "gen.jsonl"
    result = CliRunner().invoke(app, ["generate", str(pdf_dir), "-o", str(out), "--n", "8"])
    assert result.exit_code == 0, result.output
    assert "from 2 documents" in result.output and "skipped" not in result.output
    again = tmp_path / "again.jsonl"
    CliRunner().invoke(app, ["generate", str(pdf_dir), "-o", str(again), "--n", "8"])
    assert again.read_bytes() == out.read_bytes()
