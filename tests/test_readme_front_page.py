"""The README is a front page: the two make commands first, links that resolve, and a Python
example that runs and prints what its comment says. The guide itself is docs/ (built with
`make docs`, whose --strict build checks the links between its pages)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def test_the_make_commands_come_first():
    text = README.read_text(encoding="utf-8")
    lang, body = FENCE.findall(text)[0]
    assert text.index("```") < text.index("\n## "), "a section comes before the make commands"
    assert lang == "bash"
    assert [line.split()[:2] for line in body.splitlines()] == [["make", "demo"], ["make", "test"]]


def test_every_relative_link_resolves():
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\((?!https?:|#)([^)#\s]+)", text)
    assert any(link.startswith("docs/") for link in links)
    missing = [link for link in links if not (ROOT / link).exists()]
    assert missing == []


def test_the_python_example_prints_what_it_says(tmp_path, monkeypatch):
    blocks = FENCE.findall(README.read_text(encoding="utf-8"))
    (code,) = [body for lang, body in blocks if lang == "python"]
    said = code.rstrip().splitlines()[-1].split("# ")[-1]
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(README), "exec"), {"__name__": "readme_front_page"})
    assert out.getvalue().split() == said.split() == ["1.0", "True"]
