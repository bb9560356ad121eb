"""LlamaIndex query and chat engines as pipelines, on the mock LLM and embeddings it ships."""

from __future__ import annotations

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core import Document, VectorStoreIndex
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.llms import MockLLM

import ragmeter
from ragmeter.cases import Case
from ragmeter.frameworks import python_pipeline
from ragmeter.frameworks.llamaindex import LlamaIndexPipeline

CHUNKS = [
    "Refunds are processed within 14 days of the request.",
    "Deleted notes stay in the trash for 30 days.",
]
CASE = Case(id="r", question="How long do refunds take?", ground_truth="Within 14 days.")
MULTI = Case(
    id="m",
    question="And in China?",
    ground_truth="14 days.",
    history=[
        {"role": "user", "content": "How long do refunds take?"},
        {"role": "assistant", "content": "Fourteen days."},
    ],
)


@pytest.fixture(scope="module")
def index() -> VectorStoreIndex:
    documents = [Document(text=chunk) for chunk in CHUNKS]
    return VectorStoreIndex.from_documents(documents, embed_model=MockEmbedding(embed_dim=8))


async def test_a_query_engine_gives_its_response_and_source_nodes(index):
    engine = index.as_query_engine(llm=MockLLM(), similarity_top_k=2)
    pipeline = python_pipeline(engine)
    assert isinstance(pipeline, LlamaIndexPipeline)
    output = await pipeline.run(CASE)
    response = await engine.aquery(CASE.question)
    assert output.answer == response.response
    assert sorted(output.contexts) == sorted(CHUNKS)
    assert output.contexts == [n.node.get_content() for n in response.source_nodes]
    assert len(output.metadata["scores"]) == 2


async def test_a_chat_engine_gets_the_case_history(index):
    engine = index.as_chat_engine(llm=MockLLM(), chat_mode="context", similarity_top_k=1)
    output = await LlamaIndexPipeline(engine).run(MULTI)
    # MockLLM answers with the prompt it was given: the earlier turns must be in it
    assert "Fourteen days." in output.answer and "And in China?" in output.answer
    assert len(output.contexts) == 1 and output.contexts[0] in CHUNKS


async def test_a_query_engine_cannot_take_a_multi_turn_case(index):
    engine = index.as_query_engine(llm=MockLLM())
    with pytest.raises(ragmeter.PipelineError, match="query engine takes none"):
        await LlamaIndexPipeline(engine).run(MULTI)


def test_evaluate_takes_a_query_engine(index):
    engine = index.as_query_engine(llm=MockLLM(), similarity_top_k=1)
    run = ragmeter.evaluate([CASE.model_dump()], engine, "local", metrics="context_recall")
    assert len(run.cases[0].contexts) == 1
    assert run.summary.metrics["context_recall"].n_scored == 1


def test_an_object_of_no_framework_that_cannot_be_called_is_refused():
    with pytest.raises(ragmeter.ConfigError, match="not callable"):
        python_pipeline(42, name="my_rag:answer")
