"""Evaluate a LangChain RAG chain with ragmeter, offline.

    pip install 'ragmeter[langchain]'
    python examples/langchain_rag.py
    ragmeter run --cases examples/frameworks_cases.jsonl --pipeline examples.langchain_rag:chain

The chain is LangChain's tutorial pattern (retriever → prompt → chat model → text); the chat
model and embeddings are the fakes LangChain ships, so nothing leaves this machine. Put your
own model and vector store in their place (the fake embeddings retrieve at random, and the
scores show it): ragmeter reads the retrieved documents from the chain's retriever, whatever
the chain returns.
"""

from __future__ import annotations

from langchain_core.documents import Document
from langchain_core.embeddings.fake import DeterministicFakeEmbedding
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnablePassthrough
from langchain_core.vectorstores import InMemoryVectorStore

import ragmeter

DOCS = [
    "Refunds are processed within 14 days of the request.",
    "Deleted notes stay in the trash for 30 days, then they are removed for good.",
    "The Pro plan costs 8 dollars a month per member.",
]

store = InMemoryVectorStore(DeterministicFakeEmbedding(size=64))
store.add_documents([Document(page_content=text) for text in DOCS])
prompt = ChatPromptTemplate.from_messages(
    [("system", "Answer from this context:\n{context}"), ("human", "{question}")]
)
llm = FakeListChatModel(responses=["Refunds take 14 days.", "They stay in the trash for 30 days."])
chain = (
    {"context": store.as_retriever(search_kwargs={"k": 2}), "question": RunnablePassthrough()}
    | prompt
    | llm
    | StrOutputParser()
)

if __name__ == "__main__":
    cases = [
        {"id": "refunds", "question": "How long do refunds take?", "ground_truth": "14 days."},
        {
            "id": "trash",
            "question": "How long do deleted notes stay in the trash?",
            "ground_truth": "30 days.",
        },
    ]
    run = ragmeter.evaluate(cases, chain, judge="local", concurrency=1)
    for case in run.cases:
        print(case.id, "|", case.answer, "|", len(case.contexts), "contexts")
    for name, metric in run.summary.metrics.items():
        print(f"{name:18} {metric.mean if metric.mean is None else round(metric.mean, 2)}")
