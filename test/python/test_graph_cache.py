"""The first level of `compiler.build`'s cache: keys made from the Python program
(`compiler.te.fingerprint`, `compiler.graph_cache`), and what a hit gives.

A wrong hit would run another program's code: the keys of programs, schedules and
options that differ in any way must differ, whatever the process-wide counters
(uids) say, and a hit must compute what a compilation computes.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import compiler
from compiler import ops, te
from compiler.graph_cache import graph_key
from compiler.lowering.object_cache import CacheWarning
from compiler.pipeline_options import PipelineOptions
from compiler.te.fingerprint import Unkeyable, fingerprint

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "test" / "fuzz"))

OPTIONS = PipelineOptions(auto_schedule=True).pipeline_fields()  # build's, with no schedule


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("COMPILER_CACHE_DIR", str(folder))
    monkeypatch.delenv("COMPILER_CACHE", raising=False)
    monkeypatch.delenv("COMPILER_TUNING_LOG", raising=False)
    return folder


def key_of(args: list[Any], schedule: Any = None, name: str = "main", **changes: Any) -> str:
    found = graph_key(args, schedule, name, {**OPTIONS, **changes})
    assert found is not None, "the program could not be keyed"
    return found.key


# ---------------------------------------------------------------------------
# Programs: a family of small ones that differ in one thing each
# ---------------------------------------------------------------------------


def chain(**kw: Any) -> list[Any]:
    """Seed 000's chain of convolutions at a small size."""
    size = kw.get("size", 8)
    x = te.placeholder((1, 4, size, size), name="x")
    w1 = te.placeholder((4, 4, 1, 1), name="w1")
    w2 = te.placeholder((4, 4, 3, 3), name="w2")
    y1 = ops.conv2d_nchw(x, w1, padding=0, name="y1")
    y2 = ops.conv2d_nchw(y1, w2, padding=kw.get("padding", 1), name="y2")
    return [x, w1, w2, y2]


def elementwise(**kw: Any) -> list[Any]:
    n = kw.get("n", 16)
    dtype = kw.get("dtype", "float32")
    A = te.placeholder((n,), name=kw.get("a_name", "A"), dtype=dtype, strided=kw.get("strided", False))
    c = kw.get("const", 2.0)
    if kw.get("op", "mul") == "mul":
        B = te.compute((n,), lambda i: A[i] * c, name="B")
    else:
        B = te.compute((n,), lambda i: A[i] + c, name="B")
    return [A, B]


def shifted(**kw: Any) -> list[Any]:
    A = te.placeholder((17,), name="A")
    offset = kw.get("offset", 0)
    B = te.compute((16,), lambda i: A[i + offset] * 2.0, name="B")
    return [A, B]


def symbolic(shared: bool) -> list[Any]:
    """Two inputs over one var `n`, or over two vars both named `n`."""
    n = te.var("n")
    m = n if shared else te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.placeholder((m,), name="B")
    C = te.compute((n,), lambda i: A[i] + B[i], name="C")
    return [A, B, C]


def matmul(**kw: Any) -> tuple[list[Any], Any]:
    """A 32x32 matmul with a schedule chosen by `kw`."""
    A = te.placeholder((32, 32), name="A")
    B = te.placeholder((32, 32), name="B")
    k = te.reduce_axis((0, 32), name="k")
    C = te.compute((32, 32), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    i, j = C.op.axis
    jo, ji = s[C].split(j, factor=kw.get("factor", 8))
    if kw.get("reorder", False):
        s[C].reorder(jo, i, k, ji)
    else:
        s[C].reorder(i, jo, k, ji)
    if kw.get("vectorize", True):
        s[C].vectorize(ji)
    if kw.get("parallel", False):
        s[C].parallel(i)
    return [A, B, C], s


VARIANTS: dict[str, Callable[[], tuple[list[Any], Any, dict[str, Any]]]] = {
    "chain": lambda: (chain(), None, {}),
    "chain size 10": lambda: (chain(size=10), None, {}),
    "chain padding 0": lambda: (chain(padding=0), None, {}),
    "mul 2.0": lambda: (elementwise(), None, {}),
    "mul 3.0": lambda: (elementwise(const=3.0), None, {}),
    "mul -0.0": lambda: (elementwise(const=-0.0), None, {}),
    "mul 0.0": lambda: (elementwise(const=0.0), None, {}),
    "mul 2 (int)": lambda: (elementwise(const=2), None, {}),
    "add 2.0": lambda: (elementwise(op="add"), None, {}),
    "mul n=17": lambda: (elementwise(n=17), None, {}),
    "mul float64": lambda: (elementwise(dtype="float64"), None, {}),
    "mul named X": lambda: (elementwise(a_name="X"), None, {}),
    "mul strided": lambda: (elementwise(strided=True), None, {}),
    "shift 0": lambda: (shifted(), None, {}),
    "shift 1": lambda: (shifted(offset=1), None, {}),
    "one var": lambda: (symbolic(True), None, {}),
    "two vars": lambda: (symbolic(False), None, {}),
    "matmul": lambda: (*matmul(), {}),
    "matmul factor 4": lambda: (*matmul(factor=4), {}),
    "matmul reordered": lambda: (*matmul(reorder=True), {}),
    "matmul not vectorized": lambda: (*matmul(vectorize=False), {}),
    "matmul parallel": lambda: (*matmul(parallel=True), {}),
    "matmul unscheduled": lambda: (matmul()[0], None, {}),
    "mul check_bounds": lambda: (elementwise(), None, {"check_bounds": True}),
    "mul no tighten": lambda: (elementwise(), None, {"tighten_pad_regions": False}),
    "mul no auto_schedule": lambda: (elementwise(), None, {"auto_schedule": False}),
    "mul no loop_partition": lambda: (elementwise(), None, {"loop_partition": False}),
    "mul fast_math": lambda: (elementwise(), None, {"fast_math": True}),
    "mul no fp_contract": lambda: (elementwise(), None, {"fp_contract": False}),
    "mul named f": lambda: (elementwise(), None, {"name": "f"}),
}


def variant_key(label: str) -> str:
    args, schedule, changes = VARIANTS[label]()
    name = changes.pop("name", "main")
    return key_of(args, schedule, name, **changes)


def test_the_same_program_made_twice_has_one_key() -> None:
    # the second construction has other uids (process-wide counters)
    for label in VARIANTS:
        assert variant_key(label) == variant_key(label), label


def test_programs_schedules_and_options_that_differ_have_different_keys() -> None:
    keys = {label: variant_key(label) for label in VARIANTS}
    assert len(set(keys.values())) == len(keys), keys


def test_a_deep_program_is_keyed() -> None:
    # a network is a chain of thousands of stages: the text is written without recursion
    def deep(scale: float) -> list[Any]:
        A = te.placeholder((4,), name="A")
        x = A
        for k in range(3000):
            x = te.compute((4,), lambda i, x=x: x[i] + 1.0, name=f"s{k}")
        return [A, te.compute((4,), lambda i, x=x: x[i] * scale, name="out")]

    assert key_of(deep(2.0)) == key_of(deep(2.0))
    assert key_of(deep(2.0)) != key_of(deep(3.0))


def test_a_callable_makes_a_program_unkeyable() -> None:
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] + 1.0, name="B")
    B.op.__dict__["hook"] = lambda: None  # nothing the text can write
    with pytest.raises(Unkeyable):
        fingerprint([[A, B]])
    assert graph_key([A, B], None, "main", OPTIONS) is None


def test_a_numpy_scalar_makes_a_program_unkeyable() -> None:
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] + 1.0, name="B")
    B.op.__dict__["scale"] = np.float32(2.0)
    with pytest.raises(Unkeyable):
        fingerprint([[A, B]])


def test_the_target_and_versions_are_in_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    from compiler.lowering import engine, object_cache

    args = elementwise()
    before = key_of(args)
    monkeypatch.setattr(engine, "target_description", lambda opt=3: {"cpu": "another"})
    assert key_of(args) != before
    monkeypatch.undo()
    assert key_of(args) == before
    monkeypatch.setattr(object_cache, "versions", lambda: {"xdsl-tensor-compiler": "9.9"})
    assert key_of(args) != before
    monkeypatch.undo()
    monkeypatch.setattr(object_cache, "source_digest", lambda: "edited")
    assert key_of(args) != before
    monkeypatch.undo()
    from compiler.runtime import host

    facts = host.host_facts()
    monkeypatch.setattr(host, "host_facts", lambda: {**facts, "l2": "1"})  # the auto-scheduler reads it
    assert key_of(args) != before


# ---------------------------------------------------------------------------
# Random programs: one key never names two te modules
# ---------------------------------------------------------------------------


def module_text(args: list[Any], schedule: Any, options: dict[str, Any]) -> str:
    from compiler.te.to_ir import build_module

    module, _ = build_module(args, "main", schedule, verify=False)
    return f"{module}\n{json.dumps(options, sort_keys=True)}"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(0, 2**31), min_size=2, max_size=6))
def test_random_programs_equal_keys_mean_equal_modules(seeds: list[int]) -> None:
    import api_fuzz

    texts: dict[str, str] = {}
    for seed in seeds:
        # the same seed twice in a row: the same program (with other uids)
        for _ in range(2):
            program = api_fuzz.random_program(random.Random(seed))
            if program is None:
                continue
            options = {**OPTIONS, "auto_schedule": False, **program.options}
            key = key_of(program.args, program.schedule, **options)
            text = module_text(program.args, program.schedule, options)
            assert texts.setdefault(key, text) == text, program.description


# ---------------------------------------------------------------------------
# Hits
# ---------------------------------------------------------------------------


def test_a_hit_computes_the_right_numbers_and_runs_no_pass(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from compiler.driver import (
        cache as api,  # where a hit would run the passes, for the patch below
    )

    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal([int(d) for d in t.shape]).astype(np.float32) for t in chain()]
    cold = compiler.build(chain())
    assert not cold.from_cache
    expected = arrays[-1].copy()
    cold(*arrays[:-1], expected)

    def boom(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a pass ran although the program's entry was cached")

    with monkeypatch.context() as m:
        m.setattr(api, "lower_to_flat", boom)
        m.setattr("compiler.te.to_ir.build_module", boom)
        warm = compiler.build(chain())
        assert warm.from_cache
        got = np.full_like(expected, np.nan)
        warm(*arrays[:-1], got)
    np.testing.assert_array_equal(got, expected)
    assert warm.specs == cold.specs
    assert warm.memory == cold.memory
    assert warm.flat_ir == cold.flat_ir  # made from the program when asked for
    assert warm.loop_ir == cold.loop_ir


def test_a_different_program_does_not_hit(cache: Path) -> None:
    a = np.arange(16, dtype=np.float32)
    b = np.empty_like(a)
    compiler.build(elementwise(const=2.0))(a, b)
    np.testing.assert_array_equal(b, a * 2)
    f = compiler.build(elementwise(const=3.0))
    assert not f.from_cache
    f(a, b)
    np.testing.assert_array_equal(b, a * 3)
    g = compiler.build(elementwise(op="add"))
    assert not g.from_cache
    g(a, b)
    np.testing.assert_array_equal(b, a + 2)
    h = compiler.build(elementwise(const=2.0), fast_math=True)
    assert not h.from_cache


def test_a_hit_profiles_and_exports(cache: Path, tmp_path: Path) -> None:
    args, s = matmul()
    compiler.build(s, args)
    args, s = matmul()
    f = compiler.build(s, args)
    assert f.from_cache
    a = np.ones((32, 32), np.float32)
    c = np.empty_like(a)
    prof = f.profile(a, a, c, repeat=2)
    assert [r.name for r in prof.rows] == ["C"]
    np.testing.assert_allclose(c, a @ a)
    lib = compiler.load_module(f.export_library(tmp_path / "mm.so"))
    c[:] = 0
    lib(a, a, c)
    np.testing.assert_allclose(c, a @ a)


def test_a_hit_of_a_program_changed_since_names_the_change(cache: Path) -> None:
    args, s = matmul()
    compiler.build(s, args)
    args, s = matmul()
    f = compiler.build(s, args)
    assert f.from_cache
    s[args[2]].parallel(args[2].op.axis[0])  # after the build: the IR would be another program's
    with pytest.raises(compiler.IRError, match="changed after build"):
        _ = f.flat_ir
    a = np.ones((32, 32), np.float32)
    c = np.empty_like(a)
    f(a, a, c)  # the compiled function is the program as it was
    np.testing.assert_allclose(c, a @ a)


def test_an_unreadable_entry_warns_and_compiles_again(cache: Path) -> None:
    compiler.build(elementwise())
    found = graph_key(elementwise(), None, "main", {**OPTIONS, "auto_schedule": True})
    assert found is not None
    path = cache / "graphs" / f"{found.key}.json"
    assert path.exists()
    path.write_bytes(path.read_bytes()[:-3])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f = compiler.build(elementwise())
    assert any(issubclass(w.category, CacheWarning) for w in caught)
    a = np.arange(16, dtype=np.float32)
    b = np.empty_like(a)
    f(a, b)
    np.testing.assert_array_equal(b, a * 2)


def test_a_tuning_log_bypasses_the_graph_level(cache: Path, tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text("")
    found = graph_key(elementwise(), None, "main", OPTIONS)
    assert found is not None
    entry = cache / "graphs" / f"{found.key}.json"
    compiler.build(elementwise(), tuning_log=log)
    assert not entry.exists()
    compiler.build(elementwise())
    assert entry.exists()


WARM_SCRIPT = """
import json, sys
import numpy as np
import compiler
from compiler import ops, te

x = te.placeholder((1, 4, 8, 8), name="x")
w = te.placeholder((4, 4, 3, 3), name="w")
y = ops.conv2d_nchw(x, w, padding=1, name="y")
z = te.compute(y.shape, lambda *i: te.max(y[i], te.const(0.0, "float32")) * float(sys.argv[2]), name="z")
f = compiler.build([x, w, z])
rng = np.random.default_rng(1)
a, b = rng.standard_normal((1, 4, 8, 8)).astype(np.float32), rng.standard_normal((4, 4, 3, 3)).astype(np.float32)
out = np.zeros((1, 4, 8, 8), np.float32)
f(a, b, out)
print(json.dumps({"from_cache": f.from_cache, "xdsl": "xdsl" in sys.modules,
                  "passes": any(m.startswith("compiler.passes") for m in sys.modules), "out": out.ravel().tolist()}))
"""


def test_a_new_process_hits_without_xdsl(cache: Path) -> None:
    runs = []
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for mode, scale in (("cold", "1.5"), ("warm", "1.5"), ("other", "2.5")):
        done = subprocess.run(
            [sys.executable, "-c", WARM_SCRIPT, mode, scale], capture_output=True, text=True, env=env, check=False
        )
        assert done.returncode == 0, done.stderr
        runs.append(json.loads(done.stdout))
    cold, warm, other = runs
    assert (cold["from_cache"], warm["from_cache"], other["from_cache"]) == (False, True, False)
    assert not warm["xdsl"]
    assert not warm["passes"]
    assert warm["out"] == cold["out"]
    np.testing.assert_allclose(np.array(other["out"]), np.array(cold["out"]) / 1.5 * 2.5, rtol=1e-5)


IMPORT_SCRIPT = """
import sys
import compiler, compiler.te, compiler.ops
from compiler import ops, te
x = te.placeholder((1, 4, 8, 8), name="x")
w = te.placeholder((4, 4, 3, 3), name="w")
y = ops.relu(ops.conv2d_nchw(x, w, padding=1, name="y"))
n = te.var("n")
z = ops.matmul(te.placeholder((n, 4), name="a"), te.placeholder((4, 4), name="b"))
s = te.create_schedule(y.op)
s.cache_write(y, "local")
print(sorted({m.split(".")[0] for m in sys.modules} & {"xdsl", "llvmlite", "islpy", "numpy"}))
"""


def test_writing_a_program_imports_no_compiler_ir() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", IMPORT_SCRIPT], capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
