"""JSON report: the compact summary, the diagnosis, noise and (with a baseline) the comparison."""

from __future__ import annotations

import json
from typing import Any

from ..results import RunResult


def report_dict(run: RunResult, *, baseline: RunResult | None = None) -> dict[str, Any]:
    """The report as plain data (what `--format json` prints)."""
    from ..noise import measure_noise

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
        "judge_spend": dict(run.run.judge_stats),
    }
    noise = measure_noise(run)
    if noise is not None:
        data["noise"] = {
            "repeats": noise.repeats,
            "metrics": {m: s.model_dump(mode="json") for m, s in noise.metrics.items()},
        }
    if baseline is not None:
        from ..compare import compare_runs

        comparison = compare_runs(baseline, run)
        data["comparison"] = comparison.model_dump(
            mode="json",
            include={"comparable", "problems", "metrics", "only_in_base", "only_in_new"},
        )
    return data


def render_json(run: RunResult, *, baseline: RunResult | None = None) -> str:
    """The `json` renderer."""
    return json.dumps(report_dict(run, baseline=baseline), ensure_ascii=False, indent=2) + "\n"
