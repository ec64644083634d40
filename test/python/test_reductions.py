"""Reductions beyond a plain te.sum: predicates (`where=`) and `Schedule.rfactor`, against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import compiler
from compiler import te

RNG = np.random.default_rng(7)


def _rand(*shape: int) -> np.ndarray:
    return RNG.uniform(-1.0, 1.0, shape).astype(np.float32)


def _row_sum(n: te.Expr | int, m: te.Expr | int) -> tuple[te.Tensor, te.Tensor, te.IterVar]:
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), name="k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    return A, B, k


def _run_row_sum(s: te.Schedule, A: te.Tensor, B: te.Tensor, rows: int, cols: int, **build: object) -> None:
    f = compiler.build(s, [A, B], **build)  # type: ignore[arg-type]
    a = _rand(rows, cols)
    # the output sits inside a larger array: nothing outside it may change
    out = np.full(rows + 8, 7.0, np.float32)
    f(a, out[4 : 4 + rows])
    np.testing.assert_allclose(out[4 : 4 + rows], a.sum(axis=1), rtol=1e-5, atol=1e-5)
    assert (out[:4] == 7.0).all()
    assert (out[4 + rows :] == 7.0).all()


def _allocs(text: str) -> dict[str, str]:
    """Each loop.alloc's name and buffer type, from the IR after schedule-ops."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        if "loop.alloc " in line and " local " not in line:
            name = line.split('loop.alloc "')[1].split('"')[0]
            found[name] = line.split(": !loop.buffer<")[1].split(">")[0]
    return found


# -- where= --------------------------------------------------------------------------


def test_where_masks_a_sum() -> None:
    # lower-triangular row sums: only k <= i contributes
    n = te.var("n")
    A = te.placeholder((n, n), name="A")
    k = te.reduce_axis((0, n), name="k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k, where=k <= i), name="B")
    a = _rand(9, 9)
    b = np.zeros(9, np.float32)
    compiler.build([A, B])(a, b)
    np.testing.assert_allclose(b, np.tril(a).sum(axis=1), rtol=1e-5, atol=1e-5)


def test_where_guards_its_reads() -> None:
    # the read A[k - 1] is out of bounds for k = 0: the predicate must keep it from happening
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    k = te.reduce_axis((0, n + 1), name="k")
    B = te.compute((1,), lambda _: te.max(A[k - 1], axis=k, where=(k > 0) & (k <= n)), name="B")
    a = _rand(6)
    b = np.zeros(1, np.float32)
    compiler.build([A, B], check_bounds=True)(a, b)
    assert b[0] == a.max()


def test_where_of_a_product_and_a_min() -> None:
    A = te.placeholder((4, 6), name="A")
    k = te.reduce_axis((0, 6), name="k")
    P = te.compute((4,), lambda i: te.prod(A[i, k], axis=k, where=k % 2 == 0), name="P")
    M = te.compute((4,), lambda i: te.min(A[i, k], axis=k, where=k != i), name="M")
    a = _rand(4, 6) + 2.0
    p, m = np.zeros(4, np.float32), np.zeros(4, np.float32)
    compiler.build([A, P, M])(a, p, m)
    np.testing.assert_allclose(p, a[:, ::2].prod(axis=1), rtol=1e-5)
    masked = np.where(np.arange(6)[None, :] != np.arange(4)[:, None], a, np.inf)
    np.testing.assert_allclose(m, masked.min(axis=1))


def test_where_must_be_a_condition() -> None:
    A = te.placeholder((4,), name="A")
    k = te.reduce_axis((0, 4), name="k")
    with pytest.raises(TypeError, match="where"):
        te.sum(A[k], axis=k, where=A[k])


# -- rfactor ---------------------------------------------------------------------------


@pytest.mark.parametrize(("cols", "factor"), [(16, 4), (10, 4), (3, 8), (7, 1)])
def test_rfactor_split_inner(cols: int, factor: int) -> None:
    n, m = te.var("n"), te.var("m")
    A, B, k = _row_sum(n, m)
    s = te.create_schedule(B.op)
    _, ki = s[B].split(k, factor=factor)
    BF = s.rfactor(B, ki)
    assert BF.shape[0] == factor
    assert [iv.name for iv in BF.op.reduce_axis] == ["k.outer"]
    _run_row_sum(s, A, B, 5, cols)


@pytest.mark.parametrize("cols", [12, 13])
def test_rfactor_nparts_outer(cols: int) -> None:
    A, B, k = _row_sum(5, cols)
    s = te.create_schedule(B.op)
    ko, _ = s[B].split(k, nparts=4)
    BF = s.rfactor(B, ko)
    assert BF.shape == (4, 5)
    _run_row_sum(s, A, B, 5, cols)


def test_rfactor_parallel_vectorized_partial_stage() -> None:
    # the classic use: a parallel partial stage, vectorized over the factored axis
    n, m = te.var("n"), te.var("m")
    A, B, k = _row_sum(n, m)
    s = te.create_schedule(B.op)
    _, ki = s[B].split(k, factor=8)
    BF = s.rfactor(B, ki, factor_axis=1)
    assert len(BF.shape) == 2
    assert BF.shape[1] == 8
    i, kf = BF.op.axis
    s[BF].parallel(i)
    s[BF].vectorize(kf)
    _run_row_sum(s, A, B, 6, 37)
    text = str(compiler.lower(s, [A, B], until="loop"))
    assert _allocs(text)["B.rf"] == '["n", 8], f32'
    assert "parallel" in text
    assert "vectorized" in text


def test_rfactor_bounds_checked() -> None:
    n, m = te.var("n"), te.var("m")
    A, B, k = _row_sum(n, m)
    s = te.create_schedule(B.op)
    _, ki = s[B].split(k, factor=4)
    BF = s.rfactor(B, ki)
    xo, _ = s[B].split(s[B].op.axis[0], factor=3)
    s[BF].compute_at(s[B], xo)
    _run_row_sum(s, A, B, 7, 11, check_bounds=True)
    assert _allocs(str(compiler.lower(s, [A, B], until="loop")))["B.rf"] == '[4, "min(n, 3)"], f32'


def test_rfactor_keeps_the_other_reduce_axes_and_where() -> None:
    A = te.placeholder((4, 5, 6), name="A")
    k1 = te.reduce_axis((0, 5), name="k1")
    k2 = te.reduce_axis((0, 6), name="k2")
    B = te.compute((4,), lambda i: te.sum(A[i, k1, k2], axis=[k1, k2], where=k1 != k2), name="B")
    s = te.create_schedule(B.op)
    k2o, _ = s[B].split(k2, factor=4)
    BF = s.rfactor(B, k2o, factor_axis=-1)
    assert BF.shape == (4, 2)
    assert [iv.name for iv in BF.op.reduce_axis] == ["k1", "k2.inner"]
    a = _rand(4, 5, 6)
    b = np.zeros(4, np.float32)
    compiler.build(s, [A, B], check_bounds=True)(a, b)
    mask = np.arange(5)[:, None] != np.arange(6)[None, :]
    np.testing.assert_allclose(b, (a * mask).sum(axis=(1, 2)), rtol=1e-5, atol=1e-5)


def test_rfactor_twice() -> None:
    # factor the partial stage again: B.rf.rf reduces over ko.o, B.rf over ko.i
    A, B, k = _row_sum(3, 50)
    s = te.create_schedule(B.op)
    _, ki = s[B].split(k, factor=5)
    BF = s.rfactor(B, ki)
    _, koi = s[BF].split(BF.op.reduce_axis[0], factor=2)
    BFF = s.rfactor(BF, koi)
    assert BFF.shape == (2, 5, 3)
    _run_row_sum(s, A, B, 3, 50)


def test_rfactor_max_uses_its_identity() -> None:
    A = te.placeholder((3, 10), name="A")
    k = te.reduce_axis((0, 10), name="k")
    B = te.compute((3,), lambda i: te.max(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    _, ki = s[B].split(k, factor=4)  # 2 of the 12 slots are past the extent
    s.rfactor(B, ki)
    a = _rand(3, 10) - 5.0  # all negative: a 0 from a skipped slot would win
    b = np.zeros(3, np.float32)
    compiler.build(s, [A, B])(a, b)
    np.testing.assert_array_equal(b, a.max(axis=1))


def test_rfactor_sum_with_init_counts_it_once() -> None:
    A = te.placeholder((3, 8), name="A")
    k = te.reduce_axis((0, 8), name="k")
    B = te.compute((3,), lambda i: te.sum(A[i, k], axis=k, init=10.0), name="B")
    s = te.create_schedule(B.op)
    _, ki = s[B].split(k, factor=4)
    s.rfactor(B, ki)
    a = _rand(3, 8)
    b = np.zeros(3, np.float32)
    compiler.build(s, [A, B])(a, b)
    np.testing.assert_allclose(b, a.sum(axis=1) + 10.0, rtol=1e-5)


# -- misuse ------------------------------------------------------------------------------


def test_rfactor_of_a_data_axis_is_rejected() -> None:
    _, B, _ = _row_sum(4, 8)
    s = te.create_schedule(B.op)
    with pytest.raises(ValueError, match="only a reduce axis can be factored"):
        s.rfactor(B, B.op.axis[0])


def test_rfactor_with_an_attached_stage_is_rejected() -> None:
    A = te.placeholder((4, 8), name="A")
    C = te.compute((4, 8), lambda i, j: A[i, j] * 2.0, name="C")
    k = te.reduce_axis((0, 8), name="k")
    B = te.compute((4,), lambda i: te.sum(C[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    s[C].compute_at(s[B], B.op.axis[0])
    s.rfactor(B, k)
    with pytest.raises(ValueError, match="computed at loops of \"B\", which rfactor replaces"):
        compiler.build(s, [A, B])


def test_axes_from_before_rfactor_are_retired() -> None:
    _, B, k = _row_sum(4, 8)
    s = te.create_schedule(B.op)
    s.rfactor(B, k)
    with pytest.raises(ValueError, match="from before its rfactor"):
        s[B].split(B.op.axis[0], factor=2)


def test_factor_axis_out_of_range() -> None:
    _, B, k = _row_sum(4, 8)
    s = te.create_schedule(B.op)
    with pytest.raises(ValueError, match="factor_axis 3 is out of range"):
        s.rfactor(B, k, factor_axis=3)
