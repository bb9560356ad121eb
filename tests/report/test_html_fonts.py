"""The HTML report names a CJK font of every common system after its Latin ones, for text and
for code, so Chinese is drawn with a Chinese font wherever one is installed instead of falling
to boxes (issue 15); form controls take the page's font instead of the browser's default."""

import re

from factories import case, run
from ragmeter.report.html import render_html
from ragmeter.report.inputs import ReportInputs

SANS_CJK = [
    "PingFang SC",  # macOS, iOS
    "Hiragino Sans GB",  # older macOS
    "Microsoft YaHei",  # Windows
    "Noto Sans CJK SC",  # Linux (Debian/Ubuntu fonts-noto-cjk), Android
    "Source Han Sans SC",  # Adobe's name for the same design
    "WenQuanYi Micro Hei",  # older Linux
]


def _style(page: str) -> str:
    return re.search(r"<style>(.*?)</style>", page, re.S).group(1)


def _families(css: str, var: str) -> list[str]:
    value = re.search(rf"{var}:([^;]*);", css).group(1)
    return [f.strip().strip('"') for f in value.split(",")]


def _rule(css: str, selector: str) -> str:
    return re.search(rf"(?:^|\}})\s*{re.escape(selector)}\s*\{{([^}}]*)\}}", css, re.M).group(1)


def test_text_font_list_falls_back_to_cjk_fonts_of_each_system_then_sans_serif():
    css = _style(render_html(ReportInputs(run([case("q", {"faithfulness": 0.9})]))))
    text = _families(css, "--font-text")
    assert text[0] == "system-ui" and text[-1] == "sans-serif"
    for font in SANS_CJK:
        assert font in text, font
    # Latin fonts first (their Latin glyphs), CJK after them, the generic family last.
    assert text.index("Segoe UI") < text.index("PingFang SC") < text.index("sans-serif")
    assert "var(--font-text)" in _rule(css, "body")
    assert "font: inherit" in _rule(css, "input, select, button, textarea")


def test_code_font_list_is_monospace_with_cjk_fallbacks():
    css = _style(render_html(ReportInputs(run([case("q", {"faithfulness": 0.9})]))))
    mono = _families(css, "--font-mono")
    assert mono[-1] == "monospace" and mono.index("Consolas") < mono.index("Noto Sans Mono CJK SC")
    for font in ("PingFang SC", "Microsoft YaHei", "Noto Sans CJK SC", "WenQuanYi Micro Hei"):
        assert font in mono, font
    assert "var(--font-mono)" in _rule(css, "code, pre, kbd, samp")
