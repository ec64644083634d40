"""Reductions whose extent depends on a data axis (TVM's `te.reduce_axis((0, i))`):
triangular sums under schedules, against NumPy, with guarded inputs and outputs.

The extent is a `dynamic(...)` operand of `te.reduce`; infer-bound keeps it exact
in the reduce loop (`[0, y_i]`) and covers the producers' reads with its union
over the data axis (`[0, n - 1]`)."""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pytest
from references import assert_guard_unchanged, guarded_array

import compiler
from compiler import te

GUARD = 64
RNG = np.random.default_rng(11)
Sched = Callable[[te.Schedule, te.Tensor, te.Tensor], None]


def _prefix_sum(n: te.Expr | int, offset: int = 0) -> tuple[te.Tensor, te.Tensor, te.Tensor]:
    """P = 2 * X (an intermediate), Y[i] = sum(P[k] for k < i + offset)."""
    X = te.placeholder((n,), name="X")
    P = te.compute((n,), lambda i: X[i] * 2.0, name="P")

    def body(i: te.IterVar) -> te.Expr:
        k = te.reduce_axis((0, i + offset) if offset else (0, i), name="k")
        return te.sum(P[k], axis=k)

    Y = te.compute((n,), body, name="Y")
    return X, P, Y


def _expected(x: np.ndarray, offset: int) -> np.ndarray:
    c = np.concatenate([[0.0], np.cumsum(2.0 * x.astype(np.float64))])
    return c[np.minimum(np.arange(len(x)) + offset, len(x))].astype(np.float32)


def _run(f: compiler.Function, size: int, offset: int = 0, **kw: object) -> None:
    _, x = guarded_array((size,), GUARD, np.nan, RNG.uniform(-1, 1, size).astype(np.float32))
    y_whole, y = guarded_array((size,), GUARD)
    f(x, y)
    assert_guard_unchanged(y_whole, GUARD)
    np.testing.assert_allclose(y, _expected(x, offset), rtol=1e-5, atol=1e-5)


def _split_reduce(s: te.Schedule, P: te.Tensor, Y: te.Tensor) -> None:
    s[Y].split(Y.op.reduce_axis[0], factor=3)


def _split_reduce_nparts(s: te.Schedule, P: te.Tensor, Y: te.Tensor) -> None:
    s[Y].split(Y.op.reduce_axis[0], nparts=2)


def _split_data(s: te.Schedule, P: te.Tensor, Y: te.Tensor) -> None:
    s[Y].split(Y.op.axis[0], factor=4)


def _split_both_parallel(s: te.Schedule, P: te.Tensor, Y: te.Tensor) -> None:
    yo, _ = s[Y].split(Y.op.axis[0], factor=4)
    s[Y].split(Y.op.reduce_axis[0], factor=2)
    s[Y].parallel(yo)


def _producer_at_data(s: te.Schedule, P: te.Tensor, Y: te.Tensor) -> None:
    s[P].compute_at(s[Y], Y.op.axis[0])


def _producer_at_reduce(s: te.Schedule, P: te.Tensor, Y: te.Tensor) -> None:
    s[P].compute_at(s[Y], Y.op.reduce_axis[0])


def _producer_at_split_reduce(s: te.Schedule, P: te.Tensor, Y: te.Tensor) -> None:
    ko, _ = s[Y].split(Y.op.reduce_axis[0], factor=4)
    s[P].compute_at(s[Y], ko)


def _inline(s: te.Schedule, P: te.Tensor, Y: te.Tensor) -> None:
    s[P].compute_inline()


def _unroll_reduce(s: te.Schedule, P: te.Tensor, Y: te.Tensor) -> None:
    _, ki = s[Y].split(Y.op.reduce_axis[0], factor=2)
    s[Y].unroll(ki)


SCHEDULES: dict[str, Sched] = {
    "none": lambda s, P, Y: None,
    "split reduce": _split_reduce,
    "split reduce nparts": _split_reduce_nparts,
    "split data": _split_data,
    "split both, parallel": _split_both_parallel,
    "producer at data axis": _producer_at_data,
    "producer at reduce axis": _producer_at_reduce,
    "producer at split reduce axis": _producer_at_split_reduce,
    "inline producer": _inline,
    "unroll reduce": _unroll_reduce,
}


@pytest.mark.parametrize("name", list(SCHEDULES))
@pytest.mark.parametrize("offset", [0, 1])
def test_triangular_sum_static(name: str, offset: int) -> None:
    X, P, Y = _prefix_sum(10, offset)
    s = te.create_schedule(Y.op)
    SCHEDULES[name](s, P, Y)
    _run(compiler.build(s, [X, Y], check_bounds=True), 10, offset)


@pytest.mark.parametrize("name", ["none", "split reduce", "split data", "producer at reduce axis"])
def test_triangular_sum_symbolic(name: str) -> None:
    n = te.var("n")
    X, P, Y = _prefix_sum(n, 1)
    s = te.create_schedule(Y.op)
    SCHEDULES[name](s, P, Y)
    f = compiler.build(s, [X, Y], check_bounds=True)
    for size in (1, 5, 13):
        _run(f, size, 1)


def test_loop_extent_is_the_data_axis() -> None:
    """The reduce loop runs y_i times: its extent is the data loop's variable."""
    X, P, Y = _prefix_sum(10)
    s = te.create_schedule(Y.op)
    s[P].compute_inline()
    ir = str(compiler.lower(s, [X, Y], until="loop"))
    assert re.search(r"loop\.for %Y_i = %\w+ extent %\w+ \{.*loop\.for %Y_k = %\w+ extent %Y_i \{", ir, re.S), ir


def test_producer_region_is_the_union_over_the_data_axis() -> None:
    """P computed at Y's row: P's region is the union over k < i + 1, [0, i + 1)
    at row i, allocated at its largest, 10 elements."""
    X, P, Y = _prefix_sum(10, 1)
    s = te.create_schedule(Y.op)
    s[P].compute_at(s[Y], Y.op.axis[0])
    ir = str(compiler.lower(s, [X, Y], until="loop"))
    assert re.search(r'%P = loop\.alloc "P" \[%\w+\] : !loop\.buffer<\[10\], f32>', ir), ir


def test_triangular_matrix_product() -> None:
    """C[i, j] = sum over k <= i of L[i, k] * B[k, j] (a lower-triangular product)."""
    n, m = 7, 5
    L = te.placeholder((n, n), name="L")
    B = te.placeholder((n, m), name="B")

    def body(i: te.IterVar, j: te.IterVar) -> te.Expr:
        k = te.reduce_axis((0, i + 1), name="k")
        return te.sum(L[i, k] * B[k, j], axis=k)

    C = te.compute((n, m), body, name="C")
    s = te.create_schedule(C.op)
    s[C].reorder(C.op.axis[0], C.op.reduce_axis[0], C.op.axis[1])
    f = compiler.build(s, [L, B, C], check_bounds=True)
    lv = RNG.uniform(-1, 1, (n, n)).astype(np.float32)
    bv = RNG.uniform(-1, 1, (n, m)).astype(np.float32)
    c_whole, c = guarded_array((n, m), GUARD)
    f(lv, bv, c)
    assert_guard_unchanged(c_whole, GUARD)
    np.testing.assert_allclose(c, np.tril(lv) @ bv, rtol=1e-5, atol=1e-5)


def test_reduce_loop_outside_its_data_axis_is_rejected() -> None:
    X, _, Y = _prefix_sum(10)
    s = te.create_schedule(Y.op)
    s[Y].reorder(Y.op.reduce_axis[0], Y.op.axis[0])
    with pytest.raises(compiler.CompilerError, match=r"Y_k .* depends on Y_i: that loop must be outside it"):
        compiler.build(s, [X, Y])


def test_reduce_extent_naming_a_reduce_axis_is_rejected() -> None:
    X = te.placeholder((10,), name="X")
    k = te.reduce_axis((0, 5), name="k")
    r = te.reduce_axis((0, k), name="r")
    Y = te.compute((1,), lambda i: te.sum(X[k + r], axis=[k, r]), name="Y")
    with pytest.raises(ValueError, match="reduce_axis r: its extent k names a reduce axis"):
        compiler.build(te.create_schedule(Y.op), [X, Y])


def test_rfactor_of_a_dependent_reduction_is_rejected() -> None:
    _, _, Y = _prefix_sum(10)
    s = te.create_schedule(Y.op)
    with pytest.raises(compiler.ScheduleError, match="rfactor: the extent of reduce axis k of Y depends on a data axis"):
        s.rfactor(Y, Y.op.reduce_axis[0])


def test_cache_write_of_a_dependent_reduction() -> None:
    """The reduction moves to the cache stage with its dynamic extent (TVM's
    test_loop_dep_reduce_cache_write, with a plain sum)."""
    X, P, Y = _prefix_sum(10, 1)
    s = te.create_schedule(Y.op)
    s[P].compute_inline()
    YL = s.cache_write(Y, "local")
    s[YL].split(YL.op.reduce_axis[0], factor=3)
    _run(compiler.build(s, [X, Y], check_bounds=True), 10, 1)
