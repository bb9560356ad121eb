"""Everything the local metrics share about one sample, computed once."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from ..base import Lang, MetricName, Sample
from .alignment import ContextIndex
from .claims import Segment, segment
from .settings import LocalSettings
from .short_answers import QuestionClaim, read_with_question
from .topicality import Topicality, TopicalityMeter
from .vectors import EmbeddingStore, Vectors

_POINT_ROLES = ("claim", "hedge", "abstention")


@dataclass
class SampleView:
    """A sample with its segmented answer and reference, context index and vectors."""

    sample: Sample
    lang: Lang
    """`Sample.lang`: the runner's `case_lang`, or detected when the sample was given none."""
    settings: LocalSettings
    vectors: Vectors
    meter: TopicalityMeter | None = None
    """Answer relevancy's e5 meter (None without e5)."""

    @cached_property
    def segments(self) -> tuple[Segment, ...]:
        return segment(self.sample.answer.strip(), self.lang)

    @cached_property
    def question_claim(self) -> QuestionClaim | None:
        """The claim of an answer too short to stand alone ("No.", "30."), read with its
        question (None when the answer stands alone)."""
        sample = self.sample
        return read_with_question(sample.answer, sample.question, self.segments, self.lang)

    @cached_property
    def claims(self) -> list[str]:
        if self.question_claim is not None:
            return [self.question_claim.shown]
        return [s.text for s in self.segments if s.role == "claim"]

    def checked(self, claim: str) -> str:
        """The statement `claim` is checked as: itself, or a short answer read with its
        question."""
        found = self.question_claim
        return found.checked if found is not None and claim == found.shown else claim

    def guard(self, claim: str) -> str | None:
        """A fragment read with its question, checked for a contradiction only (None for
        other claims)."""
        found = self.question_claim
        return found.guard if found is not None and claim == found.shown else None

    @cached_property
    def points(self) -> list[str]:
        """Statements of the ground truth (fillers and questions dropped)."""
        gt = self.sample.ground_truth.strip()
        return [s.text for s in segment(gt, self.lang) if s.role in _POINT_ROLES]

    @cached_property
    def index(self) -> ContextIndex:
        return ContextIndex(list(self.sample.contexts), self.lang, self.vectors)

    @cached_property
    def topicality(self) -> Topicality | None:
        """e5 topicality of the answer to the resolved question (None without e5), measured
        when first asked for: cases decided before (out of scope, empty) never embed."""
        if self.meter is None:
            return None
        return self.meter.measure(self.resolved_question, self.sample.answer, self.lang)

    @cached_property
    def resolved_question(self) -> str:
        """The question preceded by the previous user turn, for multi-turn cases."""
        previous = last_user_turn(self.sample)
        return f"{previous}\n{self.sample.question}" if previous else self.sample.question

    @property
    def out_of_scope(self) -> bool:
        return self.sample.category == "out_of_scope"


def last_user_turn(sample: Sample) -> str:
    """Content of the last user turn of the history ('' when none)."""
    for turn in reversed(sample.history):
        if turn.role == "user" and turn.content.strip() != sample.question.strip():
            return turn.content
    return ""


def build_view(
    sample: Sample,
    metrics: tuple[MetricName, ...],
    settings: LocalSettings,
    store: EmbeddingStore,
    meter: TopicalityMeter | None = None,
) -> SampleView:
    """Segment the sample and embed (MiniLM, English only) every text the metrics will
    compare; answer relevancy measures topicality with `meter` (e5, both languages) when it
    needs it."""
    lang = sample.lang
    view = SampleView(sample, lang, settings, Vectors({}), meter)
    relevancy = "answer_relevancy" in metrics and bool(sample.answer.strip())
    if lang != "en" or not store.available:
        return view
    texts: list[str] = []
    if relevancy and meter is None:
        texts.extend([view.resolved_question, sample.answer])
    # Every claim is embedded: its support blends lexical coverage with its similarity to
    # the best window, and that support is what the claim counts for.
    claims: list[str] = []
    for claim in view.claims if "faithfulness" in metrics else []:
        claims.extend(t for t in (view.checked(claim), view.guard(claim)) if t)
    points = view.points if {"context_recall", "context_precision"} & set(metrics) else []
    for statement in [*claims, *points] if sample.contexts else []:
        if statement in claims or settings.inconclusive(view.index.best_lexical(statement)):
            texts.append(statement)
            texts.extend(view.index.candidates(statement, settings.sim_candidates))
    view.vectors = store.vectors(texts)
    view.index.vectors = view.vectors
    return view
