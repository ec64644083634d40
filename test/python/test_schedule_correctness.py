"""Legal TVM schedules that used to write out of bounds or be rejected.

Every output lives inside guard memory (`references.guarded_empty`) that is
checked after the call.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from references import assert_guard_intact, guarded_empty

import compiler
from compiler import te

RNG = np.random.default_rng(7)


def rand(*shape: int) -> np.ndarray:
    return RNG.uniform(-1.0, 1.0, shape).astype(np.float32)


def run_1d(s: te.Schedule, args: list[te.Tensor], n: int) -> np.ndarray:
    f = compiler.build(s, args)
    a = rand(n)
    whole, out = guarded_empty((n,))
    f(a, out)
    assert_guard_intact(whole)
    return a, out


@pytest.mark.parametrize("nparts", [1, 3, 4, 5, 8, 9, 32])
@pytest.mark.parametrize("attach", [False, True])
def test_split_by_nparts_stays_inside(nparts: int, attach: bool) -> None:
    """TVM's test_schedule_ops nparts case: 8 elements in `nparts` outer iterations."""
    X = te.placeholder((8,), name="I")
    EF = te.compute((8,), lambda i: X[i] * 2.0, name="EF")
    E = te.compute((8,), lambda i: EF[i] * 2.0, name="E")
    s = te.create_schedule(E.op)
    xo, _ = s[E].split(E.op.axis[0], nparts=nparts)
    if attach:
        s[EF].compute_at(s[E], xo)
    a, e = run_1d(s, [X, E], 8)
    np.testing.assert_allclose(e, a * 4.0)


def test_nparts_larger_than_the_extent_tightens_the_outer_loop() -> None:
    """Splitting 8 into 32 parts of 1: the outer loop runs 8 iterations, not 32."""
    X = te.placeholder((8,), name="I")
    E = te.compute((8,), lambda i: X[i] * 2.0, name="E")
    s = te.create_schedule(E.op)
    s[E].split(E.op.axis[0], nparts=32)
    ir = str(compiler.lower(s, [X, E], until="loop"))
    assert re.search(r"(%\d+) = arith.constant 8 : index\n\s+loop.for %E_i_o = %\d+ extent \1 ", ir), ir
    assert "arith.constant 32" not in ir


@pytest.mark.parametrize("n", [1, 7, 8, 13])
@pytest.mark.parametrize("nparts", [1, 3, 16])
def test_split_by_nparts_symbolic(n: int, nparts: int) -> None:
    m = te.var("m")
    A = te.placeholder((m,), name="A")
    B = te.compute((m,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    s[B].split(B.op.axis[0], nparts=nparts)
    a, b = run_1d(s, [A, B], n)
    np.testing.assert_allclose(b, a + 1.0)


def test_split_by_nparts_of_an_empty_symbolic_extent() -> None:
    m = te.var("m")
    A = te.placeholder((m,), name="A")
    B = te.compute((m,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    s[B].split(B.op.axis[0], nparts=4)
    f = compiler.build(s, [A, B])
    whole, out = guarded_empty((0,))
    f(np.zeros(0, np.float32), out)
    assert_guard_intact(whole)


def test_explain_shows_the_nparts_choice(capsys: pytest.CaptureFixture[str]) -> None:
    from compiler.context import make_context
    from compiler.passes.infer_bound import InferBoundPass
    from compiler.te.to_ir import build_module

    X = te.placeholder((8,), name="I")
    E = te.compute((8,), lambda i: X[i] * 2.0, name="E")
    s = te.create_schedule(E.op)
    s[E].split(E.op.axis[0], nparts=32)
    module, _ = build_module([X, E], "main", s)
    InferBoundPass(explain=True).apply(make_context(), module)
    out = capsys.readouterr().out
    assert "split E_i by nparts 32: factor 1, outer loop E_i_o runs 8 iterations" in out


@pytest.mark.parametrize("split_after", ["split", "fuse"])
def test_attach_target_split_or_fused_after_compute_at(split_after: str) -> None:
    """TVM legalizes the attach point: a split target moves to the inner axis,
    a fused one to the fused axis."""
    A = te.placeholder((6, 10), name="A")
    B = te.compute((6, 10), lambda i, j: A[i, j] + 1.0, name="B")
    C = te.compute((6, 10), lambda i, j: B[i, j] * 3.0, name="C")
    s = te.create_schedule(C.op)
    i, j = C.op.axis
    s[B].compute_at(s[C], i)
    if split_after == "split":
        s[C].split(i, factor=4)
    else:
        s[C].fuse(i, j)
    f = compiler.build(s, [A, C])
    a = rand(6, 10)
    whole, c = guarded_empty((6, 10))
    f(a, c)
    assert_guard_intact(whole)
    np.testing.assert_allclose(c, (a + 1.0) * 3.0, rtol=1e-6)


def test_fuse_of_one_axis_is_that_axis() -> None:
    A = te.placeholder((4, 5), name="A")
    B = te.compute((4, 5), lambda i, j: A[i, j] + 1.0, name="B")
    s = te.create_schedule(B.op)
    assert s[B].fuse(B.op.axis[0]) is B.op.axis[0]


def test_fuse_of_three_axes() -> None:
    A = te.placeholder((2, 3, 4), name="A")
    B = te.compute((2, 3, 4), lambda i, j, k: A[i, j, k] * 2.0, name="B")
    s = te.create_schedule(B.op)
    fused = s[B].fuse(*B.op.axis)
    s[B].split(fused, factor=5)
    f = compiler.build(s, [A, B])
    a = rand(2, 3, 4)
    whole, b = guarded_empty((2, 3, 4))
    f(a, b)
    assert_guard_intact(whole)
    np.testing.assert_allclose(b, a * 2.0)


def test_fuse_of_no_axis_adds_an_outer_loop_of_one() -> None:
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((4,), lambda i: B[i] * 2.0, name="C")
    s = te.create_schedule(C.op)
    outer = s[C].fuse()
    s[B].compute_at(s[C], outer)
    a, c = run_1d(s, [A, C], 4)
    np.testing.assert_allclose(c, (a + 1.0) * 2.0)


def test_binary_min_max_on_index_expressions() -> None:
    A = te.placeholder((10,), name="A")
    B = te.compute((10,), lambda i: A[te.min(i + 2, 9)] + A[te.max(i - 2, 0)], name="B")
    s = te.create_schedule(B.op)
    a, b = run_1d(s, [A, B], 10)
    idx = np.arange(10)
    np.testing.assert_allclose(b, a[np.minimum(idx + 2, 9)] + a[np.maximum(idx - 2, 0)])


def test_binary_min_max_on_values() -> None:
    A = te.placeholder((10,), name="A")
    B = te.compute((10,), lambda i: te.max(A[i], 0.25) + te.min(A[i], -0.25), name="B")
    a, b = run_1d(te.create_schedule(B.op), [A, B], 10)
    np.testing.assert_allclose(b, np.maximum(a, 0.25) + np.minimum(a, -0.25))


def test_and_or_not_on_conditions() -> None:
    A = te.placeholder((10,), name="A")
    B = te.compute(
        (10,),
        lambda i: te.if_then_else(((i > 1) & (i < 5)) | ~(i != 8), A[i], 0.0),
        name="B",
    )
    a, b = run_1d(te.create_schedule(B.op), [A, B], 10)
    idx = np.arange(10)
    np.testing.assert_allclose(b, np.where(((idx > 1) & (idx < 5)) | (idx == 8), a, 0.0))


def test_bitwise_operators_on_values_are_rejected() -> None:
    A = te.placeholder((10,), name="A")
    with pytest.raises(TypeError, match="& needs conditions"):
        A[0] & A[1]


def test_vectorizing_a_reduce_axis_is_rejected() -> None:
    A = te.placeholder((4, 8), name="A")
    k = te.reduce_axis((0, 8), name="k")
    B = te.compute((4,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    with pytest.raises(ValueError, match="reduce axis"):
        s[B].vectorize(k)


def test_triangular_reduction_numerics() -> None:
    A = te.placeholder((7, 5), name="A")

    def body(i: te.IterVar, j: te.IterVar) -> te.Expr:
        k = te.reduce_axis((0, i + 1), name="k")
        return te.sum(A[k, j], axis=k)

    B = te.compute((7, 5), body, name="B")
    s = te.create_schedule(B.op)
    f = compiler.build(s, [A, B])
    a = rand(7, 5)
    whole, b = guarded_empty((7, 5))
    f(a, b)
    assert_guard_intact(whole)
    np.testing.assert_allclose(b, np.cumsum(a, axis=0), rtol=1e-5, atol=1e-6)


def test_an_invalid_schedule_is_a_value_error_in_a_fresh_process() -> None:
    """The schedule verifier is installed before the frontend verifies its module."""
    import subprocess
    import sys

    program = """
from compiler import te
import compiler
A = te.placeholder((8,), name="A")
B = te.compute((8,), lambda i: A[i] * 2.0, name="B")
C = te.compute((8,), lambda i: B[i] * 2.0, name="C")
s = te.create_schedule(C.op)
s[C].compute_at(s[B], B.op.axis[0])
try:
    compiler.build(s, [A, C])
except ValueError as err:
    print(type(err).__name__, err)
"""
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True).stdout
    # a compiler.ScheduleError, caught above as the ValueError it also is
    assert out.startswith("ScheduleError main: invalid schedule or program:"), out
    assert 'stage "C" is a result of the function' in out


def test_a_placeholder_and_a_stage_with_one_name_stay_two_arguments() -> None:
    x = te.placeholder((4,), name="y")
    b = te.placeholder((4,), name="y")
    y = te.compute((4,), lambda i: x[i] + b[i] * 2.0, name="y")
    f = compiler.build([x, b, y])
    a, c = rand(4), rand(4)
    out = np.zeros(4, np.float32)
    f(a, c, out)
    np.testing.assert_allclose(out, a + c * 2.0)
    with pytest.raises(ValueError, match=r"y1\.shape\[0\] is 3, expected 4"):
        f(a, c[:3], out)


def test_attached_stage_split_where_its_region_is_smaller_than_its_bound() -> None:
    """Found by the property tests with the bound checker: C is computed at a row of
    D that may lie past the end (D's row loop is split twice and guarded), so C's
    exact region can be empty while its bound is one row; the split of C must not
    compute that row (it read A[n, k])."""
    n, m, r = te.var("n"), te.var("m"), te.var("r")
    A = te.placeholder((n, r), name="A")
    B = te.placeholder((r, m), name="B")
    k = te.reduce_axis((0, r), name="k")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    D = te.compute((n, m), lambda i, j: C[i, j] + 1.0, name="D")
    s = te.create_schedule(D.op)
    s[C].compute_at(s[D], D.op.axis[0])
    d_outer, _ = s[D].split(D.op.axis[0], factor=2)
    c_outer, _ = s[C].split(C.op.axis[0], nparts=2)
    s[C].split(c_outer, factor=2)
    s[D].split(d_outer, factor=2)
    f = compiler.build(s, [A, B, D], check_bounds=True)
    for size in (1, 3, 5):
        a, b = rand(size, 2), rand(2, 3)
        whole, d = guarded_empty((size, 3))
        f(a, b, d)
        assert_guard_intact(whole)
        np.testing.assert_allclose(d, a @ b + 1.0, rtol=1e-5, atol=1e-6)
