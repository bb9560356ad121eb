"""JSON report: the compact summary, the diagnosis, the judge's calibration and spend, the worst
failed cases with their evidence, noise and (with a baseline) the comparison."""

from __future__ import annotations

import json
from typing import Any

from .failures import worst_failures
from .inputs import ReportInputs
from .judge_agreement import calibration_dict
from .safe import json_escaped
from .words import spend_dict


def report_dict(report: ReportInputs) -> dict[str, Any]:
    """The report as plain data (what `--format json` prints)."""
    run = report.run
    data: dict[str, Any] = {
        "schema_version": run.schema_version,
        "n_cases": run.summary.n_cases,
        "n_pipeline_errors": run.summary.n_pipeline_errors,
        "pipeline": run.run.pipeline,
        "judge": {**run.judge.model_dump(mode="json"), "key": run.judge.key()},
        "summary": run.summary_dict(),
        "by_category": {
            cat: {m: {"mean": s.mean, "n_scored": s.n_scored} for m, s in per.items()}
            for cat, per in run.summary.by_category.items()
        },
        "diagnosis": run.diagnosis.model_dump(mode="json"),
        "warnings": list(run.run.warnings),
        "calibration": calibration_dict(run),
        "judge_spend": spend_dict(run),
        "failures": _failures(report),
    }
    noise = report.noise
    if noise is not None:
        data["noise"] = {
            "repeats": noise.repeats,
            "metrics": {m: s.model_dump(mode="json") for m, s in noise.metrics.items()},
        }
    if report.comparison is not None:
        data["comparison"] = report.comparison.model_dump(
            mode="json",
            include={"comparable", "forced", "problems", "metrics", "only_in_base", "only_in_new"},
        )
    return data


def _failures(report: ReportInputs) -> dict[str, Any]:
    """The worst failed cases (as many as the other reports list), each with the pass mark it
    is under, whether its metric is indicative only, and its evidence, `why[0]` being what
    pulled it under."""
    shown, total = worst_failures(report.run, report.max_failures)
    return {
        "total": total,
        "shown": [
            {
                "case_id": f.case.id,
                "metric": f.metric,
                "score": f.score,
                "pass_mark": f.pass_mark,
                "indicative_only": f.indicative,
                "why": f.reasons,
            }
            for f in shown
        ],
    }


def render_json(report: ReportInputs) -> str:
    """The `json` renderer."""
    return json_escaped(json.dumps(report_dict(report), ensure_ascii=False, indent=2)) + "\n"
