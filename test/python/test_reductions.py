"""Reductions beyond a plain te.sum: predicates (`where=`) and `Schedule.rfactor`, against NumPy."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from long_tests import examples

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


def _allocs(text: str, *, local: bool = False) -> dict[str, str]:
    """Each loop.alloc's name and buffer type, from the IR after schedule-ops (`local`: the
    stack buffers of small attached stages instead of the others)."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        if "loop.alloc " in line and (" local " in line) == local:
            name = line.split('"')[1]
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
    # the partial sums of 4 x min(n, 3) rows, at their constant bounds on the stack
    assert _allocs(str(compiler.lower(s, [A, B], until="loop")), local=True)["B.rf"] == "[4, 3], f32"


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
    with pytest.raises(ValueError, match="computed at loops of \"B\", which rfactor replaces"):
        s.rfactor(B, k)


def test_axes_from_before_rfactor_are_retired() -> None:
    _, B, k = _row_sum(4, 8)
    s = te.create_schedule(B.op)
    s.rfactor(B, k)
    with pytest.raises(ValueError, match="from before its rfactor"):
        s[B].split(B.op.axis[0], factor=2)


def test_factor_axis_out_of_range() -> None:
    _, B, k = _row_sum(4, 8)
    s = te.create_schedule(B.op)
    with pytest.raises(ValueError, match='factor_axis 3 is past the 1 data axes of "B"'):
        s.rfactor(B, k, factor_axis=3)


# -- te.comm_reducer, tuple reducers, multi-output compute --------------------------------


def _argmax_reducer() -> te.CommReducer:
    def combine(x: tuple, y: tuple) -> tuple:
        # ties keep the accumulator: the first index wins, as in TVM and NumPy
        keep = x[1] >= y[1]
        return te.if_then_else(keep, x[0], y[0]), te.if_then_else(keep, x[1], y[1])

    return te.comm_reducer(combine, lambda ti, tv: (te.const(-1, ti), te.min_value(tv)), name="argmax")


def _argmin_reducer() -> te.CommReducer:
    def combine(x: tuple, y: tuple) -> tuple:
        keep = x[1] <= y[1]
        return te.if_then_else(keep, x[0], y[0]), te.if_then_else(keep, x[1], y[1])

    return te.comm_reducer(combine, lambda ti, tv: (te.const(-1, ti), te.max_value(tv)), name="argmin")


def _arg_reduce(reducer: te.CommReducer) -> tuple[te.Tensor, te.Tensor, te.Tensor, te.IterVar]:
    m, n = te.var("m"), te.var("n")
    A = te.placeholder((m, n), name="A")
    k = te.reduce_axis((0, n), name="k")
    idx, val = te.compute((m,), lambda i: reducer((k.var.astype("int32"), A[i, k]), axis=k), name="T")
    return A, idx, val, k


def test_argmax_with_ties_picks_the_first_index() -> None:
    A, idx, val, _ = _arg_reduce(_argmax_reducer())
    s = te.create_schedule(idx.op)
    assert s[idx] is s[val]  # the outputs of one op share its stage
    a = RNG.integers(0, 3, (6, 9)).astype(np.float32)  # many ties
    i, v = np.zeros(6, np.int32), np.zeros(6, np.float32)
    compiler.build(s, [A, idx, val])(a, i, v)
    np.testing.assert_array_equal(i, np.argmax(a, axis=1))
    np.testing.assert_array_equal(v, a.max(axis=1))


def test_argmin_scheduled_and_rfactored() -> None:
    A, idx, val, k = _arg_reduce(_argmin_reducer())
    s = te.create_schedule(idx.op)
    _, ki = s[idx].split(k, factor=4)
    factors = s.rfactor(idx, ki)
    assert isinstance(factors, list)
    assert len(factors) == 2
    assert factors[0].shape[0] == 4
    s[factors[0]].parallel(factors[0].op.axis[1])
    a = RNG.integers(0, 4, (5, 11)).astype(np.float32)
    i, v = np.zeros(5, np.int32), np.zeros(5, np.float32)
    compiler.build(s, [A, idx, val], check_bounds=True)(a, i, v)
    np.testing.assert_array_equal(v, a.min(axis=1))
    # per part, then across parts, each keeps the first minimum of what it sees: the
    # overall index is a minimum's (not always the first: parts are interleaved)
    np.testing.assert_array_equal(a[np.arange(5), i], a.min(axis=1))


def test_comm_reducer_product_and_where() -> None:
    mul = te.comm_reducer(lambda x, y: x * y, lambda t: te.const(1.0, t), name="mul")
    A = te.placeholder((4, 7), name="A")
    k = te.reduce_axis((0, 7), name="k")
    P = te.compute((4,), lambda i: mul(A[i, k], axis=k, where=k != 3), name="P")
    s = te.create_schedule(P.op)
    _, ki = s[P].split(k, factor=2)
    s.rfactor(P, ki)
    a = _rand(4, 7) + 1.5
    p = np.zeros(4, np.float32)
    compiler.build(s, [A, P])(a, p)
    np.testing.assert_allclose(p, np.delete(a, 3, axis=1).prod(axis=1), rtol=1e-5)


def test_comm_reducer_text_and_errors() -> None:
    A, idx, val, _ = _arg_reduce(_argmax_reducer())
    text = str(compiler.lower([A, idx, val], until="te"))
    assert "te.reduce argmax (%k) in [\"n\"] init(-1 : i32, -3.40282347e+38 : f32) : i32, f32 {" in text
    assert "} combiner (%x0, %x1, %y0, %y1) {" in text
    mul = te.comm_reducer(lambda x, y: x * y, lambda t: te.const(1.0, t), name="mul")
    k = te.reduce_axis((0, 4), name="k")
    B = te.placeholder((4,), name="B")
    with pytest.raises(ValueError, match="init= is not supported"):
        mul(B[k], axis=k, init=2.0)
    with pytest.raises(ValueError, match="gives 1 values, expected 2"):
        te.comm_reducer(lambda x, y: x[0], lambda a, b: (0, 0))((B[k], B[k]), axis=k)
    with pytest.raises(ValueError, match="name must be an identifier"):
        te.comm_reducer(lambda x, y: x, lambda t: 0, name="my reducer")


def test_min_max_value() -> None:
    assert te.min_value("float32").value == -np.finfo(np.float32).max
    assert te.max_value("int8").value == 127
    assert te.min_value("int32").value == -(2**31)


def test_multi_output_elementwise_and_bounds_union() -> None:
    # two outputs of one stage, read at different offsets: the region is the union
    A = te.placeholder((12,), name="A")
    P, Q = te.compute((12,), lambda i: (A[i] + 1.0, A[i] * 2.0), name="PQ")
    C = te.compute((10,), lambda i: P[i] + Q[i + 2], name="C")
    s = te.create_schedule(C.op)
    assert s[P] is s[Q]
    xo, _ = s[C].split(C.op.axis[0], factor=4)
    s[P].compute_at(s[C], xo)
    allocs = _allocs(str(compiler.lower(s, [A, C], until="loop")))
    # per iteration of xo: P read at [4 xo, 4 xo + 3], Q at [4 xo + 2, 4 xo + 5]: 6 elements each
    assert allocs["PQ.v0"] == "[6], f32"
    assert allocs["PQ.v1"] == "[6], f32"
    a = _rand(12)
    c = np.zeros(10, np.float32)
    compiler.build(s, [A, C], check_bounds=True)(a, c)
    np.testing.assert_allclose(c, (a[:10] + 1.0) + a[2:] * 2.0, rtol=1e-6)


def test_multi_output_mixing_reductions_is_rejected() -> None:
    A = te.placeholder((4, 5), name="A")
    k = te.reduce_axis((0, 5), name="k")
    with pytest.raises(ValueError, match=r"one\s+tuple reducer"):
        te.compute((4,), lambda i: (te.sum(A[i, k], axis=k), A[i, 0]), name="T")


def test_multi_output_producer_inlined_or_partly_returned() -> None:
    A = te.placeholder((3, 5), name="A")
    P, Q = te.compute((3, 5), lambda i, j: (A[i, j] + 1.0, A[i, j] * 3.0), name="PQ")
    C = te.compute((3, 5), lambda i, j: P[i, j] - Q[i, j], name="C")
    a = _rand(3, 5)
    s = te.create_schedule(C.op)
    s[Q].compute_inline()  # inlines the stage: both of its tensors
    assert "PQ" not in str(compiler.lower(s, [A, C], until="loop"))
    c = np.zeros((3, 5), np.float32)
    compiler.build(s, [A, C])(a, c)
    # (a + 1) - a * 3 is one fused multiply-add (build's fp_contract): rounded once, so
    # it differs from NumPy's two roundings by up to an ulp of a * 3, which is large
    # against the result where the two nearly cancel (a module-level RNG: any a)
    a64 = a.astype(np.float64)
    np.testing.assert_allclose(c, (a + np.float32(1.0)).astype(np.float64) - a64 * 3.0, rtol=0,
                               atol=float(np.spacing(np.abs(a * np.float32(3.0)).max())))
    # only the second tensor is an argument: the first is an intermediate buffer
    q = np.zeros((3, 5), np.float32)
    compiler.build([A, Q])(a, q)
    np.testing.assert_allclose(q, a * 3.0, rtol=1e-6)


# -- random rfactor schedules (hypothesis) ---------------------------------------------------

EXAMPLES = examples(4, 12)


@st.composite
def rfactor_cases(draw: st.DrawFn) -> dict[str, object]:
    return {
        "rows": draw(st.integers(1, 6)),
        "cols": draw(st.integers(1, 23)),
        "reducer": draw(st.sampled_from(["sum", "max", "argmax"])),
        "symbolic": draw(st.booleans()),
        "split": draw(st.sampled_from([None, ("factor", 1), ("factor", 3), ("factor", 8), ("nparts", 2), ("nparts", 5)])),
        "factor_outer": draw(st.booleans()),
        "factor_axis": draw(st.integers(0, 1)),
        "partial": draw(st.sampled_from(["none", "parallel", "vectorize", "compute_at", "split_reduce"])),
        "final_split": draw(st.sampled_from([None, 1, 2, 4])),
    }


@settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(case=rfactor_cases())
def test_random_rfactor_schedules(case: dict[str, Any]) -> None:
    """Random splits of the reduce axis, rfactor of either part at either position, then
    primitives on the partial stage and the final one; built with the bound checker,
    outputs inside guard memory, compared with NumPy."""
    rows, cols = case["rows"], case["cols"]
    n, m = (te.var("n"), te.var("m")) if case["symbolic"] else (rows, cols)
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), name="k")
    if case["reducer"] == "argmax":
        idx, val = te.compute((n,), lambda i: _argmax_reducer()((k.var.astype("int32"), A[i, k]), axis=k), name="B")
        outputs = [idx, val]
    else:
        reduce = te.sum if case["reducer"] == "sum" else te.max
        outputs = [te.compute((n,), lambda i: reduce(A[i, k], axis=k), name="B")]
    B = outputs[0]
    s = te.create_schedule(B.op)
    axis = k
    if case["split"] is not None:
        how, value = case["split"]
        ko, ki = s[B].split(k, **{how: value})
        axis = ko if case["factor_outer"] else ki
    factors = s.rfactor(B, axis, case["factor_axis"])
    BF = factors[0] if isinstance(factors, list) else factors
    data = BF.op.axis
    if case["partial"] == "parallel":
        s[BF].parallel(data[0])
    elif case["partial"] == "vectorize":
        s[BF].vectorize(data[-1])
    elif case["partial"] == "compute_at":
        s[BF].compute_at(s[B], s[B].op.reduce_axis[0])
    elif case["partial"] == "split_reduce" and BF.op.reduce_axis:
        s[BF].split(BF.op.reduce_axis[0], factor=2)
    if case["final_split"] is not None:
        s[B].split(s[B].op.axis[0], factor=case["final_split"])
    f = compiler.build(s, [A, *outputs], check_bounds=True)
    a = RNG.integers(-3, 4, (rows, cols)).astype(np.float32)  # small integers: exact sums, ties
    guard = 4
    bufs = [np.full(rows + 2 * guard, -7, dtype=np.int32 if t.dtype == "int32" else np.float32) for t in outputs]
    f(a, *[b[guard : guard + rows] for b in bufs])
    for b in bufs:
        assert (b[:guard] == -7).all()
        assert (b[guard + rows :] == -7).all()
    if case["reducer"] == "argmax":
        np.testing.assert_array_equal(bufs[1][guard : guard + rows], a.max(axis=1))
        np.testing.assert_array_equal(a[np.arange(rows), bufs[0][guard : guard + rows]], a.max(axis=1))
    else:
        expected = a.sum(axis=1) if case["reducer"] == "sum" else a.max(axis=1)
        np.testing.assert_array_equal(bufs[0][guard : guard + rows], expected)
