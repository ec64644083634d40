"""Split options beyond an int factor: `disable_predication=True` (accepted where the
factor provably divides the extent, rejected where the loops would run past it) and a
symbolic factor (a `te.var` passed at call time; below 1 it splits by 1)."""

from __future__ import annotations

import numpy as np
import pytest
from references import assert_guard_unchanged, guarded_array

import compiler
from compiler import te

GUARD = 32


def _double(shape: tuple[int | te.Expr, ...]) -> tuple[te.Tensor, te.Tensor]:
    A = te.placeholder(shape, name="A")
    B = te.compute(shape, lambda *i: A[i] * 2.0, name="B")
    return A, B


@pytest.mark.parametrize(("extent", "factor"), [(12, 4), (12, 12), (12, 1), (64, 8)])
def test_dividing_split_runs_without_predicate(extent: int, factor: int) -> None:
    A, B = _double((extent,))
    s = te.create_schedule(B.op)
    s[B].split(B.op.axis[0], factor=factor, disable_predication=True)
    ir = str(compiler.lower(s, [A, B], until="loop"))
    assert "loop.if" not in ir
    f = compiler.build(s, [A, B], check_bounds=True)
    a = np.arange(extent, dtype=np.float32)
    whole, b = guarded_array((extent,), GUARD)
    f(a, b)
    assert_guard_unchanged(whole, GUARD)
    np.testing.assert_allclose(b, 2.0 * a)


def test_nparts_that_divides() -> None:
    A, B = _double((6, 8))
    s = te.create_schedule(B.op)
    s[B].split(B.op.axis[1], nparts=2, disable_predication=True)
    f = compiler.build(s, [A, B])
    a = np.arange(48, dtype=np.float32).reshape(6, 8)
    b = np.zeros((6, 8), np.float32)
    f(a, b)
    np.testing.assert_allclose(b, 2.0 * a)


@pytest.mark.parametrize(
    ("shape", "message"),
    [
        ((10,), "split of B_i by 4 with disable_predication: the extent 10 is not provably a multiple of 4"),
        ((te.var("n"),), "the extent n is not provably a multiple of 4"),
    ],
)
def test_split_that_would_run_past_the_extent_is_rejected(shape: tuple[int | te.Expr, ...], message: str) -> None:
    A, B = _double(shape)
    s = te.create_schedule(B.op)
    s[B].split(B.op.axis[0], factor=4, disable_predication=True)
    with pytest.raises(compiler.CompilerError, match=message):
        compiler.build(s, [A, B])


def test_attached_stage_whose_region_varies_is_rejected() -> None:
    """C's region under D's 8-split is min(8, 20 - 8 * o): a split of it by 4 can't
    drop its predicate, although 4 divides the allocated 8."""
    A = te.placeholder((20,), name="A")
    C = te.compute((20,), lambda i: A[i] + 1.0, name="C")
    D = te.compute((20,), lambda i: C[i] * 2.0, name="D")
    s = te.create_schedule(D.op)
    o, _ = s[D].split(D.op.axis[0], factor=8)
    s[C].compute_at(s[D], o)
    s[C].split(C.op.axis[0], factor=4, disable_predication=True)
    with pytest.raises(compiler.CompilerError, match=r"disable_predication: the extent .* is not provably a multiple of 4"):
        compiler.build(s, [A, D])


# -- split by a symbolic factor (a te.var, bound at call time) ---------------------------


def _split_by_var(schedule: str) -> compiler.Function:
    n, m, f = te.var("n"), te.var("m"), te.var("f")
    A = te.placeholder((n, m), name="A")
    C = te.compute((n, m), lambda i, j: A[i, j] + 1.0, name="C")
    D = te.compute((n, m), lambda i, j: C[i, j] * 2.0, name="D")
    s = te.create_schedule(D.op)
    if schedule == "inner":
        s[D].split(D.op.axis[1], factor=f)
    elif schedule == "fused, attached":
        xo, _ = s[D].split(s[D].fuse(*D.op.axis), factor=f)
        s[C].compute_at(s[D], xo)
    elif schedule == "nested, attached":
        _, yi = s[D].split(D.op.axis[0], factor=f)
        _, xi = s[D].split(yi, factor=2)
        s[C].compute_at(s[D], xi)
    elif schedule == "with an expression":
        s[D].split(D.op.axis[0], factor=f * 2 + 1)
    return compiler.build(s, [A, D, f], check_bounds=True)


@pytest.mark.parametrize("schedule", ["inner", "fused, attached", "nested, attached", "with an expression"])
def test_split_by_a_symbolic_factor(schedule: str) -> None:
    fn = _split_by_var(schedule)
    for shape, factor in (((5, 7), 3), ((5, 7), 7), ((4, 4), 1), ((3, 2), 50), ((6, 5), 0), ((0, 3), 2)):
        a = np.arange(shape[0] * shape[1], dtype=np.float32).reshape(shape)
        whole, d = guarded_array(shape, GUARD)
        fn(a, d, factor)
        assert_guard_unchanged(whole, GUARD)
        np.testing.assert_allclose(d, (a + 1.0) * 2.0)


def test_symbolic_factor_is_rejected_by_rfactor() -> None:
    A = te.placeholder((16,), name="A")
    k = te.reduce_axis((0, 16), name="k")
    B = te.compute((1,), lambda i: te.sum(A[k], axis=k), name="B")
    s = te.create_schedule(B.op)
    _, ki = s[B].split(k, factor=te.var("f"))
    with pytest.raises(compiler.ScheduleError, match="rfactor: B's axis k is split by the symbolic factor f"):
        s.rfactor(B, ki)


def test_a_float_factor_is_rejected() -> None:
    _, B = _double((8,))
    s = te.create_schedule(B.op)
    with pytest.raises(compiler.ScheduleError, match=r"the factor must be a positive int or a te\.var expression"):
        s[B].split(B.op.axis[0], factor=2.5)  # type: ignore[arg-type]  # the error under test
