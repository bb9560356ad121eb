"""Metamorphic variants of an eval set (`ragmeter vary`), each with the direction every metric
is expected to move relative to the case it was made from; `vary.check` reads a run of them
back, `vary.typos` makes the typo variants.

A variant changes one thing about its origin case, so how each metric should move is known
without a human label; a pipeline and judge that move otherwise have a weakness the plain
scores do not show. The kinds, and the reasoning behind each expectation:

- ``typo``: one typo in the question (:mod:`ragmeter.vary.typos`; English or Chinese). The meaning
  is unchanged, so a robust pipeline retrieves the same chunks and gives the same answer, and
  a robust judge scores it the same: every metric **same** (within the checker's tolerance).
- ``distractor``: one chunk from another case of the set (never the case's own, preferably in
  the same language) inserted into the case's contexts at a seeded position; the answer is
  unchanged. Every chunk that held the reference's points is still there, so **context
  recall** can only stay (or rise, if the borrowed chunk happens to cover a point): *up or
  same*. **Context precision** is rank-weighted: an unhelpful chunk inserted above a useful one
  lowers it, one inserted below every useful chunk leaves it as it was: *down or same*.
  **Faithfulness**: the chunks supporting the answer are all still there, so *up or same*; a
  drop means the judge let an unrelated chunk overrule them. **Answer relevancy** reads the
  question and the answer, neither of which changed: *same*.
- ``shuffle`` (cases with at least two given chunks): the same chunks in a seeded other order.
  Recall, faithfulness and relevancy do not depend on the order: *same*. Context precision
  does, by definition, so no direction is right in general; instead it must **follow the
  chunks**: the origin's per-chunk verdicts, re-ranked into the new order, give the precision
  expected (a judge whose verdict on a chunk changes with its rank breaks it).
- ``out_of_scope``: the question replaced by a general-knowledge question from a built-in bank
  (:data:`OUT_OF_SCOPE_QUESTIONS`), category ``out_of_scope``, the ground truth an abstention,
  no history: the answer should **abstain**, which answer relevancy scores 1 on an
  out-of-scope case (0 if it answers). Retrieval metrics do not apply to an out-of-scope case
  and faithfulness of an abstention is unscored by design, so they carry no expectation.

``distractor`` and ``shuffle`` act on contexts the eval set itself carries (with the answer:
RAGAS ``retrieved_contexts`` and ``response``, or attached from a run with
:func:`attach_outputs`), and such a set is then run without a pipeline, so they test the judge;
``out_of_scope`` needs a pipeline to answer the new question, so it is made only for cases
without a fixed answer; ``typo`` is made for both (with a fixed answer it tests the judge
alone). Retrieval metrics carry no expectation for an origin that is out of scope or has no
ground truth (they are unscored by design there).

A variant's id is ``<origin>~<kind>``; its metadata keeps the origin's (but for an
``out_of_scope`` variant, which asks another question) and adds, under :data:`META_KEY`, the
origin id, the kind, the seed, the expected direction per metric and what changed. Every
random choice comes from a generator seeded with the seed, the kind and the case id, so a seed
gives the same variants every time.
"""

from __future__ import annotations

import hashlib
import random
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from .._exceptions import CaseFileError, ConfigError, ResultsError
from .._util.plural import counted
from ..cases import Case, case_lang
from ..pipeline import AnswersFilePipeline
from ..pipeline.answers import few_ids
from ..results import RESULTS_FILE, load_run, write_atomic
from ..text import normalize
from ..vocabulary import METRICS, Lang, MetricName
from .typos import make_typo

Kind = Literal["typo", "distractor", "shuffle", "out_of_scope"]
KINDS: tuple[Kind, ...] = get_args(Kind)

Direction = Literal["same", "up_or_same", "down_or_same", "reranked", "abstain"]
DIRECTIONS: tuple[Direction, ...] = get_args(Direction)

META_KEY = "vary"
"""The metadata key under which a variant records its origin, kind and expectations."""

ID_SEPARATOR = "~"

EXPECTATIONS: dict[Kind, dict[MetricName, Direction]] = {
    "typo": {metric: "same" for metric in METRICS},
    "distractor": {
        "context_recall": "up_or_same",
        "context_precision": "down_or_same",
        "faithfulness": "up_or_same",
        "answer_relevancy": "same",
    },
    "shuffle": {
        "context_recall": "same",
        "context_precision": "reranked",
        "faithfulness": "same",
        "answer_relevancy": "same",
    },
    "out_of_scope": {"answer_relevancy": "abstain"},
}
"""Expected direction of each metric of a variant relative to its origin (module docstring)."""

RETRIEVAL_METRICS: tuple[MetricName, ...] = ("context_recall", "context_precision")

OUT_OF_SCOPE_QUESTIONS: dict[Lang, tuple[str, ...]] = {
    "en": (
        "How long should I boil an egg for a runny yolk?",
        "What is the tallest mountain in Africa?",
        "Who painted The Starry Night?",
        "How many moons does Neptune have?",
        "At what temperature does water boil on the summit of Mount Everest?",
        "Who wrote the novel Pride and Prejudice?",
        "When should tulip bulbs be planted?",
        "What is the offside rule in football?",
        "In which year did the Berlin Wall fall?",
        "What is the capital city of Mongolia?",
        "How many strings does a cello have?",
        "What do koalas eat?",
        "How long does sunlight take to reach the Earth?",
        "What goes into a classic margherita pizza?",
        "Which ocean is the deepest?",
        "Who composed The Four Seasons?",
        "How do I get a red wine stain out of a carpet?",
        "What is the population of Iceland?",
        "How many players does a volleyball team have on court?",
        "What causes the northern lights?",
        "How often should a cactus be watered?",
        "Who was the first person to walk on the Moon?",
        "What is the longest river in South America?",
        "How do I tie a bowline knot?",
        "What is the chemical symbol for gold?",
        "Which planet has the Great Red Spot?",
        "How many bones are in the adult human body?",
        "What language is spoken in Brazil?",
        "How do I teach a puppy to sit?",
        "When was the printing press invented?",
        "What is the best way to keep fresh basil?",
        "How many time zones does Russia span?",
        "Who discovered penicillin?",
        "How fast does sound travel in air?",
        "How do bees make honey?",
        "In which year did the Titanic sink?",
        "How do I fix a flat bicycle tyre?",
        "What is the currency of Japan?",
        "Which bird lays the largest eggs?",
        "How long is a marathon?",
    ),
    "zh": (
        "煮溏心蛋需要几分钟？",
        "非洲最高的山是哪座？",
        "《星月夜》是谁画的？",
        "海王星有几颗卫星？",
        "在珠穆朗玛峰顶上水多少度沸腾？",
        "《红楼梦》的作者是谁？",
        "郁金香的种球应该什么时候种？",
        "足球比赛的越位规则是什么？",
        "柏林墙是哪一年倒塌的？",
        "蒙古国的首都是哪座城市？",
        "大提琴有几根弦？",
        "考拉吃什么？",
        "阳光到达地球要多长时间？",
        "正宗的麻婆豆腐怎么做？",
        "世界上最深的大洋是哪个？",
        "《四季》是哪位作曲家写的？",
        "地毯上的红酒渍怎么去除？",
        "冰岛有多少人口？",
        "排球比赛每队场上有几名队员？",
        "极光是怎么形成的？",
        "仙人掌多久浇一次水？",
        "第一个登上月球的人是谁？",
        "南美洲最长的河流是哪条？",
        "称人结怎么打？",
        "金的化学符号是什么？",
        "哪颗行星上有大红斑？",
        "成年人身上有多少块骨头？",
        "巴西人说什么语言？",
        "怎么教小狗坐下？",
        "活字印刷术是谁发明的？",
        "新鲜罗勒怎么保存最好？",
        "俄罗斯横跨几个时区？",
        "青霉素是谁发现的？",
        "声音在空气中传播得多快？",
        "蜜蜂是怎么酿蜜的？",
        "泰坦尼克号是哪一年沉没的？",
        "自行车轮胎漏气了怎么补？",
        "日本用什么货币？",
        "哪种鸟下的蛋最大？",
        "马拉松全程有多长？",
    ),
}
"""General-knowledge questions far from any product documentation, per language: the
questions of ``out_of_scope`` variants (each used at most once in a set). If your documents
do cover such topics, leave the kind out."""

ABSTENTIONS: dict[Lang, str] = {
    "en": "The documents do not cover this, so it cannot be answered from them.",
    "zh": "文档中没有涉及这个问题，无法据此回答。",
}
"""The ground truth of an ``out_of_scope`` variant: what a correct abstention says."""


@dataclass(frozen=True)
class Skipped:
    """Cases of the eval set that got no variant of one kind, and why."""

    kind: Kind
    reason: str
    case_ids: list[str]


@dataclass
class Variation:
    """A varied eval set: every origin case followed by its variants."""

    cases: list[Case]
    """Origins (unchanged, or with attached outputs) and variants, each origin first."""
    made: dict[Kind, int]
    """Variants made per kind asked for."""
    skipped: list[Skipped] = field(default_factory=list)
    """Kinds a case got no variant of, with the reason."""

    @property
    def n_variants(self) -> int:
        return sum(self.made.values())


def parse_kinds(values: str | Iterable[str] | None, *, option: str = "--kinds") -> tuple[Kind, ...]:
    """The kinds named (comma-separated or a list; `out-of-scope` is `out_of_scope`), in
    :data:`KINDS` order; None means all four. An unknown name is a :class:`ConfigError`."""
    if values is None:
        return KINDS
    parts = [values] if isinstance(values, str) else list(values)
    names = {
        part.strip().lower().replace("-", "_")
        for value in parts
        for part in value.split(",")
        if part.strip()
    }
    if not names:
        raise ConfigError(f"{option}: no kind named; choose from {', '.join(KINDS)}")
    unknown = sorted(names - set(KINDS))
    if unknown:
        raise ConfigError(f"{option}: unknown kind '{unknown[0]}'; choose from {', '.join(KINDS)}")
    return tuple(kind for kind in KINDS if kind in names)


def vary_cases(
    cases: Sequence[Case],
    kinds: Iterable[Kind] = KINDS,
    *,
    seed: int = 0,
    limit: int | None = None,
    source: str = "cases",
) -> Variation:
    """The eval set `cases` with variants of each kind in `kinds` (module docstring).

    At most `limit` variants of each kind are made, the origins picked by the seed. Cases that
    already are variants, or an id the variants would take, are a :class:`CaseFileError` on
    `source`."""
    kinds = [kind for kind in KINDS if kind in set(kinds)]
    _refuse_variants(cases, kinds, source)
    builder = _Builder(cases, seed)
    by_origin: dict[str, list[Case]] = defaultdict(list)
    made: dict[Kind, int] = {}
    skipped: dict[tuple[Kind, str], list[str]] = defaultdict(list)
    position = {case.id: i for i, case in enumerate(cases)}
    for kind in kinds:
        made[kind] = 0
        order = list(cases)
        _rng(seed, kind).shuffle(order)
        for case in order:
            reason = _ineligible(kind, case)
            if reason is None and limit is not None and made[kind] >= limit:
                reason = f"beyond --limit {limit}"
            result = builder.make(kind, case) if reason is None else reason
            if isinstance(result, str):
                skipped[(kind, result)].append(case.id)
            else:
                by_origin[case.id].append(result)
                made[kind] += 1
    out: list[Case] = []
    for case in cases:
        out.append(case)
        out.extend(by_origin[case.id])
    return Variation(
        cases=out,
        made=made,
        skipped=[
            Skipped(kind, reason, sorted(ids, key=position.__getitem__))
            for (kind, reason), ids in skipped.items()
        ],
    )


def _refuse_variants(cases: Sequence[Case], kinds: Sequence[Kind], source: str) -> None:
    already = [case.id for case in cases if META_KEY in case.metadata]
    if already:
        raise CaseFileError(
            source,
            f"{counted(len(already), 'case')} "
            f"{'is a variant' if len(already) == 1 else 'are variants'} already "
            f"(metadata '{META_KEY}'): "
            f"{few_ids(already)}; vary the original eval set",
        )
    ids = {case.id for case in cases}
    taken = [
        f"{case.id}{ID_SEPARATOR}{kind}"
        for case in cases
        for kind in kinds
        if f"{case.id}{ID_SEPARATOR}{kind}" in ids
    ]
    if taken:
        raise CaseFileError(
            source,
            f"ids {few_ids(taken)} are taken by cases of the set, but variants are named "
            f"<id>{ID_SEPARATOR}<kind>: rename those cases",
            field="id",
        )


def _ineligible(kind: Kind, case: Case) -> str | None:
    """Why `case` cannot have a variant of `kind` whatever the rest of the set holds."""
    fixed = case.contexts is not None and case.answer is not None
    if kind in ("distractor", "shuffle"):
        if case.category == "out_of_scope":
            return "out of scope: nothing to retrieve"
        if not fixed:
            return (
                "no contexts and answer in the eval set (attach a run's with --answers, or "
                "give a set with contexts and answers)"
            )
        assert case.contexts is not None
        if kind == "shuffle" and len(case.contexts) < 2:
            return "fewer than 2 contexts"
        if kind == "shuffle" and len(set(case.contexts)) < 2:
            return "its contexts are all the same chunk"
    if kind == "out_of_scope":
        if case.category == "out_of_scope":
            return "out of scope already"
        if case.answer is not None:
            return "the answer is fixed in the eval set (an abstention needs a pipeline)"
    return None


class _Builder:
    """Makes one variant at a time; keeps what must stay unique across the set (questions,
    bank questions) and the pool of chunks to borrow distractors from."""

    def __init__(self, cases: Sequence[Case], seed: int) -> None:
        self.seed = seed
        self.questions = {_question_key(case.question) for case in cases}
        self.pool: list[tuple[str, Lang, str]] = []
        seen: set[str] = set()
        for case in cases:
            for chunk in case.contexts or []:
                if chunk.strip() and chunk not in seen:
                    seen.add(chunk)
                    self.pool.append((case.id, case_lang(case), chunk))
        self.bank: dict[Lang, list[str]] = {}
        for lang, questions in OUT_OF_SCOPE_QUESTIONS.items():
            bank = list(questions)
            _rng(seed, "out_of_scope", lang).shuffle(bank)
            self.bank[lang] = bank
        self.makers: dict[Kind, Callable[[Case], Case | str]] = {
            "typo": self._typo,
            "distractor": self._distractor,
            "shuffle": self._shuffle,
            "out_of_scope": self._out_of_scope,
        }

    def make(self, kind: Kind, case: Case) -> Case | str:
        return self.makers[kind](case)

    def _variant(self, case: Case, kind: Kind, change: dict[str, Any], **update: Any) -> Case:
        """A copy of `case` with `update`, its id and its `vary` metadata. An out-of-scope
        variant asks another question, so the origin's metadata (its sources, tags) is not
        carried over to it."""
        variant = case.model_copy(update=update, deep=True)
        if kind == "out_of_scope":
            variant.metadata = {}
        expect = dict(EXPECTATIONS[kind])
        if case.category == "out_of_scope" or not case.ground_truth.strip():
            for metric in RETRIEVAL_METRICS:
                expect.pop(metric, None)
        variant.id = f"{case.id}{ID_SEPARATOR}{kind}"
        variant.metadata = {
            **variant.metadata,
            META_KEY: {
                "origin": case.id,
                "kind": kind,
                "seed": self.seed,
                "expect": expect,
                "change": change,
            },
        }
        return variant

    def _typo(self, case: Case) -> Case | str:
        rng = _rng(self.seed, "typo", case.id)
        for _ in range(8):
            typo = make_typo(case.question, case_lang(case), rng)
            if typo is None:
                return "no word to misspell"
            key = _question_key(typo.text)
            if key not in self.questions:
                self.questions.add(key)
                category = "typo" if case.category == "normal" else case.category
                return self._variant(
                    case, "typo", {"edit": typo.edit}, question=typo.text, category=category
                )
        return "every typo tried repeats a question of the set"

    def _distractor(self, case: Case) -> Case | str:
        assert case.contexts is not None
        own = {chunk.strip() for chunk in case.contexts}
        candidates = [
            (case_id, lang, chunk)
            for case_id, lang, chunk in self.pool
            if case_id != case.id and chunk.strip() not in own
        ]
        lang = case_lang(case)
        candidates = [c for c in candidates if c[1] == lang] or candidates
        if not candidates:
            return "no other case has a chunk to borrow"
        rng = _rng(self.seed, "distractor", case.id)
        source_id, _, chunk = rng.choice(candidates)
        at = rng.randint(0, len(case.contexts))
        contexts = [*case.contexts[:at], chunk, *case.contexts[at:]]
        return self._variant(
            case, "distractor", {"inserted_at": at, "from_case": source_id}, contexts=contexts
        )

    def _shuffle(self, case: Case) -> Case | str:
        assert case.contexts is not None
        contexts = case.contexts
        rng = _rng(self.seed, "shuffle", case.id)
        order = list(range(len(contexts)))
        for _ in range(10):
            rng.shuffle(order)
            if [contexts[j] for j in order] != contexts:
                break
        else:  # a rotation differs unless every chunk is the same (refused before)
            order = [*range(1, len(contexts)), 0]
        shuffled = [contexts[j] for j in order]
        return self._variant(case, "shuffle", {"order": order}, contexts=shuffled)

    def _out_of_scope(self, case: Case) -> Case | str:
        lang = case_lang(case)
        bank = self.bank[lang]
        while bank:
            question = bank.pop(0)
            key = _question_key(question)
            if key not in self.questions:
                self.questions.add(key)
                return self._variant(
                    case,
                    "out_of_scope",
                    {},
                    question=question,
                    ground_truth=ABSTENTIONS[lang],
                    category="out_of_scope",
                    history=[],
                    reference_contexts=[],
                )
        return (
            f"the built-in bank of {len(OUT_OF_SCOPE_QUESTIONS[lang])} out-of-scope questions "
            f"({lang}) is used up"
        )


def _question_key(text: str) -> str:
    """A question as `ragmeter lint` compares them (case, width, spaces, punctuation ignored)."""
    return normalize(unicodedata.normalize("NFKC", text).casefold())


def _rng(seed: int, *parts: str) -> random.Random:
    """A generator for one choice, fixed by the seed and what it is for (not by the order in
    which cases are visited, nor by PYTHONHASHSEED)."""
    digest = hashlib.sha256("\x1f".join([str(seed), *parts]).encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


# --- contexts and answers from a run ------------------------------------------------------


def load_outputs(path: str | Path) -> dict[str, tuple[list[str], str]]:
    """Contexts and answer per case id from a run (its directory or results.json) or an
    answers file (`id`, `contexts`, `answer`, as `ragmeter run --answers` reads). A case the
    run's pipeline failed on has none: a :class:`ResultsError` names it."""
    path = Path(path).expanduser()
    if path.is_dir() or path.name == RESULTS_FILE:
        run = load_run(path)
        failed = [case.id for case in run.cases if case.pipeline_error is not None]
        if failed:
            raise ResultsError(
                f"{path}: the pipeline failed on {counted(len(failed), 'case')} "
                f"({few_ids(failed)}), "
                "so they have no contexts and answer to vary: re-run them, or leave them out "
                "of the eval set"
            )
        return {case.id: (list(case.contexts), case.answer) for case in run.cases}
    answers = AnswersFilePipeline(path)
    outputs = answers._answers  # read as `ragmeter run --answers` reads it
    return {case_id: (list(out.contexts), out.answer) for case_id, out in outputs.items()}


def attach_outputs(
    cases: Sequence[Case], outputs: dict[str, tuple[list[str], str]], *, source: str
) -> list[Case]:
    """`cases` with the contexts and answer `outputs` holds for each, matched by id; an output
    for an unknown id, or a case without one, is a :class:`CaseFileError` on `source`."""
    ids = [case.id for case in cases]
    unknown = sorted(set(outputs) - set(ids))
    missing = [case_id for case_id in ids if case_id not in outputs]
    if unknown or missing:
        problems = []
        if unknown:
            problems.append(f"{len(unknown)} for ids not in the eval set: {few_ids(unknown)}")
        if missing:
            problems.append(f"{counted(len(missing), 'eval case')} without one: {few_ids(missing)}")
        raise CaseFileError(
            source,
            f"contexts and answers must match the eval set's cases by id; {'; '.join(problems)}",
        )
    return [
        case.model_copy(
            update={"contexts": list(outputs[case.id][0]), "answer": outputs[case.id][1]}
        )
        for case in cases
    ]


# --- writing ---------------------------------------------------------------------------------


def case_record(case: Case) -> dict[str, Any]:
    """A case as one record of an eval file (ragmeter's field names; unset fields left out)."""
    return case.model_dump(mode="json", exclude_none=True)


def write_cases(cases: Sequence[Case], path: str | Path) -> Path:
    """Write `cases` as JSONL to `path` (which must end in .jsonl), atomically."""
    import json

    path = Path(path).expanduser()
    if path.suffix.lower() != ".jsonl":
        raise ConfigError(f"{path}: the varied eval set is written as JSONL; name it *.jsonl")
    lines = [json.dumps(case_record(case), ensure_ascii=False) for case in cases]
    write_atomic(path, "\n".join(lines) + "\n")
    return path


__all__ = [
    "ABSTENTIONS",
    "DIRECTIONS",
    "EXPECTATIONS",
    "ID_SEPARATOR",
    "KINDS",
    "META_KEY",
    "OUT_OF_SCOPE_QUESTIONS",
    "Direction",
    "Kind",
    "Skipped",
    "Variation",
    "attach_outputs",
    "case_lang",
    "case_record",
    "load_outputs",
    "parse_kinds",
    "vary_cases",
    "write_cases",
]
