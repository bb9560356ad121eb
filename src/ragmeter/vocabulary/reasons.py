"""Why a metric result has no score: a stable code plus a detail that does not name the case.

Every unscored result the runner records carries a `reason_code` (what kind of cause: a
pipeline error, a judge timeout, the budget, ...) and its `unscored_reason`, the detail in
words, without the case's id (the id is on the case). Equal causes then read the same across
cases, and summaries count them by code and cause in bounded space whatever the number of
failing cases. Results written before codes existed, or by a judge that sets none, get their
code from the wording (:func:`code_of`).
"""

from __future__ import annotations

from . import MetricResult, ReasonCode

NO_GROUND_TRUTH = "no ground truth"
OUT_OF_SCOPE = "not applicable: out-of-scope case"
REFUSAL = "refusal: answer has no claims"
BUDGET_REASON = "judge budget reached"
"""How the unscored reason of a metric the judge's `--max-cost` left unjudged starts."""

BY_DESIGN = frozenset({NO_GROUND_TRUTH, OUT_OF_SCOPE, REFUSAL})
"""Unscored reasons that belong to a metric's definition: the metric does not apply to the
case. Every other reason (pipeline error, judge error, budget) means it could not be scored.
The judges word their edge cases with these (`judges.rules.precheck`); summaries and health
count by them."""

PIPELINE_ERROR = "pipeline error"
"""How the unscored reason of every metric of a case whose pipeline failed starts."""
TOO_LONG = "too long to judge"
"""How the unscored reason of a case whose texts pass RAGMETER_MAX_TEXT_CHARS starts."""
NO_RESULT = "judge returned no result"
NOT_JUDGED = "not judged"
"""A metric a case has no result for at all (summaries count it as unscored)."""

LABELS: dict[str, str] = {
    "refusal": REFUSAL,
    "out_of_scope": OUT_OF_SCOPE,
    "no_ground_truth": NO_GROUND_TRUTH,
    "pipeline_error": PIPELINE_ERROR,
    "pipeline_timeout": "pipeline timeout",
    "too_long": TOO_LONG,
    "judge_error": "judge error",
    "judge_timeout": "judge timeout",
    "invalid_reply": "unusable judge reply",
    "budget": BUDGET_REASON,
    "no_points": "no statement to check in the ground truth",
    "not_judged": NOT_JUDGED,
    "other": "other reason",
}
"""Each code of an unscored result in words, for reports."""

BY_DESIGN_CODES = frozenset({"refusal", "out_of_scope", "no_ground_truth"})
"""Codes of reasons that belong to the metric's definition (:data:`BY_DESIGN`)."""

_BY_TEXT: dict[str, ReasonCode] = {
    REFUSAL: "refusal",
    OUT_OF_SCOPE: "out_of_scope",
    NO_GROUND_TRUTH: "no_ground_truth",
    NO_RESULT: "judge_error",
    NOT_JUDGED: "not_judged",
    "unscored": "other",
    "ground truth has no statements": "no_points",
    "judge split the reference answer into no points": "no_points",
}
_INVALID_REPLY = (
    "invalid JSON from judge",
    "judge output does not match the schema",
    "judge returned ",
    "judge cited ",
    "judge wrote ",
    "judge reply ",
    "judge error: the verifier answered neither",
    "endpoint returned no choices",
)


def code_of(reason: str) -> ReasonCode:
    """The code of an unscored reason worded as ragmeter words them (for results that carry
    none: files from before codes, judges that set none). Unknown wording is `other`."""
    if reason in _BY_TEXT:
        return _BY_TEXT[reason]
    if reason.startswith(PIPELINE_ERROR):
        return "pipeline_timeout" if "timed out" in reason else "pipeline_error"
    if reason.startswith(TOO_LONG):
        return "too_long"
    if BUDGET_REASON in reason:
        return "budget"
    if reason.startswith(_INVALID_REPLY):
        return "invalid_reply"
    if "timed out" in reason:
        return "judge_timeout"
    if reason.startswith(("judge ", "endpoint ")):  # a failed call (llm.retry words them so)
        return "judge_error"
    return "other"


def unscored_code(result: MetricResult) -> ReasonCode:
    """The code of unscored `result`: its own, else read from its reason."""
    return result.reason_code or code_of(result.unscored_reason or "unscored")


def without_case_id(reason: str, case_id: str) -> str:
    """`reason` without what is particular to its case (its quoted id), so equal causes read
    the same: `(case 'x')` dropped, `'x'` and `"x"` written `'…'`."""
    if not case_id:
        return reason
    reason = reason.replace(f" (case '{case_id}')", "")
    return reason.replace(f"'{case_id}'", "'…'").replace(f'"{case_id}"', '"…"')


MAX_CAUSE_CHARS = 300
"""Longest cause kept in a summary (a pipeline's exception message can be any length)."""


def short_cause(text: str) -> str:
    """`text` cut to :data:`MAX_CAUSE_CHARS`, for summaries."""
    return text if len(text) <= MAX_CAUSE_CHARS else text[: MAX_CAUSE_CHARS - 1] + "…"


__all__ = [
    "BUDGET_REASON",
    "BY_DESIGN",
    "BY_DESIGN_CODES",
    "LABELS",
    "MAX_CAUSE_CHARS",
    "NO_GROUND_TRUTH",
    "code_of",
    "short_cause",
    "unscored_code",
    "without_case_id",
]
