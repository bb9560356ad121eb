"""JUnit XML: one test case per eval case × metric, so CI dashboards list RAG failures.

A score below the run's failure threshold is a <failure> carrying the judge's evidence; an
unscored metric is <skipped> with its reason; a pipeline error is an <error>. A re-judged case
counts with the mean of its judgements (`CaseResult.outcome`), as the summary counts it.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from ..vocabulary import METRICS
from .failures import explain
from .inputs import ReportInputs
from .safe import printable

_INVALID_XML = re.compile("[\ufffe\uffff]")


def _clean(text: str) -> str:
    """Control characters (most of which XML 1.0 cannot carry) shown as `\\xNN`, and the two
    noncharacters it cannot carry dropped (escaping is ElementTree's job)."""
    return _INVALID_XML.sub("", printable(text))


def render_junit(report: ReportInputs) -> str:
    """The `junit` renderer: every case × metric (no comparison, noise nor limit)."""
    run = report.run
    root = ET.Element("testsuites", name="ragmeter")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for metric in METRICS:
        if metric not in run.summary.metrics:
            continue
        threshold = run.run.thresholds.get(metric)
        suite = ET.SubElement(root, "testsuite", name=f"ragmeter.{metric}")
        counts = dict.fromkeys(totals, 0)
        for case in run.cases:
            counts["tests"] += 1
            test = ET.SubElement(
                suite, "testcase", classname=f"ragmeter.{metric}", name=_clean(case.id), time="0"
            )
            outcome = case.outcome(metric, threshold)
            if case.pipeline_error is not None:
                counts["errors"] += 1
                node = ET.SubElement(
                    test, "error", message=_clean(case.pipeline_error[:500]), type="PipelineError"
                )
                node.text = _clean(case.question)
            elif outcome.score is None:
                counts["skipped"] += 1
                reason = outcome.unscored_reason
                ET.SubElement(test, "skipped", message=_clean(f"unscored: {reason}"))
            elif outcome.failed and threshold is not None:
                counts["failures"] += 1
                why = explain(case, metric, run.judge, pass_mark=threshold)
                head = f"{metric} {outcome.score:.3f} < pass mark {threshold:.2f}"
                node = ET.SubElement(
                    test,
                    "failure",
                    message=_clean(f"{head}: {why[0]}" if why else head),
                    type="BelowThreshold",
                )
                lines = [f"question: {case.question}", *why]
                node.text = _clean("\n".join(lines))
            else:
                ET.SubElement(test, "system-out").text = _clean(f"{metric} {outcome.score:.3f}")
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
    for key, value in totals.items():
        root.set(key, str(value))
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
