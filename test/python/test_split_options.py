"""`split(..., disable_predication=True)`: accepted where the factor provably divides
the extent (no predicate is needed), rejected where the loops would run past it."""

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
