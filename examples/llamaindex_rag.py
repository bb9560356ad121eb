"""Evaluate a LlamaIndex query engine with ragmeter, offline.

    pip install 'ragmeter[llamaindex]'
    python examples/llamaindex_rag.py
    ragmeter run --cases examples/frameworks_cases.jsonl --pipeline examples.llamaindex_rag:engine

The index is built with the mock LLM and embeddings LlamaIndex ships, so nothing leaves this
machine (the mock LLM answers with its prompt: the scores say so). Put your own models in their
place; the contexts are the response's source nodes. A chat engine
(`index.as_chat_engine()`) works the same way and gets multi-turn cases' history.
"""

from __future__ import annotations

from llama_index.core import Document, VectorStoreIndex
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.llms import MockLLM

import ragmeter

DOCS = [
    "Refunds are processed within 14 days of the request.",
    "Deleted notes stay in the trash for 30 days, then they are removed for good.",
    "The Pro plan costs 8 dollars a month per member.",
]

index = VectorStoreIndex.from_documents(
    [Document(text=text) for text in DOCS], embed_model=MockEmbedding(embed_dim=16)
)
engine = index.as_query_engine(llm=MockLLM(max_tokens=40), similarity_top_k=2)

if __name__ == "__main__":
    cases = [
        {"id": "refunds", "question": "How long do refunds take?", "ground_truth": "14 days."},
        {
            "id": "trash",
            "question": "How long do deleted notes stay in the trash?",
            "ground_truth": "30 days.",
        },
    ]
    run = ragmeter.evaluate(cases, engine, judge="local", concurrency=1)
    for case in run.cases:
        print(case.id, "|", len(case.contexts), "contexts |", (case.answer or "")[:60], "...")
    for name, metric in run.summary.metrics.items():
        print(f"{name:18} {metric.mean if metric.mean is None else round(metric.mean, 2)}")
