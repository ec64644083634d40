"""Code generation of schedules: explicit vectors, tails, gathers, parallel bodies,
alias groups (lower-to-llvm's aliasing.py, vectorize.py, parallel.py), checked on the
numbers and on the optimized LLVM IR."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from long_tests import examples
from references import conv2d_reference

import compiler
from compiler import ops, te
from compiler.lowering.parallel import openmp_library
from compiler.runtime.host import host_vector_bits

sys.path.append(os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
from seed_chain import seed000_chain

LANES = host_vector_bits() // 32  # float32 lanes of the host's vectors


def _rand(*shape: int) -> np.ndarray:
    return np.random.default_rng(0).standard_normal(shape).astype(np.float32)


def _function_body(ir: str, name: str) -> str:
    match = re.search(rf"define [^@]*@{name}\(.*?\n}}\n", ir, re.S)
    assert match is not None, f"no function @{name} in the optimized IR"
    return match.group(0)


def _relu_chain(n: int | te.Var) -> tuple[te.Tensor, te.Tensor, te.Tensor]:
    x = te.placeholder((n,), name="x")
    y = te.compute((n,), lambda i: x[i] * 2.0 + 1.0, name="y")
    out = ops.relu(y, name="out")
    return x, y, out


@pytest.mark.parametrize("n", [LANES * 4, LANES * 4 + 3, 3])
def test_vectorized_loop_with_a_static_tail(n: int) -> None:
    x, y, out = _relu_chain(n)
    s = te.create_schedule(out.op)
    s[y].compute_inline()
    s[out].vectorize(out.op.axis[0])
    f = compiler.build(s, [x, out])
    a, b = _rand(n), np.zeros(n, np.float32)
    f(a, b)
    np.testing.assert_array_equal(b, np.maximum(a * np.float32(2) + np.float32(1), 0))
    width = LANES
    while width > n:
        width //= 2
    assert f"vector<{width}xf32>" in f.llvm_dialect_ir
    if n % width:  # the scalar tail: a loop of scalar loads after the vector loop
        assert re.search(r"llvm.load %\S+ .*: !llvm.ptr -> f32", f.llvm_dialect_ir)


def test_vectorized_loop_over_a_symbolic_extent() -> None:
    n = te.var("n")
    x, _, out = _relu_chain(n)
    s = te.create_schedule(out.op)
    s[out].vectorize(out.op.axis[0])
    f = compiler.build(s, [x, out])
    assert f"vector<{LANES}xf32>" in f.llvm_dialect_ir
    for size in (0, 1, LANES - 1, LANES, 2 * LANES + 5):
        a, b = _rand(size), np.zeros(size, np.float32)
        f(a, b)
        np.testing.assert_array_equal(b, np.maximum(a * np.float32(2) + np.float32(1), 0))


def test_vectorized_transpose_gathers() -> None:
    """B[i, j] = A[j, i] vectorized over j: stride-n loads, gathered into vectors."""
    n = 2 * LANES + 3
    A = te.placeholder((n, n), name="A")
    B = te.compute((n, n), lambda i, j: A[j, i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    s[B].vectorize(B.op.axis[1])
    f = compiler.build(s, [A, B])
    a, b = _rand(n, n), np.zeros((n, n), np.float32)
    f(a, b)
    np.testing.assert_array_equal(b, a.T + np.float32(1))
    assert f"vector<{LANES}xf32>" in f.llvm_dialect_ir
    assert "llvm.insertelement" in f.llvm_dialect_ir


def _matmul(n: int, *, parallel: bool) -> tuple[compiler.Function, np.ndarray, np.ndarray]:
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    C = ops.matmul(A, B, name="C")
    s = te.create_schedule(C.op)
    i, j = C.op.axis
    (k,) = C.op.reduce_axis
    io, ii = s[C].split(i, factor=4)
    jo, ji = s[C].split(j, factor=LANES)
    s[C].reorder(jo, io, k, ii, ji)
    s[C].unroll(ii)
    s[C].vectorize(ji)
    if parallel:
        s[C].parallel(jo)
    return compiler.build(s, [A, B, C]), _rand(n, n), _rand(n, n) + 1


def test_vectorized_matmul_tile_is_vector_fmul_fadd_in_registers() -> None:
    f, a, b = _matmul(4 * LANES, parallel=False)
    c = np.zeros_like(a)
    f(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-4)
    body = _function_body(f.llvm_ir, "main_compute")
    assert f"fadd contract <{LANES} x float>" in body
    assert f"fmul contract <{LANES} x float>" in body
    # the accumulators stay in registers across k: phis of vectors, not loads per k
    assert re.search(rf"phi <{LANES} x float>", body)


@pytest.mark.skipif(openmp_library() is None, reason="no libgomp: parallel loops run serially")
def test_parallel_body_keeps_alias_facts_and_vectors() -> None:
    """The outlined body reloads its pointers from a context array; the alias groups
    keep LLVM from scalarizing it (it did: matmul 512 ran 10x slower with `parallel`)."""
    f, a, b = _matmul(8 * LANES, parallel=True)
    c = np.zeros_like(a)
    f(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-4)
    ir = f.llvm_ir
    bodies = re.findall(r"define [^@]*@main_compute_parallel\d+\(.*?\n}\n", ir, re.S)
    hot = [body for body in bodies if "fmul" in body]
    assert len(hot) == 1
    assert f"fadd contract <{LANES} x float>" in hot[0]
    assert re.search(rf"phi <{LANES} x float>", hot[0])
    assert "!noalias" in hot[0]


@pytest.mark.skipif(openmp_library() is None, reason="no libgomp: parallel loops run serially")
def test_layers_of_one_shape_share_one_outlined_body() -> None:
    """Seed 000's chain, small: the two 3x3 convs' parallel bodies are one function
    (compiled once), and each layer still reads and writes its own buffers."""
    inputs, y3 = seed000_chain(size=12, channels=16)
    f = compiler.build([*inputs, y3])
    rng = np.random.default_rng(0)
    a, k0, k1, k2 = (rng.standard_normal(t.shape).astype(np.float32) for t in inputs)
    out = np.zeros((1, 16, 12, 12), np.float32)
    f(a, k0, k1, k2, out)
    expected = a
    for k, pad in ((k0, 0), (k1, 1), (k2, 1)):
        expected = conv2d_reference(expected.astype(np.float64), k.astype(np.float64), stride=1, pad=pad)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5 * np.abs(expected).max())
    forks = re.findall(r"addressof @(\w+_parallel\d+)", f.llvm_dialect_ir)
    defined = re.findall(r"llvm\.func @(\w+_parallel\d+)\(", f.llvm_dialect_ir)
    assert sorted(set(forks)) == sorted(defined)
    # per layer (conv2d_nchw's fast form): its weight blocked, its input in NHWC (a
    # transpose, or a pad the transpose is inlined into) and the conv; then the result
    # back in NCHW
    assert len(forks) == 10
    assert len(defined) < len(forks)


def test_arena_views_get_distinct_alias_scopes() -> None:
    """Two intermediates in one arena, disjoint: LLVM is told their accesses don't alias."""
    n = 64
    x = te.placeholder((n,), name="x")
    y1 = te.compute((n,), lambda i: x[i] + 1.0, name="y1")
    y2 = te.compute((n,), lambda i: y1[i] * 2.0, name="y2")
    y3 = te.compute((n,), lambda i: y2[i] + y1[i], name="y3")
    s = te.create_schedule(y3.op)
    f = compiler.build(s, [x, y3])
    a, b = _rand(n), np.zeros(n, np.float32)
    f(a, b)
    np.testing.assert_allclose(b, (a + 1) * 2 + (a + 1), rtol=1e-6)
    scopes = set(re.findall(r'alias_scopes = \["main_compute/([^"]+)"\]', f.llvm_dialect_ir))
    assert {"x", "y3"} <= scopes
    assert len([g for g in scopes if g.startswith("arena")]) == 2  # y1 and y2 apart


def _row_sums(fast_math: bool) -> tuple[compiler.Function, np.ndarray, np.ndarray]:
    n = 16 * LANES + 3
    A = te.placeholder((4, n), name="A")
    k = te.reduce_axis((0, n), name="k")
    S = te.compute((4,), lambda i: te.sum(A[i, k], axis=k), name="S")
    f = compiler.build(te.create_schedule(S.op), [A, S], fast_math=fast_math)
    a, out = _rand(4, n) * np.float32(1e3), np.zeros(4, np.float32)
    f(a, out)
    return f, a, out


def test_float_reductions_stay_sequential_without_fast_math() -> None:
    f, a, out = _row_sums(fast_math=False)
    expected = np.zeros(4, np.float32)
    for j in range(a.shape[1]):  # the sum in program order, rounded at every step
        expected += a[:, j]
    np.testing.assert_array_equal(out, expected)
    assert "reassoc" not in f.llvm_ir
    assert not re.search(r"fadd (contract )?<\d+ x float>", _function_body(f.llvm_ir, "main_compute"))


def test_fast_math_reassociates_reductions_into_vectors() -> None:
    f, a, out = _row_sums(fast_math=True)
    np.testing.assert_allclose(out, a.astype(np.float64).sum(axis=1), rtol=1e-4, atol=1e-2)
    body = _function_body(f.llvm_ir, "main_compute")
    assert re.search(r"fadd reassoc contract <\d+ x float>", body)


def _host_has_fma() -> bool:
    import llvmlite.binding as llvm

    return bool(llvm.get_host_cpu_features().get("fma", False))


def test_multiply_add_is_one_fma_by_default_and_rounds_twice_without_fp_contract() -> None:
    """a*b+c: one FMA rounded once by default (TVM's and clang's contraction), two
    roundings as written with `fp_contract=False`; fast_math adds reassociation."""
    A = te.placeholder((8, 8 * LANES), name="A")
    B = te.placeholder((8, 8 * LANES), name="B")
    C = te.compute(A.shape, lambda i, j: A[i, j] * B[i, j] + 1.0, name="C")
    s = te.create_schedule(C.op)
    s[C].vectorize(C.op.axis[1])
    exact = compiler.build(s, [A, B, C], fp_contract=False)
    default = compiler.build(s, [A, B, C])
    fast = compiler.build(s, [A, B, C], fast_math=True)
    a, b = _rand(8, 8 * LANES), _rand(8, 8 * LANES)
    c1, c2, c3 = np.zeros_like(a), np.zeros_like(a), np.zeros_like(a)
    exact(a, b, c1)
    default(a, b, c2)
    fast(a, b, c3)
    twice = a * b + np.float32(1)  # float32 product rounded, then the sum rounded
    once = (a.astype(np.float64) * b + 1.0).astype(np.float32)  # the product is exact in float64
    assert not np.array_equal(twice, once)  # the inputs tell the two apart
    np.testing.assert_array_equal(c1, twice)
    assert "contract" not in exact.llvm_ir
    assert f"fmul contract <{LANES} x float>" in default.llvm_ir
    assert "reassoc" not in default.llvm_ir
    if _host_has_fma():
        np.testing.assert_array_equal(c2, once)
        assert "vfmadd" in default.assembly()
    np.testing.assert_allclose(c3, once, rtol=1e-6, atol=1e-6)
    assert f"fmul reassoc contract <{LANES} x float>" in fast.llvm_ir


@pytest.mark.skipif(openmp_library() is None, reason="no libgomp: parallel loops run serially")
def test_stage_computed_in_a_parallel_loop_gets_a_copy_per_thread() -> None:
    """A packed panel of B computed at the k block inside the parallel column loop: each
    thread packs into its own stack buffer, so the loop still forks (it ran serially when
    the panel was one buffer of the arena); the plan reports the per-thread bytes."""
    n = 96
    A, B = te.placeholder((n, n), name="A"), te.placeholder((n, n), name="B")
    C = ops.matmul(A, B, name="C")
    s = te.create_schedule(C.op)
    i, j = C.op.axis
    (k,) = C.op.reduce_axis
    packed = s.cache_read(B, "global", [C])
    jo, ji = s[C].split(j, factor=LANES)
    ko, ki = s[C].split(k, factor=32)
    s[C].reorder(jo, ko, i, ki, ji)
    s[C].vectorize(ji)
    s[C].parallel(jo)
    s[packed].compute_at(s[C], ko)
    f = compiler.build(s, [A, B, C])
    compute = _function_body(f.llvm_ir, "main_compute")
    assert compute.count("call void @GOMP_parallel") == 1  # C's tiles initialised inside the kernel
    kernels = re.findall(r"define [^@]*@main_compute_parallel\d+\(.*?\n}\n", f.llvm_ir, re.S)
    assert sum(f"alloca [{32 * LANES} x float], align 64" in body for body in kernels) == 1
    assert f.memory is not None
    assert f.memory.stack == {"B.global": 32 * LANES * 4}
    assert f"stack (per thread, not in the arena): {32 * LANES * 4} bytes" in str(f.memory)
    a, b = _rand(n, n), _rand(n, n)
    guarded = np.full(n * n + 2 * LANES, np.nan, np.float32)
    c = guarded[LANES:-LANES].reshape(n, n)
    for _ in range(3):  # threads racing on one buffer would show as wrong sums
        f(a, b, c)
        np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-4)
    assert np.isnan(guarded[:LANES]).all()
    assert np.isnan(guarded[-LANES:]).all()


def _parallel_double(rows: str) -> str:
    """Script lines that build `f`, B = 2 * A over (rows, 64), parallel over the rows."""
    return (
        "import os, numpy as np, compiler\n"
        "from compiler import te\n"
        f"A = te.placeholder(({rows}, 64), name='A')\n"
        f"B = te.compute(({rows}, 64), lambda i, j: A[i, j] * 2.0, name='B')\n"
        "s = te.create_schedule(B.op)\n"
        "s[B].parallel(B.op.axis[0])\n"
        "f = compiler.build(s, [A, B])\n"
        "threads = lambda: len(os.listdir('/proc/self/task'))  # libgomp's pool and ours\n"
    )


def _run_fresh(script: str, **env: str) -> None:
    """`script` in a new interpreter with `env` added; it must exit cleanly."""
    run = subprocess.run(
        [sys.executable, "-c", script], env={**os.environ, **env}, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr[-2000:]


@pytest.mark.skipif(openmp_library() is None, reason="no libgomp: parallel loops run serially")
def test_process_exits_cleanly_right_after_a_parallel_call() -> None:
    """With OMP_WAIT_POLICY=ACTIVE the OpenMP workers still spin in libgomp when the
    process exits; llvmlite then closed libgomp under them (a segfault at exit, 4 runs
    in 5). The JIT's libgomp stays loaded."""
    script = _parallel_double("256") + (
        "a = np.ones((256, 64), np.float32); b = np.empty_like(a)\n"
        "for _ in range(20): f(a, b)\n"
        "assert float(b.sum()) == 2.0 * a.size\n"
    )
    for _ in range(3):
        _run_fresh(script, OMP_WAIT_POLICY="ACTIVE", COMPILER_NUM_THREADS="2")


@pytest.mark.skipif(openmp_library() is None, reason="no libgomp: parallel loops run serially")
def test_thread_count_is_ours_not_openmps_default(tmp_path) -> None:
    """PyTorch shares our libgomp and `torch.set_num_threads(1)` sets its default thread
    count (here: `omp_set_num_threads(1)`); a parallel loop still forks the count we
    choose: COMPILER_NUM_THREADS, then `compiler.set_num_threads`, in JIT-compiled and
    exported functions alike. Observed through the threads libgomp starts (its pool
    grows to the largest team), in a fresh process."""
    script = _parallel_double("256") + (
        "import ctypes\n"
        "from compiler.runtime.host import openmp_library\n"
        "ctypes.CDLL(openmp_library()).omp_set_num_threads(1)\n"
        "a = np.ones((256, 64), np.float32); b = np.empty_like(a)\n"
        "start = threads()\n"
        "assert compiler.get_num_threads() == 3\n"
        "f(a, b); assert threads() == start + 2, (start, threads())\n"
        "compiler.set_num_threads(5)\n"
        "f(a, b); assert threads() == start + 4, (start, threads())\n"
        f"g = compiler.load_module(f.export_library({str(tmp_path / 'f.so')!r}))\n"
        "compiler.set_num_threads(6)\n"
        "g(a, b); assert threads() == start + 5, (start, threads())\n"
        "assert float(b.sum()) == 2.0 * a.size\n"
    )
    _run_fresh(script, COMPILER_NUM_THREADS="3", COMPILER_CACHE="0")


@pytest.mark.skipif(openmp_library() is None, reason="no libgomp: parallel loops run serially")
def test_a_parallel_loop_forks_no_more_threads_than_iterations() -> None:
    """A loop parallel over a symbolic extent runs its one iteration (a decode step's
    length) in the calling thread, and forks a team of at most its iteration count:
    waking a team costs a scheduler time slice when another process holds a core.
    Observed through the threads libgomp starts, in a fresh process."""
    script = _parallel_double("te.var('n')") + (
        "start = threads()\n"
        "for rows, team in [(1, 1), (0, 1), (2, 2), (3, 3), (7, 7)]:\n"
        "    a = np.arange(rows * 64, dtype=np.float32).reshape(rows, 64); b = np.empty_like(a)\n"
        "    f(a, b)\n"
        "    assert threads() == start + team - 1, (rows, start, threads())\n"
        "    np.testing.assert_array_equal(b, 2 * a)\n"
    )
    _run_fresh(script, COMPILER_NUM_THREADS="8", COMPILER_CACHE="0")


def test_set_num_threads_rejects_a_non_positive_count() -> None:
    with pytest.raises(compiler.OptionError, match="positive int or None, got 0"):
        compiler.set_num_threads(0)
    compiler.set_num_threads(None)
    assert compiler.get_num_threads() >= 1


_RANGE = st.one_of(
    st.tuples(st.integers(0, 256), st.integers(0, 96)).map(lambda r: (str(r[0]), str(r[1]))),
    st.tuples(st.integers(0, 3), st.integers(0, 64)).map(lambda r: (f"n * {r[0] * 64} + {r[1]}", "n * 64")),
)


@settings(max_examples=examples(60, 400), deadline=None)
@given(st.lists(_RANGE, max_size=24))
def test_overlapping_ranges_are_the_pairs_tested_one_by_one(texts: list[tuple[str, str]]) -> None:
    """The sweep over constant ranges (and symbolic ones against all) finds exactly the pairs
    a test of every pair finds, zero-size and touching ranges included."""
    from compiler.arith.expr import free_vars
    from compiler.arith.parse import parse_expr
    from compiler.arith.simplify import Analyzer
    from compiler.lowering.aliasing import overlapping_ranges

    ranges = [(parse_expr(o), parse_expr(s)) for o, s in texts]
    names = set().union(*(free_vars(o) | free_vars(s) for o, s in ranges))
    az = Analyzer({n: (0, None) for n in names})

    def apart(i: int, j: int) -> bool:
        (oa, sa), (ob, sb) = ranges[i], ranges[j]
        return az.prove_le(oa + sa, ob) or az.prove_le(ob + sb, oa)

    expected = [(i, j) for i in range(len(ranges)) for j in range(i) if not apart(i, j)]
    assert overlapping_ranges(ranges) == expected
