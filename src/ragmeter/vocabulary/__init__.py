"""The words every layer shares: metric names, languages, verdict labels, reason codes, the
fields every model of a case shares (:class:`CaseFields`, :class:`CaseId`), and the models of
what a judge sees (:class:`Sample`) and returns (:class:`MetricResult` with its evidence;
:class:`JudgeFingerprint`, with the :class:`JudgeTraits` that say what its numbers mean).
Submodules: `reasons` (why a result is unscored: the words and their codes) and `precision`
(context precision's definition, which every judge scores with).

Cases, results, config, lint and reports read these without depending on the judges package;
``ragmeter.judges.base`` re-exports them for judge authors.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from ..text import detect_lang

MetricName = Literal["faithfulness", "answer_relevancy", "context_precision", "context_recall"]

METRICS: tuple[MetricName, ...] = (
    "context_recall",
    "context_precision",
    "faithfulness",
    "answer_relevancy",
)
"""The four metrics, in pipeline order: retrieval first, then generation."""

RETRIEVAL_METRICS: tuple[MetricName, ...] = ("context_recall", "context_precision")
GENERATION_METRICS: tuple[MetricName, ...] = ("faithfulness", "answer_relevancy")


def needs_contexts(metrics: Iterable[MetricName] | None) -> bool:
    """Whether judging `metrics` (None: all four) reads the retrieved contexts: every metric
    but answer relevancy does, which reads only the question and the answer."""
    return metrics is None or any(m != "answer_relevancy" for m in metrics)


Lang = Literal["en", "zh"]
ClaimLabel = Literal["supported", "contradicted", "not_verifiable"]
ReasonCode = Literal[
    "empty_answer",
    "refusal",
    "out_of_scope",
    "no_ground_truth",
    "no_contexts",
    "pipeline_error",
    "pipeline_timeout",
    "too_long",
    "judge_error",
    "judge_timeout",
    "invalid_reply",
    "budget",
    "no_points",
    "not_judged",
    "other",
]
"""For programs: the edge case that decided a metric result (`rules.precheck`: the first five),
or why it has no score: the pipeline failed or passed its deadline, the texts were too long,
the judge failed, passed its deadline or replied unusably, the budget was spent, the ground
truth held nothing to check, the judge returned nothing for the metric, or a reason ragmeter
does not know (`other`; see `ragmeter.vocabulary.reasons`). The human `unscored_reason` and
notes may be reworded, these codes are not."""


class Turn(BaseModel):
    """One earlier turn of a conversation."""

    role: Literal["user", "assistant"]
    """Who spoke."""
    content: str
    """What was said."""


class CaseFields(BaseModel):
    """What an eval case says of itself, declared once for every model of a case.

    :class:`~ragmeter.cases.Case` (the eval set), :class:`Sample` (what a judge sees),
    :class:`~ragmeter.results.CaseResult` (results.json) and
    :class:`~ragmeter.cases.labels.LabelledCase` (human labels) extend it with only what is theirs,
    and build one another with :meth:`case_fields`: a field added here reaches every one.
    Models named by `id` list :class:`CaseId` after this base, so that `id` is their first
    field (as results.json and error messages show it).
    """

    question: str
    """The question (for multi-turn cases, the last user turn)."""
    ground_truth: str = ""
    """Human reference answer; empty when there is none. For out-of-scope cases, what a
    correct abstention says."""
    category: str = "normal"
    """`normal`, `typo`, `out_of_scope`, `multi_turn`, or the user's own."""
    history: list[Turn] = Field(default_factory=list)
    """Earlier turns, oldest first."""
    reference_contexts: list[str] = Field(default_factory=list)
    """Chunks a human marked as the right evidence (optional); kept from the eval set into
    results.json, so they can be compared with the retrieved `contexts`."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Free-form user data from the eval set, carried along untouched."""

    def case_fields(self) -> dict[str, Any]:
        """The values of the shared fields, to build another model of the same case."""
        return {name: getattr(self, name) for name in CaseFields.model_fields}

    def detected_lang(self) -> Lang:
        """The language of the question and ground truth (:func:`ragmeter.text.detect_lang`):
        what a case, or a sample, given no language is judged in."""
        return detect_lang(f"{self.question}\n{self.ground_truth}")


class CaseId(BaseModel):
    """The id naming a case in its eval set, results and labels (a :class:`Sample` names it
    `case_id`)."""

    id: str
    """Unique id of the case within its eval set."""


class Sample(CaseFields):
    """Everything a judge may look at for one case: the case's own fields
    (:class:`CaseFields`), what the pipeline retrieved and answered, and the language."""

    case_id: str
    """Id of the case in the eval set."""
    contexts: list[str] = Field(default_factory=list)
    """Retrieved chunks, best-ranked first."""
    answer: str = ""
    """The pipeline's answer."""
    lang: Lang = "en"
    """Language the case is judged in, by every judge: the runner gives
    `ragmeter.cases.case_lang`'s (a forced `--lang` included); a sample built without one
    gets :meth:`~CaseFields.detected_lang`, as `case_lang` detects a case without one."""
    repeat: int = 0
    """Index of this judgement when a case is re-judged to measure noise (`--repeats`).
    LLM judges include it in their cache key when > 0 so repeats are real re-judgements."""

    @model_validator(mode="after")
    def _detect_lang(self) -> Sample:
        if "lang" not in self.model_fields_set:
            self.lang = self.detected_lang()
        return self

    @classmethod
    def of(
        cls, case: CaseFields, *, case_id: str, contexts: list[str], answer: str, lang: Lang
    ) -> Sample:
        """What the judge sees of `case` once the pipeline retrieved `contexts` and answered."""
        return cls(
            case_id=case_id, **case.case_fields(), contexts=contexts, answer=answer, lang=lang
        )


class Span(BaseModel):
    """Character offsets into a context chunk, end exclusive."""

    start: int
    end: int


class ClaimVerdict(BaseModel):
    """Faithfulness verdict on one claim of the answer."""

    claim: str
    """The claim, as split from the answer."""
    verdict: ClaimLabel
    """Supported, contradicted or not verifiable from the contexts."""
    chunk_index: int | None = None
    """Index (0-based, rank order) of the best-matching context chunk."""
    span: Span | None = None
    """Where in that chunk the evidence lies."""
    evidence: str = ""
    """The text of the evidence span."""
    reason: str = ""
    """Why the judge decided so, in one sentence."""
    confidence: float | None = None
    """The judge's support probability, when it has one (an LLM judge's P(supported) read from
    its token probabilities)."""


class ChunkVerdict(BaseModel):
    """Context-precision verdict on one retrieved chunk."""

    index: int
    """Rank of the chunk (0-based)."""
    useful: bool
    """Whether the chunk helps answer the question as the reference does."""
    score: float | None = None
    """Usefulness strength when the judge has one (an LLM judge's P(useful))."""
    reason: str = ""
    """Why the chunk was judged so."""
    preview: str = ""
    """Beginning of the chunk, for reports."""


class PointVerdict(BaseModel):
    """Context-recall verdict on one point of the ground truth."""

    point: str
    """A statement split from the reference answer."""
    supported: bool
    """Whether the retrieved chunks contain it."""
    chunk_index: int | None = None
    """Best-supporting chunk (0-based)."""
    span: Span | None = None
    """Where in that chunk."""
    evidence: str = ""
    """Text of the supporting span."""
    reason: str = ""
    """Why."""
    confidence: float | None = None
    """P(supported) when the judge has one (an LLM judge's token probabilities)."""


class Evidence(BaseModel):
    """What a judge saw and decided, kept with every score."""

    claims: list[ClaimVerdict] = Field(default_factory=list)
    """Faithfulness: one verdict per claim of the answer."""
    chunks: list[ChunkVerdict] = Field(default_factory=list)
    """Context precision: one verdict per ranked chunk."""
    points: list[PointVerdict] = Field(default_factory=list)
    """Context recall: one verdict per point of the ground truth."""
    generated_questions: list[str] = Field(default_factory=list)
    """Answer relevancy (LLM judge): questions written back from the answer."""
    abstained: bool | None = None
    """Whether the answer was judged a refusal / abstention."""
    notes: list[str] = Field(default_factory=list)
    """Other reasons in plain words (e.g. 'answer is evasive')."""
    raw_output_ids: list[str] = Field(default_factory=list)
    """Ids of raw judge outputs (LLM cache keys) for inspection."""


class MetricResult(BaseModel):
    """One metric for one case: a score or an unscored reason, with evidence."""

    metric: MetricName
    score: float | None = None
    """In [0, 1]; None when unscored."""
    unscored_reason: str | None = None
    """Why there is no score (judge error, not applicable, refusal has no claims, ...)."""
    reason_code: ReasonCode | None = None
    """The edge case that fixed this result, scored (an empty answer scores 0) or not (a
    refusal's faithfulness), or the kind of failure that left it unscored (the runner sets
    one on every unscored result; `unscored_reason` is then the detail, without the case id);
    None when the judge graded the case. Absent from results.json files written before it
    existed (read as None; `ragmeter.vocabulary.reasons.code_of` reads it from the reason)."""
    evidence: Evidence = Field(default_factory=Evidence)
    tokens: int = 0
    """Prompt + completion tokens spent on this metric (LLM judges)."""
    calls: int = 0
    """LLM calls spent on this metric (LLM judges)."""

    @model_validator(mode="after")
    def _score_xor_reason(self) -> MetricResult:
        if (self.score is None) == (self.unscored_reason is None):
            raise ValueError("a metric result has exactly one of score and unscored_reason")
        if self.score is not None and not 0.0 <= self.score <= 1.0:
            raise ValueError(f"score {self.score} outside [0, 1]")
        return self

    @property
    def scored(self) -> bool:
        return self.score is not None

    @classmethod
    def unscored(cls, metric: MetricName, reason: str, **kwargs: Any) -> MetricResult:
        """Build an unscored result with its reason (`kwargs`: other fields, validated)."""
        return cls(metric=metric, unscored_reason=reason, **kwargs)


class JudgeTraits(BaseModel):
    """What a judge's numbers mean, declared by the judge and recorded with its fingerprint:
    reports, calibration and the variant check read them from the run, whatever judge made
    it (a plugin judge's own declaration included), never from the judge's kind."""

    claim_strength: str = "confidence"
    """What a claim verdict's `confidence` is, as reports name it (`P(supported)`, `support`)."""
    point_strength: str = "confidence"
    """What a reference point's `confidence` is."""
    chunk_strength: str = "usefulness"
    """What a chunk verdict's `score` is (`P(useful)`, `usefulness`)."""
    graded: list[MetricName] | None = None
    """The metrics scored as the mean of their verdicts' probabilities rather than the share of
    verdicts ([] when none is); None when the judge's faithfulness and context recall are not
    shares of verdicts, so no other scoring of them can be measured."""
    makes_calls: bool = True
    """Whether the judge calls a model it could count (False: it spends nothing)."""


def _recorded_before_traits(kind: str, params: dict[str, object]) -> JudgeTraits:
    """The traits of the built-in judges, for fingerprints recorded before judges declared
    them (older results.json and calibration files); any other judge's are the defaults."""
    if kind in ("openai", "llama"):  # the LLM judge, over an endpoint or its own llama server
        graded = params.get("graded")
        return JudgeTraits(
            claim_strength="P(supported)",
            point_strength="P(supported)",
            chunk_strength="P(useful)",
            graded=[m for m in METRICS if isinstance(graded, list) and m in graded],
        )
    if kind == "local":
        return JudgeTraits(claim_strength="support", point_strength="support", makes_calls=False)
    return JudgeTraits()


class JudgeFingerprint(BaseModel):
    """Identifies a judge configuration so stale comparisons can be detected."""

    kind: str
    """Judge family: `local`, `openai`, ..."""
    model: str
    """Model name (or local evidence model name)."""
    prompt_version: str
    """Version of prompts / scoring rules."""
    params: dict[str, object] = Field(default_factory=dict)
    """Parameters that change verdicts (temperature, thresholds, weights hash...)."""
    traits: JudgeTraits = Field(default_factory=JudgeTraits)
    """What the judge's numbers mean (:class:`JudgeTraits`); not part of the :meth:`key`."""

    @model_validator(mode="before")
    @classmethod
    def _traits_of_older_records(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("traits") is None and "kind" in data:
            params = data.get("params") or {}
            traits = _recorded_before_traits(str(data["kind"]), params)
            return {**data, "traits": traits}
        return data

    def key(self) -> str:
        """A short stable hash of the fingerprint (its traits describe it, not identify it)."""
        blob = json.dumps(self.model_dump(exclude={"traits"}), sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]
