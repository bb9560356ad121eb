from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ragmeter.judges.base import Sample
from ragmeter.judges.local import LocalJudge

EN_CONTEXTS = [
    "Refund policy. Customers can request a refund within 30 days of purchase. "
    "Refunds are processed within 14 days of the request.",
    "Our office is open Monday to Friday, 9am to 5pm. The cafeteria serves lunch from noon.",
    "Exchanges are free of charge. Items must be unused and in their original packaging.",
]
ZH_CONTEXTS = [
    "退款政策：顾客可以在购买后30天内申请退款。退款会在申请后14天内处理完毕。",
    "办公室周一至周五上午9点到下午5点开放。食堂中午供应午餐。",
    "换货免费，但商品必须未使用且包装完好。",
]


def en(answer: str, **kwargs: Any) -> Sample:
    fields: dict[str, Any] = {
        "case_id": "en",
        "question": "How long do refunds take to process?",
        "ground_truth": "Refunds are processed within 14 days of the request.",
        "contexts": EN_CONTEXTS,
        "answer": answer,
    }
    fields.update(kwargs)
    return Sample(**fields)


def zh(answer: str, **kwargs: Any) -> Sample:
    fields: dict[str, Any] = {
        "case_id": "zh",
        "lang": "zh",
        "question": "退款需要多久处理？",
        "ground_truth": "退款会在申请后14天内处理完毕。",
        "contexts": ZH_CONTEXTS,
        "answer": answer,
    }
    fields.update(kwargs)
    return Sample(**fields)


def _make(lang: str, answer: str, **kwargs: Any) -> Sample:
    return (zh if lang == "zh" else en)(answer, **kwargs)


@pytest.fixture
def make() -> Callable[..., Sample]:
    """Build a sample: `make("en" | "zh", answer, **overrides)`."""
    return _make


@pytest.fixture(scope="session")
def minilm() -> Any:
    from ragmeter.judges.local.vectors import load_embedder

    return load_embedder()


@pytest.fixture(params=["lexical", "minilm"])
def judge(request: pytest.FixtureRequest, minilm: Any) -> LocalJudge:
    """The local judge with and without sentence embeddings."""
    if request.param == "minilm":
        if minilm is None:
            pytest.skip("MiniLM embeddings are not installed")
        return LocalJudge(embedder=minilm)
    return LocalJudge(embedder=None)
