# The README's Quick start runs these targets. Everything installs into .venv.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
EXTRAS ?= dev,docs,tui,stats,server,rl,openspiel,ray,fast,train

.PHONY: run demo test test-fast lint typecheck pytest bench install docs dist clean catalogues

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The train extra asks for torch>=2.4,<3; the development environment takes the release the trainer is
# checked with (pip takes its CPU build where an index provides one).
TORCH ?= torch==2.13.0

install: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[$(EXTRAS)]" $(if $(findstring train,$(EXTRAS)),"$(TORCH)")

run: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[server,tui]"
	$(BIN)/catsack serve

demo: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	$(BIN)/catsack demo

lint: install
	$(BIN)/ruff check src tests bench docs/conf.py
	$(BIN)/ruff format --check src tests bench docs/conf.py
	$(BIN)/lint-imports

typecheck: install
	$(BIN)/mypy --strict

pytest: install
	$(BIN)/python -m pytest

test: lint typecheck pytest

# The quick check while working: no browsers, no PostgreSQL or Redis (their tests skip: the URLs point
# at a closed port), no tests marked slow, spread over every core (pytest-xdist). The full suite (make
# test) runs them all, one at a time.
FAST_MARKS := not slow and not browser and not services
test-fast: install
	CATSACK_REQUIRE_SERVICES= \
	CATSACK_TEST_POSTGRES_URL=postgresql+psycopg://postgres@127.0.0.1:1/none \
	CATSACK_TEST_REDIS_URL=redis://127.0.0.1:1/0 \
	$(BIN)/python -m pytest -n auto -m "$(FAST_MARKS)"

bench: install
	$(BIN)/python bench/engine.py

# The documentation site: the pages of docs/ (Markdown, MyST) and the API reference (autodoc) into
# build/docs/html, every warning an error. SPHINXOPTS=-n also reports docstring references that do
# not resolve.
SPHINXOPTS ?=
docs: install
	$(BIN)/sphinx-build -E -W --keep-going $(SPHINXOPTS) -b html docs build/docs/html

# The Python side's catalogues (catsack.i18n): the messages of the code into the template, and from it
# into every language's .po; then translate what is new there or marked fuzzy (tests/test_python_catalogues.py
# says what is missing). A new language: pybabel init -D catsack -d src/catsack/locale
# -i src/catsack/locale/catsack.pot -l CODE.
LOCALE := src/catsack/locale
catalogues: install
	$(BIN)/pybabel extract -F babel.cfg -c "i18n:" -s --add-location=file --sort-by-file --no-wrap \
		--project=catsack --copyright-holder="the catsack authors" -o $(LOCALE)/catsack.pot src/catsack
	$(BIN)/pybabel update -D catsack -d $(LOCALE) -i $(LOCALE)/catsack.pot --no-wrap --ignore-obsolete \
		--ignore-pot-creation-date

# The release files: the sdist and the wheel built from it, into dist/.
dist: install
	$(BIN)/python -m build --outdir dist .

clean:
	rm -rf $(VENV) build dist src/*.egg-info .mypy_cache .ruff_cache .pytest_cache .hypothesis
