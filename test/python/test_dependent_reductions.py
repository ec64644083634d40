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
from xdsl.context import Context

import compiler
from compiler import te
from compiler.passes.apply_rfactor import ApplyRfactorPass

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


# ---------------------------------------------------------------------------
# A reducer whose identity and combiner name the compute's data axis (TVM's
# test_loop_dep_reduce_cache_write): the identity region is evaluated where the
# start value is stored, the combiner at each step, with the axis' value there.
# ---------------------------------------------------------------------------


def _axis_reducer(n: te.Expr | int) -> tuple[te.Tensor, te.Tensor]:
    """Y[i] = fold over k < i of acc := max(acc + X[k], i), from (i > 1 ? 0 : i)."""
    X = te.placeholder((n,), name="X")

    def body(i: te.IterVar) -> te.Expr:
        k = te.reduce_axis((0, i), name="k")

        def identity(dtype: str) -> te.Expr:
            return te.if_then_else(i > 1, te.const(0, dtype), i.astype(dtype))

        reducer = te.comm_reducer(lambda x, y: te.max(x + y, i.astype("float32")), identity, name="sum")
        return reducer(X[k], axis=k)

    return X, te.compute((n,), body, name="Y")


def _axis_reducer_expected(x: np.ndarray) -> np.ndarray:
    out = np.zeros(len(x), np.float32)
    for i in range(len(x)):
        acc = np.float32(0.0 if i > 1 else i)
        for k in range(i):
            acc = max(np.float32(acc + x[k]), np.float32(i))
        out[i] = acc
    return out


def _cache(s: te.Schedule, Y: te.Tensor) -> te.Tensor:
    return s.cache_write(Y, "local")


def _cache_split_both(s: te.Schedule, Y: te.Tensor) -> None:
    YL = s.cache_write(Y, "local")
    s[YL].split(YL.op.axis[0], factor=4)
    s[YL].split(YL.op.reduce_axis[0], factor=3)


def _split_then_cache(s: te.Schedule, Y: te.Tensor) -> None:
    """The cache is laid out by the split (its axis is yo * 4 + yi in the identity and combiner)."""
    s[Y].split(Y.op.axis[0], factor=4)
    YL = s.cache_write(Y, "local")
    s[YL].split(YL.op.reduce_axis[0], factor=2)


def _cache_at_row(s: te.Schedule, Y: te.Tensor) -> None:
    YL = s.cache_write(Y, "local")
    yo, _ = s[Y].split(Y.op.axis[0], factor=3)
    s[YL].compute_at(s[Y], yo)


def _reduce_outside_split_data(s: te.Schedule, Y: te.Tensor) -> None:
    """A reduce loop outside a data loop: the start values are stored by a nest of their own."""
    yo, yi = s[Y].split(Y.op.axis[0], factor=5)
    s[Y].reorder(yo, Y.op.reduce_axis[0], yi)


AXIS_SCHEDULES: dict[str, Callable[[te.Schedule, te.Tensor], object]] = {
    "none": lambda s, Y: None,
    "cache_write": _cache,
    "split data": lambda s, Y: s[Y].split(Y.op.axis[0], factor=4),
    "split reduce": lambda s, Y: s[Y].split(Y.op.reduce_axis[0], factor=3),
    "cache_write, split both": _cache_split_both,
    "split, then cache_write": _split_then_cache,
    "cache_write at a row tile": _cache_at_row,
    "parallel data": lambda s, Y: s[Y].parallel(Y.op.axis[0]),
}


@pytest.mark.parametrize("name", list(AXIS_SCHEDULES))
def test_reducer_naming_the_data_axis(name: str) -> None:
    X, Y = _axis_reducer(10)
    s = te.create_schedule(Y.op)
    AXIS_SCHEDULES[name](s, Y)
    f = compiler.build(s, [X, Y], check_bounds=True)
    x = (np.arange(10, dtype=np.float32) - 4.0) * RNG.uniform(0.5, 1.5, 10).astype(np.float32)
    y_whole, y = guarded_array((10,), GUARD)
    f(x, y)
    assert_guard_unchanged(y_whole, GUARD)
    np.testing.assert_allclose(y, _axis_reducer_expected(x), rtol=1e-6)


def _fuse_data_and_reduce(s: te.Schedule, Y: te.Tensor) -> None:
    """One loop over data and reduce axes: every start value is stored before it."""
    s[Y].fuse(Y.op.axis[0], Y.op.reduce_axis[0])


def _cache_reduce_outside(s: te.Schedule, Y: te.Tensor) -> None:
    YL = s.cache_write(Y, "local")
    s[YL].reorder(YL.op.reduce_axis[0], YL.op.axis[0])


OUTSIDE_SCHEDULES: dict[str, Callable[[te.Schedule, te.Tensor], None]] = {
    "reduce between split data loops": _reduce_outside_split_data,
    "fused data and reduce": _fuse_data_and_reduce,
    "cache_write, reduce outermost": _cache_reduce_outside,
}


@pytest.mark.parametrize("name", list(OUTSIDE_SCHEDULES))
def test_reducer_naming_the_data_axis_with_a_reduce_loop_outside(name: str) -> None:
    """Y's extents are static and equal (k < 10), so a reduce loop may be outside a
    data loop: the identity is evaluated in the init nest with the data axis' value."""
    X = te.placeholder((10,), name="X")

    def body(i: te.IterVar) -> te.Expr:
        k = te.reduce_axis((0, 10), name="k")
        reducer = te.comm_reducer(
            lambda x, y: x + y * i.astype("float32"), lambda dtype: i.astype(dtype) * 100.0, name="wsum"
        )
        return reducer(X[k], axis=k)

    Y = te.compute((10,), body, name="Y")
    s = te.create_schedule(Y.op)
    OUTSIDE_SCHEDULES[name](s, Y)
    f = compiler.build(s, [X, Y], check_bounds=True)
    x = RNG.uniform(-1, 1, 10).astype(np.float32)
    y = np.zeros(10, np.float32)
    f(x, y)
    np.testing.assert_allclose(y, np.arange(10) * 100.0 + np.arange(10) * x.sum(), rtol=1e-5)


def test_reducer_naming_the_data_axis_symbolic() -> None:
    """A symbolic extent, the combiner naming both the data axis and a shape variable."""
    n = te.var("n")
    X, Y = _axis_reducer(n)
    s = te.create_schedule(Y.op)
    YL = s.cache_write(Y, "local")
    s[YL].split(YL.op.reduce_axis[0], factor=4)
    f = compiler.build(s, [X, Y], check_bounds=True)
    for size in (1, 2, 7, 13):
        x = RNG.uniform(-2, 2, size).astype(np.float32)
        y_whole, y = guarded_array((size,), GUARD)
        f(x, y)
        assert_guard_unchanged(y_whole, GUARD)
        np.testing.assert_allclose(y, _axis_reducer_expected(x), rtol=1e-6)


def test_reducer_naming_a_shape_variable() -> None:
    """The identity names a shape variable only: it is not a constant, so it is a region too."""
    n = te.var("n")
    X = te.placeholder((n, 4), name="X")
    k = te.reduce_axis((0, 4), name="k")
    reducer = te.comm_reducer(lambda x, y: x + y, lambda dtype: n.astype(dtype), name="plus_n")
    Y = te.compute((n,), lambda i: reducer(X[i, k], axis=k), name="Y")
    f = compiler.build(te.create_schedule(Y.op), [X, Y])
    x = RNG.uniform(-1, 1, (5, 4)).astype(np.float32)
    y = np.zeros(5, np.float32)
    f(x, y)
    np.testing.assert_allclose(y, x.sum(axis=1) + 5.0, rtol=1e-5)


def _argmax_from_row() -> tuple[te.Tensor, te.Tensor, te.Tensor]:
    """(index, value) of the largest X[i, k], k < 6, starting from (-1 - i, i - 3):
    a row whose values are all below i - 3 gives that start back."""
    X = te.placeholder((8, 6), name="X")

    def combine(x: tuple[te.Expr, ...], y: tuple[te.Expr, ...]) -> tuple[te.Expr, te.Expr]:
        keep = x[1] >= y[1]
        return te.if_then_else(keep, x[0], y[0]), te.if_then_else(keep, x[1], y[1])

    def body(i: te.IterVar) -> tuple[te.Expr, ...]:
        def identity(idx: str, val: str) -> tuple[te.Expr, te.Expr]:
            return (-1 - i).astype(idx), (i - 3).astype(val)

        argmax = te.comm_reducer(combine, identity, name="argmax")
        k = te.reduce_axis((0, 6), name="k")
        return argmax((k.astype("int32"), X[i, k]), axis=k)  # type: ignore[return-value]  # a tuple reducer

    T_idx, T_val = te.compute((8,), body, name="T")  # type: ignore[misc]  # two outputs
    return X, T_idx, T_val


def _argmax_expected(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    idx = np.zeros(len(x), np.int32)
    val = np.zeros(len(x), np.float32)
    for i, row in enumerate(x):
        best_i, best_v = -1 - i, np.float32(i - 3)
        for k, v in enumerate(row):
            if not best_v >= v:
                best_i, best_v = k, v
        idx[i], val[i] = best_i, best_v
    return idx, val


@pytest.mark.parametrize("cache", [False, True])
def test_tuple_reducer_with_an_identity_of_the_data_axis(cache: bool) -> None:
    X, T_idx, T_val = _argmax_from_row()
    s = te.create_schedule(T_idx.op)
    if cache:
        TL = s.cache_write([T_idx, T_val], "local")
        s[TL[0]].split(TL[0].op.axis[0], factor=3)
    f = compiler.build(s, [X, T_idx, T_val], check_bounds=True)
    x = RNG.uniform(-4, 6, (8, 6)).astype(np.float32)
    idx, val = np.zeros(8, np.int32), np.zeros(8, np.float32)
    f(x, idx, val)
    want_idx, want_val = _argmax_expected(x)
    np.testing.assert_array_equal(idx, want_idx)
    np.testing.assert_array_equal(val, want_val)


def test_rfactor_of_a_reducer_naming_the_data_axis_is_rejected() -> None:
    X = te.placeholder((8, 16), name="X")
    k = te.reduce_axis((0, 16), name="k")

    def body(i: te.IterVar) -> te.Expr:
        reducer = te.comm_reducer(lambda x, y: x + y, lambda dtype: i.astype(dtype), name="from_row")
        return reducer(X[i, k], axis=k)

    Y = te.compute((8,), body, name="Y")
    s = te.create_schedule(Y.op)
    _, ki = s[Y].split(k, factor=4)
    with pytest.raises(compiler.ScheduleError, match="rfactor: the reducer from_row of Y names its axis i"):
        s.rfactor(Y, ki)


def test_reducer_naming_a_reduce_axis_is_rejected() -> None:
    X = te.placeholder((8,), name="X")
    k = te.reduce_axis((0, 8), name="k")
    reducer = te.comm_reducer(lambda x, y: x + y * k.astype("float32"), lambda dtype: te.const(0, dtype), name="bad")
    Y = te.compute((1,), lambda i: reducer(X[k], axis=k), name="Y")
    with pytest.raises(ValueError, match="reducer bad: its combiner names the reduce axis k"):
        compiler.build(te.create_schedule(Y.op), [X, Y])


def test_rfactor_of_a_reducer_whose_identity_names_a_shape_variable() -> None:
    """An identity of shape variables only is an identity region that rfactor copies into
    both stages (each part and the final reduction start from it)."""
    n = te.var("n")
    X = te.placeholder((n, 16), name="X")
    k = te.reduce_axis((0, 16), name="k")
    reducer = te.comm_reducer(lambda x, y: te.max(x, y), lambda dtype: (n * -1000).astype(dtype), name="bounded_max")
    Y = te.compute((n,), lambda i: reducer(X[i, k], axis=k), name="Y")
    s = te.create_schedule(Y.op)
    _, ki = s[Y].split(k, factor=4)
    YF = s.rfactor(Y, ki)
    module = compiler.lower(s, [X, Y], until="te")
    ApplyRfactorPass().apply(Context(), module)
    ir = str(module)
    assert ir.count("} identity {") == 2, ir
    assert "init(" not in ir, ir
    s[YF].parallel(YF.op.axis[0])
    f = compiler.build(s, [X, Y])
    x = RNG.uniform(-1, 1, (5, 16)).astype(np.float32)
    y = np.zeros(5, np.float32)
    f(x, y)
    np.testing.assert_array_equal(y, x.max(axis=1))
