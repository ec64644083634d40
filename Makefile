# One entry point: `make demo` runs the main job, `make test` runs every test.
# Each target creates (or refreshes) the local .venv from this project's own files.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo generate test test-long lit pytest bench lint typecheck docs fuzz clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(PY) bench/demo.py

# make generate: a small random LLaMA model compiled with its KV cache (prefill and decode,
# compiler.torch.generate) streams its tokens, then checks them against transformers' generate;
# GENERATE_ARGS='--sample --top-k 40 --seed 1' samples (docs/examples/generate_stream.py --help).
GENERATE_ARGS ?=
generate: $(STAMP)
	$(PY) docs/examples/generate_stream.py $(GENERATE_ARGS)

# The three one-core checks run side by side (--output-sync keeps each one's output
# whole), then lit and pytest, which use every core each.
test: $(STAMP)
	$(MAKE) --no-print-directory -j3 --output-sync=target lint typecheck docs
	$(MAKE) --no-print-directory lit pytest

# make test-long (nightly-style): make test with COMPILER_LONG_TESTS=1, which runs the
# tests marked `long` (whole networks and transformer models, the site's links) and
# the property tests and fuzzers with their long example counts
# (test/python/long_tests.py); `make test` runs a few examples of each.
test-long: export COMPILER_LONG_TESTS=1
test-long: test

lit: $(STAMP)
	$(VENV)/bin/lit -sv test/filecheck

pytest: $(STAMP)
	$(VENV)/bin/pytest -n 2 test/python

# make bench BENCH_ARGS=--quick: fewer rounds, smaller workloads (bench/suite.py --help);
# NETWORKS_ARGS=--skip=seed001_1024: bench/networks.py without its longest network (--help)
bench: $(STAMP)
	$(PY) bench/run.py $(BENCH_ARGS)
	$(PY) bench/memory.py
	$(PY) bench/networks.py $(NETWORKS_ARGS)
	$(PY) bench/layers.py
	$(PY) bench/transformers_models.py --inductor
	$(PY) bench/transformers_models.py --dynamic
	$(PY) bench/attention.py
	$(PY) bench/compile_time.py

# make fuzz: the project's fuzzer (test/fuzz/fuzz.py): mutated lit inputs and random te
# programs through compiler-opt (random pipelines) and compiler-run (random --dim), each
# in a child process with a time and memory limit; the bad outcomes (traceback, internal
# error, signal, unlocated diagnostic, timeout) bucketed, one minimized reproducer per
# bucket in fuzz-out/ (summary.json); exit status 1 when a bucket is found. Seeded:
# make fuzz FUZZ_ARGS='--inputs 10000 --seed 7' (python test/fuzz/fuzz.py --help).
# Then the Python API's fuzzer (test/fuzz/api_fuzz.py): random te programs and schedules
# through build() and calls with mutated arguments (API_FUZZ_ARGS='--programs 200').
# CI runs a bounded number of both in test/python/test_fuzz.py (COMPILER_FUZZ_INPUTS=N,
# COMPILER_API_FUZZ_PROGRAMS=N: more).
FUZZ_ARGS ?= --inputs 2000
API_FUZZ_ARGS ?= --programs 50
fuzz: $(STAMP)
	$(PY) test/fuzz/fuzz.py --out fuzz-out $(FUZZ_ARGS)
	$(PY) test/fuzz/api_fuzz.py $(API_FUZZ_ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check compiler tools bench test docs

# mypy over the whole package, configured in pyproject.toml ([tool.mypy]); zero errors.
# test/typing holds assert_type checks of what users see of the public API.
typecheck: $(STAMP)
	$(VENV)/bin/mypy
	$(VENV)/bin/mypy test/typing

# The site (guide, tutorials, generated pass/dialect reference, API reference) in
# docs/_build/html; any warning or broken internal link fails. The stamp tells
# test/python/test_docs.py that this build is clean, so it checks it instead of building again.
docs: $(STAMP)
	rm -f docs/_build/.clean
	$(VENV)/bin/sphinx-build -E -W --keep-going -q -b html docs docs/_build/html
	touch docs/_build/.clean

clean:
	rm -rf $(VENV)
