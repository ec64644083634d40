"""Make the shared helpers of test/python importable (pytest runs in importlib mode)."""

import atexit
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator

import pytest

sys.path.insert(0, os.path.dirname(__file__))

# CI runs every property test on the same examples (a failure there is reproducible
# and never flaky); locally, hypothesis explores new examples on every run.
from hypothesis import Phase, settings
from long_tests import LONG_TESTS

settings.register_profile(
    "ci", derandomize=True, print_blob=True, phases=[p for p in Phase if p != Phase.explain]
)
settings.register_profile("dev", phases=[p for p in Phase if p != Phase.explain])
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# Compiled objects go to a cache of this test process (and the subprocesses it starts),
# never the user's ~/.cache; no test depends on what an earlier run left behind.
_CACHE = tempfile.mkdtemp(prefix="compiler-cache-tests-")
os.environ["COMPILER_CACHE_DIR"] = _CACHE
os.environ.pop("COMPILER_CACHE", None)
# builds verify the IR every pass made (off by default: a compiler bug, not the user's)
os.environ["COMPILER_VERIFY"] = "1"
# small programs keep the parallel loops the tests check (the default threshold keeps a
# stage under 2^18 iterations on one core: test_auto_schedule's test of it, and lit)
os.environ["COMPILER_PARALLEL_MIN_WORK"] = "0"
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)

# Under xdist (`make test`: a worker per core) a parallel loop's team shares the cores
# with the other worker, and libgomp's team spins at its barrier: a fork then waits a
# scheduler time slice (~8 ms) for the thread it woke, and programs whose every stage is
# parallel (the threshold above) run 10-100x slower. So each worker's parallel loops use
# one thread (the outlined bodies, chunking and GOMP_parallel still run), except in the
# modules that check what threads change: random and property-tested schedules, reductions,
# cache stages, code generation (`MULTI_THREADED`), which fork two. The long run
# (`make test-long`) and a plain `pytest` keep the host's count everywhere.
MULTI_THREADED = {
    "test_codegen", "test_schedules", "test_schedule_properties", "test_schedule_correctness",
    "test_auto_schedule", "test_cache_stages", "test_reductions", "test_dependent_reductions",
    "test_fuse_reduce", "test_scan", "test_profile",
}
_ONE_THREAD_PER_WORKER = (
    not LONG_TESTS and "PYTEST_XDIST_WORKER" in os.environ and "COMPILER_NUM_THREADS" not in os.environ
)
if _ONE_THREAD_PER_WORKER:
    os.environ["COMPILER_NUM_THREADS"] = "1"


@pytest.fixture(autouse=True)
def _threads_of_the_module(request: pytest.FixtureRequest) -> Iterator[None]:
    """Two threads in the modules of `MULTI_THREADED` when workers run on one each."""
    if not _ONE_THREAD_PER_WORKER or request.module.__name__.rsplit(".", 1)[-1] not in MULTI_THREADED:
        yield
        return
    import compiler

    compiler.set_num_threads(2)
    try:
        yield
    finally:
        compiler.set_num_threads(None)


# COMPILER_LONG_TESTS=1 (`make test-long`, the nightly-style run) runs the tests marked
# `long` (the slowest conformance, network and fuzzing runs) and the property tests
# with their long example counts (`long_tests.examples`); `make test` runs the rest,
# each property test on a few examples.


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "long: run only with COMPILER_LONG_TESTS=1 (make test-long)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if LONG_TESTS:
        return
    skip = pytest.mark.skip(reason="a long run: COMPILER_LONG_TESTS=1 (make test-long)")
    for item in items:
        if "long" in item.keywords:
            item.add_marker(skip)
