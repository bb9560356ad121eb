"""The guide's renderer plugin example (docs/reports.md, once the README's "Reports") works with
the renderer protocol: it takes one ReportInputs and reads the comparison the caller computed."""

from __future__ import annotations

import re
from pathlib import Path

from factories import uniform_run
from ragmeter.report.inputs import report_inputs
from ragmeter.report.registry import Renderer

PAGE = Path(__file__).resolve().parents[2] / "docs" / "reports.md"


def _readme_renderer() -> Renderer:
    reports = PAGE.read_text(encoding="utf-8")
    assert reports.startswith("# Reports\n"), "docs/reports.md no longer opens with its title"
    (code,) = re.findall(r"^```python\n(.*?)^```$", reports, re.MULTILINE | re.DOTALL)
    namespace: dict[str, object] = {}
    exec(code, namespace)
    render = namespace["render"]
    assert callable(render)
    return render  # type: ignore[return-value]


def test_the_readme_renderer_example_reads_the_report_inputs():
    base = uniform_run(6, {"faithfulness": 0.9})
    new = uniform_run(6, {"faithfulness": 0.5})
    render = _readme_renderer()
    assert render(report_inputs(new)) == "faithfulness,0.5\n"
    lines = render(report_inputs(new, base)).splitlines()
    assert lines[0] == "faithfulness,0.5"
    name, diff = lines[1].split(",")
    assert name == "faithfulness diff" and abs(float(diff) + 0.4) < 1e-9
