"""The Python API: ragmeter.evaluate / aevaluate on data in the usual shapes, ragmeter.judge,
metrics=, and the results as a table (to_csv, to_pandas)."""

from __future__ import annotations

import asyncio
import csv
import importlib.util
import json
import sys

import pytest

import ragmeter
from factories import RAGAS_INVENTED_FAITHFULNESS, RAGAS_ROWS
from ragmeter import Case, CaseFileError, ConfigError
from ragmeter.judges.base import METRICS, JudgeFingerprint, MetricResult, Sample
from ragmeter.pipeline import PrecomputedPipeline

HAS_PANDAS = importlib.util.find_spec("pandas") is not None
INVENTED = RAGAS_INVENTED_FAITHFULNESS
needs_pandas = pytest.mark.skipif(not HAS_PANDAS, reason="pandas is not installed")


class EchoJudge:
    """Scores 1.0 when the answer appears in a context, else 0.0; records what it saw."""

    def __init__(self) -> None:
        self.samples: list[Sample] = []
        self.metrics: list[tuple[str, ...]] = []
        self.closed = False

    def fingerprint(self) -> JudgeFingerprint:
        return JudgeFingerprint(kind="echo", model="none", prompt_version="1")

    async def judge(self, sample: Sample, metrics=METRICS):
        self.samples.append(sample)
        self.metrics.append(tuple(metrics))
        score = 1.0 if any(sample.answer in c for c in sample.contexts) else 0.0
        return {m: MetricResult(metric=m, score=score) for m in metrics}

    async def aclose(self) -> None:
        self.closed = True


# --- the local judge on RAGAS-named rows --------------------------------------------------


def test_evaluate_ragas_rows_with_the_local_judge(tmp_path):
    result = ragmeter.evaluate(RAGAS_ROWS)
    assert result.judge.kind == "local"
    assert [c.id for c in result.cases] == ["1", "2"]  # numbered by position, as files are
    assert set(result.summary.metrics) == set(METRICS)
    supported, invented = result.cases
    assert supported.question == RAGAS_ROWS[0]["user_input"]
    assert supported.ground_truth == RAGAS_ROWS[0]["reference"]
    assert supported.contexts == RAGAS_ROWS[0]["retrieved_contexts"]
    assert supported.score("faithfulness") == 1.0
    # unverified ('PDF' is never mentioned) although its words are there: it counts its
    # support, capped at the support such claims are supported with and scaled under 0.4
    # (below the faithful bar)
    assert invented.score("faithfulness") == INVENTED
    assert invented.metrics["faithfulness"].evidence.claims[0].verdict == "not_verifiable"
    assert result.summary_dict()["faithfulness"]["mean"] == pytest.approx((1 + INVENTED) / 2)
    assert result.run.pipeline == "precomputed"
    assert result.run.cases_file == "(in memory: list, 2 cases)"

    path = result.to_csv(tmp_path / "out" / "scores.csv")
    with path.open(encoding="utf-8", newline="") as handle:
        table = list(csv.DictReader(handle))
    names = list(table[0])
    assert names[:10] == [
        "id",
        "category",
        "lang",
        "question",
        "ground_truth",
        "reference_contexts",
        "contexts",
        "answer",
        "pipeline_error",
        "metadata",
    ]
    assert names[10:] == [n for m in METRICS for n in (m, f"{m}_unscored_reason")]
    assert [row["faithfulness"] for row in table] == ["1.0", str(INVENTED)]
    assert json.loads(table[0]["contexts"]) == RAGAS_ROWS[0]["retrieved_contexts"]
    assert table[1]["faithfulness_unscored_reason"] == ""


def test_metrics_computes_only_those_named():
    result = ragmeter.evaluate(RAGAS_ROWS, metrics="faithfulness")
    assert list(result.summary.metrics) == ["faithfulness"]
    assert all(list(c.metrics) == ["faithfulness"] for c in result.cases)
    assert [h.metric for h in result.health.metrics] == ["faithfulness"]
    assert all(note.metric == "faithfulness" for note in result.run.calibration)

    judge = EchoJudge()
    ragmeter.evaluate(RAGAS_ROWS, judge=judge, metrics=["answer_relevancy", "context_recall"])
    assert judge.metrics == [("context_recall", "answer_relevancy")] * 2  # pipeline order
    judge = EchoJudge()
    ragmeter.evaluate(RAGAS_ROWS, judge=judge, metrics="faithfulness, Context-Precision")
    assert judge.metrics[0] == ("context_precision", "faithfulness")


@pytest.mark.parametrize(
    ("metrics", "message"),
    [
        ("faithfullness", "unknown metric 'faithfullness' (did you mean 'faithfulness'?)"),
        (["context_recall", "bleu"], "unknown metric 'bleu'"),
        ("", "no metric named"),
        ([1], "1 is not a metric name"),
    ],
)
def test_unknown_metrics_are_refused_naming_the_four(metrics, message):
    with pytest.raises(ConfigError) as info:
        ragmeter.evaluate(RAGAS_ROWS, judge=EchoJudge(), metrics=metrics)
    assert message in str(info.value)
    assert "context_recall, context_precision, faithfulness, answer_relevancy" in str(info.value)


# --- data shapes --------------------------------------------------------------------------


def test_old_ragas_names_and_ground_truths_list():
    rows = [
        {
            "question": "How long are deleted notes kept?",
            "contexts": ["Deleted notes stay in the trash for 30 days."],
            "answer": "Deleted notes stay in the trash for 30 days.",
            "ground_truths": ["30 days.", "In the trash."],
        }
    ]
    judge = EchoJudge()
    result = ragmeter.evaluate(rows, judge=judge)
    assert judge.samples[0].ground_truth == "30 days.\nIn the trash."
    assert result.cases[0].score("faithfulness") == 1.0


def test_case_accepts_a_ragas_row():
    row = {**RAGAS_ROWS[0], "synthesizer_name": "single_hop", "persona_name": None}
    case = Case(**row)
    assert case.id == ""
    assert case.question == row["user_input"] and case.answer == row["response"]
    assert case.contexts == row["retrieved_contexts"] and case.ground_truth == row["reference"]
    assert case.metadata == {"synthesizer_name": "single_hop"}
    with pytest.raises(ValueError, match="both 'question' and 'user_input'"):
        Case(question="a?", user_input="b?")
    result = ragmeter.evaluate([case, Case(id="x", **RAGAS_ROWS[1])], judge=EchoJudge())
    assert [c.id for c in result.cases] == ["1", "x"]


def test_ragas_bookkeeping_columns_load_from_files_into_metadata(tmp_path):
    path = tmp_path / "testset.jsonl"
    path.write_text(
        json.dumps({"user_input": "q?", "reference": "r", "synthesizer_name": "multi_hop"}) + "\n"
    )
    (case,) = ragmeter.load_cases(path)
    assert case.metadata == {"synthesizer_name": "multi_hop"}


class FakeDataset:
    """What ragmeter uses of a datasets.Dataset (or a RAGAS EvaluationDataset)."""

    def __init__(self, rows):
        self.rows = rows

    def to_list(self):
        return [dict(r) for r in self.rows]


def test_dataset_like_objects_and_column_dicts():
    judge = EchoJudge()
    result = ragmeter.evaluate(FakeDataset(RAGAS_ROWS), judge=judge)
    assert [s.question for s in judge.samples] == [r["user_input"] for r in RAGAS_ROWS]
    columns = {key: [r[key] for r in RAGAS_ROWS] for key in RAGAS_ROWS[0]}
    again = ragmeter.evaluate(columns, judge=EchoJudge())
    assert [c.question for c in again.cases] == [c.question for c in result.cases]
    with pytest.raises(ConfigError, match="differ in length"):
        ragmeter.evaluate({"question": ["a?", "b?"], "answer": ["x"]}, judge=EchoJudge())
    with pytest.raises(ConfigError, match="not of columns"):
        ragmeter.evaluate(RAGAS_ROWS[0], judge=EchoJudge())


def test_a_path_is_loaded_as_an_eval_file(tmp_path):
    path = tmp_path / "ragas.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in RAGAS_ROWS))
    result = ragmeter.evaluate(str(path), judge=EchoJudge())
    assert [c.id for c in result.cases] == ["1", "2"]
    assert result.run.cases_file == str(path)


@needs_pandas
def test_a_dataframe_goes_in_and_out():
    import pandas as pd

    frame = pd.DataFrame(
        [*RAGAS_ROWS, {**RAGAS_ROWS[0], "user_input": "Where is the trash?", "reference": None}]
    )
    frame["id"] = ["a", "b", "c"]
    result = ragmeter.evaluate(frame, metrics=["context_recall", "faithfulness"])
    assert [c.id for c in result.cases] == ["a", "b", "c"]
    assert result.cases[2].ground_truth == ""  # a missing cell (NaN) is no ground truth

    table = result.to_pandas()
    assert list(table.columns)[10:] == [
        "context_recall",
        "context_recall_unscored_reason",
        "faithfulness",
        "faithfulness_unscored_reason",
    ]
    assert table["faithfulness"].tolist() == [1.0, INVENTED, 1.0]
    assert table["faithfulness"].dtype == "float64"
    assert pd.isna(table.loc[2, "context_recall"])
    assert "ground truth" in table.loc[2, "context_recall_unscored_reason"]
    assert table.loc[0, "contexts"] == RAGAS_ROWS[0]["retrieved_contexts"]


@needs_pandas
def test_a_dataframe_read_from_csv_has_its_lists_parsed(tmp_path):
    import pandas as pd

    path = tmp_path / "ragas.csv"
    pd.DataFrame(RAGAS_ROWS).to_csv(path, index=False)  # lists written as ['...'] text
    frame = pd.read_csv(path)
    assert isinstance(frame.loc[0, "retrieved_contexts"], str)
    judge = EchoJudge()
    ragmeter.evaluate(frame, judge=judge)
    assert judge.samples[0].contexts == RAGAS_ROWS[0]["retrieved_contexts"]


def test_to_pandas_without_pandas_says_how_to_install_it(monkeypatch):
    result = ragmeter.evaluate(RAGAS_ROWS, judge=EchoJudge())
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now fails
    with pytest.raises(ImportError, match="pip install pandas"):
        result.to_pandas()


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([RAGAS_ROWS[0], {"response": "x"}], "data[1]: field 'question': missing question"),
        (
            [{"question": "a?", "contxets": []}],
            "data[0]: field 'contxets': unknown field 'contxets'; did you mean 'contexts'?",
        ),
        ([{"id": "a", "question": "a?"}, {"id": "a", "question": "b?"}], "duplicate id 'a'"),
        ([{"question": "a?", "contexts": [float("nan")]}], "data[0]: field 'contexts.0': NaN"),
        (["just a question?"], "data[0]: a str, not a case"),
        ([], "no cases"),
    ],
)
def test_bad_rows_are_located(rows, message):
    with pytest.raises(CaseFileError) as info:
        ragmeter.evaluate(rows, pipeline=lambda q, h: ([], "x"), judge=EchoJudge())
    assert message in str(info.value)


# --- pipelines and judges -----------------------------------------------------------------


def test_no_pipeline_needs_answers_in_the_data():
    with pytest.raises(ConfigError, match=r"no pipeline, and 1 of 1 cases have no answer \('1'\)"):
        ragmeter.evaluate([{"question": "a?"}], judge=EchoJudge())


def test_a_function_is_the_pipeline():
    def rag(question, history):
        return {"contexts": [f"about: {question}"], "answer": question}

    async def arag(question, history):
        return [f"about: {question}"], question

    for pipeline in (rag, arag):
        judge = EchoJudge()
        result = ragmeter.evaluate([{"question": "a?"}, {"question": "b?"}], pipeline, judge)
        assert [c.answer for c in result.cases] == ["a?", "b?"]
        assert result.cases[0].score("faithfulness") == 1.0
        assert result.run.pipeline.endswith("rag")
        assert not judge.closed  # a judge passed in is the caller's to close
    with pytest.raises(ConfigError, match="pipeline is a int"):
        ragmeter.evaluate([{"question": "a?"}], 3, EchoJudge())


def test_old_positional_form_still_works():
    cases = [Case(id="q1", question="a?", contexts=["a?"], answer="a?")]
    result = ragmeter.evaluate(cases, PrecomputedPipeline(), EchoJudge(), concurrency=2)
    assert result.cases[0].score("context_recall") == 1.0
    assert ragmeter.evaluate_async.__module__ == "ragmeter.api"


def test_judge_builder():
    local = ragmeter.judge("local")
    assert local.fingerprint().kind == "local"
    llm = ragmeter.judge("openai", model="m", base_url="http://127.0.0.1:9/v1", concurrency=2)
    assert llm.fingerprint().kind == "openai" and llm.fingerprint().model == "m"
    asyncio.run(llm.aclose())
    with pytest.raises(ConfigError, match=r"needs a model: ragmeter.judge\('openai'"):
        ragmeter.judge("openai")
    with pytest.raises(ConfigError, match=r"unknown judge 'nope'; available: .*local"):
        ragmeter.judge("nope")
    # the local judge's own options check it (one wording for every door)
    with pytest.raises(ConfigError, match=r"^\[judge\] 'colour': not an option of the local"):
        ragmeter.judge("local", colour="red")


def test_a_judge_named_is_built_and_closed(monkeypatch):
    built: list[EchoJudge] = []

    def fake(config):
        built.append(EchoJudge())
        # the keys are the judge's own, as given: a plugin reads them from the table
        assert config.kind == "echo" and config.table().get("model") is None
        return built[-1]

    monkeypatch.setattr("ragmeter.api.create_judge", fake)
    result = ragmeter.evaluate(RAGAS_ROWS, judge="echo")
    assert result.judge.kind == "echo"
    assert built[0].closed


async def test_aevaluate_and_evaluate_inside_a_running_loop():
    result = await ragmeter.aevaluate(RAGAS_ROWS, judge=EchoJudge(), metrics="faithfulness")
    assert list(result.summary.metrics) == ["faithfulness"]
    again = ragmeter.evaluate(RAGAS_ROWS, judge=EchoJudge())  # a notebook calls it like this
    assert len(again.cases) == 2


def test_every_case_and_reason_reaches_the_csv(tmp_path):
    def rag(question, history):
        if question.startswith("broken"):
            raise RuntimeError("index offline")
        return {"contexts": ["x"], "answer": "x"}

    result = ragmeter.evaluate(
        [{"id": "ok", "question": "fine?"}, {"id": "bad", "question": "broken?"}],
        rag,
        EchoJudge(),
        metrics="faithfulness",
    )
    path = result.to_csv(tmp_path / "scores.csv")
    with path.open(encoding="utf-8", newline="") as handle:
        table = {row["id"]: row for row in csv.DictReader(handle)}
    assert table["ok"]["faithfulness"] == "1.0"
    assert table["bad"]["faithfulness"] == ""
    assert table["bad"]["pipeline_error"].endswith("raised RuntimeError: index offline")
    assert table["bad"]["faithfulness_unscored_reason"].startswith("pipeline error: ")
