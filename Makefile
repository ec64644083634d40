# One entry point: `make demo` runs the main job, `make test` runs every test.
# Each target creates (or refreshes) the local .venv from this project's own files.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test lit pytest bench lint clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(PY) bench/demo.py

test: lint lit pytest

lit: $(STAMP)
	$(VENV)/bin/lit -sv test/filecheck

pytest: $(STAMP)
	$(VENV)/bin/pytest -n 2 test/python

# make bench BENCH_ARGS=--quick: fewer rounds, smaller workloads (bench/suite.py --help)
bench: $(STAMP)
	$(PY) bench/run.py $(BENCH_ARGS)
	$(PY) bench/memory.py

lint: $(STAMP)
	$(VENV)/bin/ruff check compiler tools bench test

clean:
	rm -rf $(VENV)
