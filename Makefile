# The README's Quick start runs these targets. Everything installs into .venv.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
EXTRAS ?= dev,tui,stats,server,rl,openspiel,ray,fast,train

.PHONY: run demo test lint typecheck pytest bench install clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

install: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[$(EXTRAS)]"

run: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[server,tui]"
	$(BIN)/catsack serve

demo: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	$(BIN)/catsack demo

lint: install
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: install
	$(BIN)/mypy --strict

pytest: install
	$(BIN)/python -m pytest

test: lint typecheck pytest

bench: install
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) build dist src/*.egg-info .mypy_cache .ruff_cache .pytest_cache .hypothesis
