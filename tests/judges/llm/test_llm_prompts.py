"""The verify prompt's examples (bench/llm_agreement.py measured them with the 1.5B model)."""

from __future__ import annotations

import pytest

from ragmeter.judges.llm.prompts import load_prompt


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_verify_prompt_shows_one_supported_and_one_unsupported_claim_in_prose(lang):
    text = load_prompt("faithfulness_verify", lang)
    example = next(line for line in text.splitlines() if "9" in line and "supported" in line)
    # balanced: one supported claim, one not; no JSON a small model could copy into its reply
    assert example.count("is supported" if lang == "en" else "为 supported") == 1
    assert example.count("not_verifiable") == 1
    assert "{" not in example and "chunk_index" not in example
    # the examples come before the case's data, so the reply format is the last thing read
    lines = text.splitlines()
    assert lines.index(example) < lines.index("$contexts")
