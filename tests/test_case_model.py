"""One case model: the fields of `CaseFields` are declared once and shared by the eval case,
the judge's sample, the case in results.json and the labelled case, and every projection from
one to another carries all of them (`reference_contexts` included)."""

from __future__ import annotations

import importlib.util
import json

import pytest

import ragmeter
from ragmeter.cases import Case, load_cases
from ragmeter.cases.labels import LabelledCase, load_labelled_cases
from ragmeter.judges.base import METRICS, JudgeFingerprint, MetricResult, Sample
from ragmeter.results import RESULTS_FILE, SCHEMA_VERSION, CaseResult, load_run, save_run
from ragmeter.run import build_sample
from ragmeter.vocabulary import CaseFields, CaseId, Turn

MODELS = (Case, Sample, CaseResult, LabelledCase)

CASE = Case(
    id="q1",
    question="Where is the trash collected?",
    ground_truth="On Mondays at the gate.",
    category="typo",
    history=[Turn(role="user", content="Hi"), Turn(role="assistant", content="Hello")],
    reference_contexts=["Trash is collected on Mondays at the gate."],
    metadata={"source": ["faq.md"]},
    lang="en",
    contexts=["Trash is collected on Mondays at the gate.", "Parking is free."],
    answer="On Mondays at the gate.",
)


class RecordingJudge:
    """Scores 1.0 on every metric and keeps the samples it saw."""

    def __init__(self) -> None:
        self.samples: list[Sample] = []

    def fingerprint(self) -> JudgeFingerprint:
        return JudgeFingerprint(kind="recording", model="none", prompt_version="1")

    async def judge(self, sample: Sample, metrics=METRICS):
        self.samples.append(sample)
        return {m: MetricResult(metric=m, score=1.0) for m in metrics}


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_every_model_of_a_case_has_the_shared_fields_as_declared_once(model):
    assert issubclass(model, CaseFields)
    for name, declared in CaseFields.model_fields.items():
        field = model.model_fields[name]
        assert field.annotation == declared.annotation, name
        assert field.get_default(call_default_factory=True) == declared.get_default(
            call_default_factory=True
        ), name
    assert "reference_contexts" in model.model_fields


@pytest.mark.parametrize("model", (Case, CaseResult, LabelledCase), ids=lambda m: m.__name__)
def test_models_named_by_id_list_it_first(model):
    assert issubclass(model, CaseId)
    assert next(iter(model.model_fields)) == "id"


def test_a_sample_names_its_case_by_case_id():
    sample = build_sample(CASE, ["c"], "a", "zh")
    assert sample.case_id == "q1"
    assert "id" not in Sample.model_fields
    assert sample.case_fields() == CASE.case_fields()
    assert (sample.contexts, sample.answer, sample.lang) == (["c"], "a", "zh")
    assert sample.model_copy(update={"case_id": "q2"}).case_id == "q2"


def test_a_labelled_case_becomes_an_eval_case_with_all_its_fields(tmp_path):
    path = tmp_path / "labels.jsonl"
    record = {
        "id": "q1",
        "question": CASE.question,
        "reference_contexts": CASE.reference_contexts,
        "metadata": CASE.metadata,
        "contexts": CASE.contexts,
        "answer": CASE.answer,
        "labels": {"faithfulness": 1},
    }
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    (labelled,) = load_labelled_cases(path)
    case = labelled.to_case()
    assert case.reference_contexts == CASE.reference_contexts
    assert case.case_fields() == labelled.case_fields()
    assert (case.contexts, case.answer) == (CASE.contexts, CASE.answer)


def test_results_json_keeps_the_case_as_before_plus_its_reference_contexts(tmp_path):
    judge = RecordingJudge()
    result = ragmeter.evaluate([CASE], judge=judge, metrics=["faithfulness"])
    written = json.loads(save_run(result, tmp_path).read_text(encoding="utf-8"))
    assert written["schema_version"] == SCHEMA_VERSION == 1
    case = written["cases"][0]
    assert isinstance(case.pop("pipeline_seconds"), float)
    assert list(case) == [
        "id",
        "question",
        "ground_truth",
        "category",
        "history",
        "reference_contexts",
        "metadata",
        "lang",
        "contexts",
        "answer",
        "pipeline_error",
        "metrics",
        "repeats",
    ]
    assert case == {
        "id": "q1",
        "question": "Where is the trash collected?",
        "ground_truth": "On Mondays at the gate.",
        "category": "typo",
        "history": [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello"},
        ],
        "reference_contexts": ["Trash is collected on Mondays at the gate."],
        "metadata": {"source": ["faq.md"]},
        "lang": "en",
        "contexts": ["Trash is collected on Mondays at the gate.", "Parking is free."],
        "answer": "On Mondays at the gate.",
        "pipeline_error": None,
        "metrics": {
            "faithfulness": {
                "metric": "faithfulness",
                "score": 1.0,
                "unscored_reason": None,
                "reason_code": None,
                "evidence": {
                    "claims": [],
                    "chunks": [],
                    "points": [],
                    "generated_questions": [],
                    "abstained": None,
                    "notes": [],
                    "raw_output_ids": [],
                },
                "tokens": 0,
                "calls": 0,
            }
        },
        "repeats": {},
    }
    (seen,) = judge.samples
    assert seen.reference_contexts == CASE.reference_contexts
    assert seen.metadata == CASE.metadata


@pytest.mark.skipif(importlib.util.find_spec("pandas") is None, reason="needs pandas")
def test_reference_contexts_survive_eval_file_run_results_json_and_to_pandas(tmp_path):
    cases_file = tmp_path / "cases.jsonl"
    row = CASE.model_dump(mode="json", exclude_none=True)
    cases_file.write_text(json.dumps(row) + "\n", encoding="utf-8")
    (case,) = load_cases(cases_file)
    assert case.reference_contexts == CASE.reference_contexts

    save_run(ragmeter.evaluate([case], judge=RecordingJudge()), tmp_path / "run")
    loaded = load_run(tmp_path / "run")
    assert loaded.cases[0].reference_contexts == CASE.reference_contexts
    table = loaded.to_pandas()
    assert table.loc[0, "reference_contexts"] == CASE.reference_contexts
    assert list(table.columns).index("reference_contexts") == 5


def test_a_results_file_from_before_reference_contexts_loads_with_none(tmp_path):
    save_run(ragmeter.evaluate([CASE], judge=RecordingJudge()), tmp_path)
    path = tmp_path / RESULTS_FILE
    data = json.loads(path.read_text(encoding="utf-8"))
    for case in data["cases"]:
        del case["reference_contexts"]
    path.write_text(json.dumps(data), encoding="utf-8")
    loaded = load_run(path)
    assert loaded.schema_version == 1
    assert loaded.cases[0].reference_contexts == []
    assert loaded.cases[0].metadata == CASE.metadata
