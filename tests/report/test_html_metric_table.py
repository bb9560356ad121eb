"""In Chromium, a case's metric table keeps each score, threshold and metric name on one line
when its notes are long (they wrapped mid-number, `0.0`/`0`, in an 800-pixel window)."""

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from factories import case, run
from ragmeter.report.html import render_html
from ragmeter.report.inputs import ReportInputs

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="chromium missing: apt-get install chromium"),
]

# Counts the line boxes of every cell but the notes in the open case's metric table; runs
# after the report's script (which opens #case=ID as it loads) and leaves the counts on <body>.
PROBE = """<script>
addEventListener("load", function () {
  var table = document.querySelector("#detail table");
  var lines = [].slice.call(table.rows).map(function (row) {
    return [].slice.call(row.cells, 0, 3).map(function (cell) {
      var range = document.createRange();
      range.selectNodeContents(cell);
      return range.getClientRects().length;
    });
  });
  document.body.setAttribute("data-lines", JSON.stringify(lines));
});
</script>"""


def test_scores_and_metric_names_stay_on_one_line_beside_long_notes(tmp_path: Path) -> None:
    long = case("n-1", {"context_precision": 0.0, "answer_relevancy": 0.3})
    long.metrics["answer_relevancy"].evidence.notes = [
        "the answer covers 100% of the question's key words",
        "question/answer similarity 0.45",
        "the answer is about saml, not webhooks (the subject of the conversation)",
    ] * 2
    html = render_html(ReportInputs(run([long])))
    # The report lets only its own scripts run; the probe needs the policy gone.
    html = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", html)
    page = tmp_path / "report.html"
    page.write_text(html.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    dom = subprocess.run(
        [
            CHROMIUM,  # type: ignore[list-item]
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--window-size=800,600",
            "--dump-dom",
            page.as_uri() + "#case=n-1",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    found = re.search(r'data-lines="([^"]*)"', dom)
    assert found is not None, "the probe did not run"
    lines = json.loads(found.group(1).replace("&quot;", '"'))
    assert len(lines) == 3  # the header and the two metrics
    assert all(count == 1 for row in lines for count in row), lines
