"""LangChain runnables as pipelines, on the fake chat model and embeddings LangChain ships."""

from __future__ import annotations

import json
from operator import itemgetter
from pathlib import Path

import pytest

pytest.importorskip("langchain_core")

from langchain_core.documents import Document
from langchain_core.embeddings.fake import DeterministicFakeEmbedding
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables import RunnableLambda, RunnablePassthrough
from langchain_core.vectorstores import InMemoryVectorStore

import ragmeter
from ragmeter.cases import Case
from ragmeter.frameworks import python_pipeline
from ragmeter.frameworks.langchain import LangChainPipeline

CHUNKS = [
    "Refunds are processed within 14 days of the request.",
    "Deleted notes stay in the trash for 30 days.",
    "退款在申请后 14 天内处理。",
]


def retriever(k: int = 2):
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=32))
    store.add_documents([Document(page_content=c, metadata={"n": i}) for i, c in enumerate(CHUNKS)])
    return store.as_retriever(search_kwargs={"k": k})


def answer_by_question(answers: dict[str, str]) -> RunnableLambda:
    """A fake model answering each question with its own reply, whatever order concurrent cases
    reach it in (FakeListChatModel replies in call order)."""
    return RunnableLambda(lambda prompt: AIMessage(answers[prompt.to_messages()[-1].content]))


def text_chain(answers: list[str] | dict[str, str]):
    """The LCEL pattern of LangChain's RAG tutorial: the retrieved documents never reach the
    output, so only the callback can see them. `answers` by question when the chain serves
    concurrent cases."""
    prompt = ChatPromptTemplate.from_messages([("system", "{context}"), ("human", "{question}")])
    llm = (
        answer_by_question(answers)
        if isinstance(answers, dict)
        else FakeListChatModel(responses=answers)
    )
    return (
        {"context": retriever(), "question": RunnablePassthrough()}
        | prompt
        | llm
        | StrOutputParser()
    )


def dict_chain(answers: list[str]):
    """`create_retrieval_chain`'s shape: {'input', 'chat_history'} in, {'context', 'answer'} out."""
    prompt = ChatPromptTemplate.from_messages(
        [("system", "{context}"), MessagesPlaceholder("chat_history"), ("human", "{input}")]
    )
    llm = FakeListChatModel(responses=answers)
    return RunnablePassthrough.assign(context=itemgetter("input") | retriever()).assign(
        answer=prompt | llm | StrOutputParser()
    )


CASE = Case(id="r", question="How long do refunds take?", ground_truth="Within 14 days.")


async def test_a_text_chain_gives_its_answer_and_the_documents_its_retriever_returned():
    pipeline = python_pipeline(text_chain(["Refunds take 14 days."]), name="rag")
    assert isinstance(pipeline, LangChainPipeline)
    output = await pipeline.run(CASE)
    assert output.answer == "Refunds take 14 days."
    expected = [d.page_content for d in retriever().invoke(CASE.question)]
    assert output.contexts == expected and len(expected) == 2
    assert output.metadata["sources"] == [{"n": CHUNKS.index(c)} for c in expected]


async def test_a_dict_chain_gets_its_input_key_and_the_case_history():
    chain = dict_chain(["Still 14 days."])
    pipeline = LangChainPipeline(chain, input_key="input", history_key="chat_history")
    case = Case(
        id="m",
        question="And in China?",
        ground_truth="14 days.",
        history=[
            {"role": "user", "content": "How long do refunds take?"},
            {"role": "assistant", "content": "14 days."},
        ],
    )
    output = await pipeline.run(case)
    assert output.answer == "Still 14 days." and len(output.contexts) == 2


async def test_a_multi_turn_case_for_a_chain_without_history_is_a_pipeline_error():
    case = Case(**{**CASE.model_dump(), "history": [{"role": "user", "content": "Hi"}]})
    with pytest.raises(ragmeter.PipelineError, match="takes no history"):
        await LangChainPipeline(text_chain(["x"])).run(case)


async def test_a_chain_that_raises_names_the_case():
    def broken(_: object) -> str:
        raise RuntimeError("index offline")

    chain = retriever() | broken
    with pytest.raises(ragmeter.PipelineError, match=r"case 'r'.*RuntimeError: index offline"):
        await LangChainPipeline(chain).run(CASE)


def test_evaluate_takes_a_chain_and_judges_its_retrieval():
    cases = [
        CASE.model_dump(),
        {
            "id": "t",
            "question": "How long do deleted notes stay in the trash?",
            "ground_truth": "30 days.",
        },
    ]
    answers = {CASE.question: "Refunds take 14 days.", cases[1]["question"]: "30 days."}
    run = ragmeter.evaluate(cases, text_chain(answers), "local")
    assert [c.answer for c in run.cases] == ["Refunds take 14 days.", "30 days."]
    assert all(len(c.contexts) == 2 for c in run.cases)
    assert run.summary.metrics["context_recall"].n_scored == 2


def run_module_pipeline(tmp_path: Path, monkeypatch, module: str, body: str, name: str) -> dict:
    """`ragmeter run --pipeline module:name` on CASE, `module` written with `body` (which may
    import this file's chains); the stored results."""
    from typer.testing import CliRunner

    from ragmeter.cli import app

    (tmp_path / f"{module}.py").write_text(
        f"import sys\nsys.path.insert(0, {str(Path(__file__).parent)!r})\n" + body,
        encoding="utf-8",
    )
    cases = tmp_path / "cases.jsonl"
    cases.write_text(json.dumps(CASE.model_dump()) + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "out"
    args = ["run", "--cases", str(cases), "--pipeline", f"{module}:{name}", "--out", str(out)]
    result = CliRunner().invoke(app, [*args, "--no-progress"])
    assert result.exit_code == 0, result.output
    return json.loads((out / "results.json").read_text(encoding="utf-8"))


def test_ragmeter_run_loads_a_chain_by_module_and_name(tmp_path: Path, monkeypatch):
    body = "from test_langchain import text_chain\nchain = text_chain(['Refunds take 14 days.'])\n"
    stored = run_module_pipeline(tmp_path, monkeypatch, "my_lc_chain", body, "chain")
    assert stored["run"]["pipeline"] == "my_lc_chain:chain"
    assert stored["cases"][0]["answer"] == "Refunds take 14 days."
    assert len(stored["cases"][0]["contexts"]) == 2


def test_a_configured_adapter_object_is_a_pipeline_for_ragmeter_run(tmp_path: Path, monkeypatch):
    body = (
        "from test_langchain import dict_chain\n"
        "from ragmeter.frameworks.langchain import LangChainPipeline\n"
        "pipeline = LangChainPipeline(dict_chain(['14 days.']), input_key='input')\n"
    )
    stored = run_module_pipeline(tmp_path, monkeypatch, "my_lc_dict_chain", body, "pipeline")
    assert stored["cases"][0]["answer"] == "14 days."
