from __future__ import annotations

import pytest

from ragmeter.run.limits import DEFAULT_MAX_TEXT_CHARS, ENV_VAR, max_text_chars, oversize_reason


@pytest.fixture(autouse=True)
def no_env_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)


def test_texts_within_the_limit_pass() -> None:
    at_limit = "x" * DEFAULT_MAX_TEXT_CHARS
    half = at_limit[: DEFAULT_MAX_TEXT_CHARS // 2]
    assert oversize_reason("How long?", at_limit, "14 days.", [half, half]) is None
    assert oversize_reason() is None


def test_an_answer_over_the_limit_is_named_with_its_size() -> None:
    reason = oversize_reason(answer="x" * 2_500_000)
    assert reason == (
        "answer is 2.5M characters, above the 2M-character limit "
        "(set RAGMETER_MAX_TEXT_CHARS to raise it)"
    )


def test_contexts_count_together_and_every_text_over_is_named() -> None:
    reason = oversize_reason(
        question="q" * 2_100_000, ground_truth="g" * 10, contexts=["c" * 1_200_000] * 2
    )
    assert reason is not None
    assert reason.startswith("question is 2.1M characters, contexts are 2.4M characters, above")
    assert "ground truth" not in reason and "answer" not in reason


def test_the_environment_variable_raises_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, "8_000_000")
    assert max_text_chars() == 8_000_000
    assert oversize_reason(answer="x" * 2_500_000) is None
    assert oversize_reason(answer="x" * 8_000_001) is not None


def test_the_parameter_wins_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, "5")
    reason = oversize_reason(answer="x" * 12, limit=10)
    assert reason == (
        "answer is 12 characters, above the 10-character limit "
        "(set RAGMETER_MAX_TEXT_CHARS to raise it)"
    )
    assert oversize_reason(answer="x" * 12, limit=12) is None


@pytest.mark.parametrize("raw", ["lots", "-5", "1.5"])
def test_a_malformed_environment_limit_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, raw: str
) -> None:
    monkeypatch.setenv(ENV_VAR, raw)
    with pytest.raises(ValueError, match=ENV_VAR):
        max_text_chars()


def test_a_non_positive_limit_is_an_error() -> None:
    with pytest.raises(ValueError, match="positive"):
        oversize_reason(answer="x", limit=0)
