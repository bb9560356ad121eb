"""The run record and what is computed from it: the :class:`RunResult` model (`_model`, its
cases in `_case`), results.json on disk (`store`: atomic writes, strict reading), the summary,
health and diagnosis a run carries (`summary`, `health`, `diagnosis`, `indicative`), why a case
scored as it did (`explain`), judged cases spooled to disk during a run (`spool`) and the
run as a table (`RunResult.to_pandas`, `to_csv`).

Results code reads the vocabulary, never a judge: what a judge's numbers mean comes from its
recorded fingerprint (:class:`~ragmeter.vocabulary.JudgeTraits`).
"""

from ._case import CaseResult, Outcome
from ._files import holds_run, refuse_overwriting_run, write_atomic
from ._model import (
    SCHEMA_VERSION,
    CalibrationNote,
    Diagnosis,
    Finding,
    MetricHealth,
    MetricSummary,
    RunHealth,
    RunInfo,
    RunResult,
    RunSummary,
    UnscoredGroup,
)
from .store import (
    PARTIAL_FILE,
    RESULTS_FILE,
    load_run,
    prepare_out_dir,
    prepare_out_file,
    read_json_file,
    run_json,
    save_run,
)

__all__ = [
    "PARTIAL_FILE",
    "RESULTS_FILE",
    "SCHEMA_VERSION",
    "CalibrationNote",
    "CaseResult",
    "Diagnosis",
    "Finding",
    "MetricHealth",
    "MetricSummary",
    "Outcome",
    "RunHealth",
    "RunInfo",
    "RunResult",
    "RunSummary",
    "UnscoredGroup",
    "holds_run",
    "load_run",
    "prepare_out_dir",
    "prepare_out_file",
    "read_json_file",
    "refuse_overwriting_run",
    "run_json",
    "save_run",
    "write_atomic",
]
