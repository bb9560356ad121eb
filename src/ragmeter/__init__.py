"""ragmeter: measure RAG pipelines with a judge, so their owners stop tuning by feel.

Everything public is importable from here; submodules are implementation detail unless
documented. Cases → pipeline → judges → results → stats → reports.
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any

from ._version import __version__

# onnxruntime (1.32 on Linux, at least) keeps telemetry, whatever ragmeter's cache dir says: a
# device id and an event store under ~/.cache/Microsoft/DeveloperTools/.onnxruntime and a
# `.ses` file in the temp dir, kept for upload. ragmeter runs offline and writes only where it
# says, so it is switched off here, before anything imports onnxruntime (which reads the
# variable once, at import). A value the user set wins.
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

# Names resolve on first use (PEP 562) so `ragmeter --help` does not import pydantic models,
# numpy or httpx; type checkers see ordinary imports.
if TYPE_CHECKING:
    from ._exceptions import (
        CaseFileError,
        ConfigError,
        JudgeError,
        JudgeUnavailable,
        PipelineError,
        RagmeterError,
        ResultsError,
        RunInterrupted,
    )
    from ._version import __version__
    from .api import aevaluate, evaluate, evaluate_async, judge
    from .cases import Case, load_cases
    from .cases.lint import LintReport, lint_cases
    from .compare import Comparison, compare_runs
    from .compare.gate import GateResult, gate_run
    from .judges.base import Judge, JudgeBase
    from .pipeline import (
        AnswersFilePipeline,
        CallablePipeline,
        HttpPipeline,
        Pipeline,
        PipelineBase,
        PipelineOutput,
        PrecomputedPipeline,
    )
    from .results import CaseResult, RunResult, load_run, save_run
    from .vocabulary import (
        METRICS,
        ChunkVerdict,
        ClaimVerdict,
        Evidence,
        JudgeFingerprint,
        MetricResult,
        PointVerdict,
        Sample,
    )

_LAZY: dict[str, str] = {
    "AnswersFilePipeline": ".pipeline",
    "CallablePipeline": ".pipeline",
    "Case": ".cases",
    "CaseFileError": "._exceptions",
    "CaseResult": ".results",
    "ChunkVerdict": ".vocabulary",
    "ClaimVerdict": ".vocabulary",
    "Comparison": ".compare",
    "ConfigError": "._exceptions",
    "Evidence": ".vocabulary",
    "GateResult": ".compare.gate",
    "HttpPipeline": ".pipeline",
    "Judge": ".judges.base",
    "JudgeBase": ".judges.base",
    "JudgeError": "._exceptions",
    "JudgeUnavailable": "._exceptions",
    "JudgeFingerprint": ".vocabulary",
    "LintReport": ".cases.lint",
    "METRICS": ".vocabulary",
    "MetricResult": ".vocabulary",
    "Pipeline": ".pipeline",
    "PipelineBase": ".pipeline",
    "PipelineError": "._exceptions",
    "PipelineOutput": ".pipeline",
    "PointVerdict": ".vocabulary",
    "PrecomputedPipeline": ".pipeline",
    "RagmeterError": "._exceptions",
    "ResultsError": "._exceptions",
    "RunInterrupted": "._exceptions",
    "RunResult": ".results",
    "Sample": ".vocabulary",
    "aevaluate": ".api",
    "compare_runs": ".compare",
    "evaluate": ".api",
    "evaluate_async": ".api",
    "gate_run": ".compare.gate",
    "judge": ".api",
    "lint_cases": ".cases.lint",
    "load_cases": ".cases",
    "load_run": ".results",
    "save_run": ".results",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ragmeter' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "METRICS",
    "AnswersFilePipeline",
    "CallablePipeline",
    "Case",
    "CaseFileError",
    "CaseResult",
    "ChunkVerdict",
    "ClaimVerdict",
    "Comparison",
    "ConfigError",
    "Evidence",
    "GateResult",
    "HttpPipeline",
    "Judge",
    "JudgeBase",
    "JudgeError",
    "JudgeFingerprint",
    "JudgeUnavailable",
    "LintReport",
    "MetricResult",
    "Pipeline",
    "PipelineBase",
    "PipelineError",
    "PipelineOutput",
    "PointVerdict",
    "PrecomputedPipeline",
    "RagmeterError",
    "ResultsError",
    "RunInterrupted",
    "RunResult",
    "Sample",
    "__version__",
    "aevaluate",
    "compare_runs",
    "evaluate",
    "evaluate_async",
    "gate_run",
    "judge",
    "lint_cases",
    "load_cases",
    "load_run",
    "save_run",
]
