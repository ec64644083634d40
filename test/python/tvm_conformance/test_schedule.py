"""Conformance with Apache TVM's tests/python/te/test_te_schedule.py (v0.19.0).

Each test builds the program and schedule of the TVM test of the same name,
checks what TVM asserts where this compiler exposes it (leaf axes are
`s[T].leaves`, TVM's `leaf_iter_vars`; loop kinds and regions are read off
the IR after schedule-ops), and runs it against NumPy with guarded outputs.
See README.md for the tests that are not applicable.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from conformance_helpers import (
    allocs,
    guarded,
    loop_ir,
    loops,
    rand,
    same_axes,
)

import compiler
from compiler import te

TILE = "Stage.tile is missing"


def test_schedule_create() -> None:
    m, n, lv = te.var("m"), te.var("n"), te.var("l")
    A = te.placeholder((m, lv), name="A")
    B = te.placeholder((n, lv), name="B")
    AA = te.compute((m, lv), lambda i, j: A[i, j], name="AA")
    T = te.compute((m, n, lv), lambda i, j, k: AA[i, k] * B[j, k], name="T")
    s = te.create_schedule(T.op)
    # TVM also calls s[AA].set_scope("shared"): a GPU memory scope, not applicable here
    xo, xi = s[T].split(T.op.axis[0], factor=10)
    xi1, xi2 = s[T].split(xi, factor=2)
    s[AA].compute_at(s[T], xi1)
    s[AA].split(AA.op.axis[0], factor=10)
    s[T].reorder(xi2, xi1)
    assert any(iv is T.op.axis[1] for iv in s[T].leaves)
    assert same_axes(s[T].leaves, [xo, xi2, xi1, T.op.axis[1], T.op.axis[2]])

    # a pickled schedule (with its tensors) builds the same function
    s2, A2, B2, T2 = pickle.loads(pickle.dumps((s, A, B, T)))
    assert repr(s2.outputs[0].op.body) == repr(s.outputs[0].op.body)

    a, b = rand((23, 4)), rand((3, 4))
    expected = a[:, None, :] * b[None, :, :]
    for sched, args in [(s, [A, B, T]), (s2, [A2, B2, T2])]:
        t = guarded((23, 3, 4))
        compiler.build(sched, args)(a, b, t.array)
        t.check(expected)


def test_reorder() -> None:
    m = te.var("m")
    A = te.placeholder((m,), name="A")
    T = te.compute((m,), lambda i: A[i + 1], name="T")
    s = te.create_schedule(T.op)
    xo, xi = s[T].split(T.op.axis[0], factor=10)
    xi1, xi2 = s[T].split(xi, factor=2)
    order = (xi2, xi1, xo)
    assert not same_axes(s[T].leaves, order)
    s[T].reorder(*order)
    assert same_axes(s[T].leaves, order)
    with pytest.raises(ValueError, match="twice"):
        s[T].reorder(xi2, xi1, xi2)

    # T[m - 1] reads A[m], one past A (as in TVM's program): A is a view of a
    # larger array, so that read is deterministic
    backing = rand(24)
    t = guarded(23)
    compiler.build(s, [A, T])(backing[:23], t.array)
    t.check(backing[1:24])


def test_split() -> None:
    m = te.var("m")
    A = te.placeholder((m,), name="A")
    T = te.compute((m,), lambda i: A[i], name="T")
    s = te.create_schedule(T.op)
    xo, xi = s[T].split(T.op.axis[0], factor=10)
    assert same_axes(s[T].leaves, (xo, xi))
    a = rand(23)
    t = guarded(23)
    compiler.build(s, [A, T])(a, t.array)
    t.check(a)


def _mn_copy() -> tuple[te.Tensor, te.Tensor]:
    m, n = te.var("m"), te.var("n")
    A = te.placeholder((m, n), name="A")
    T = te.compute((m, n), lambda i, j: A[i, j], name="T")
    return A, T


def _run_copy(s: object, A: te.Tensor, T: te.Tensor, shape: tuple[int, int] = (23, 12)) -> None:
    a = rand(shape)
    t = guarded(shape)
    compiler.build(s, [A, T])(a, t.array)
    t.check(a)


def test_tile() -> None:
    A, T = _mn_copy()
    s = te.create_schedule(T.op)
    xo, yo, xi, yi = s[T].tile(T.op.axis[0], T.op.axis[1], x_factor=10, y_factor=5)
    assert same_axes(s[T].leaves, (xo, yo, xi, yi))
    _run_copy(s, A, T)


def test_fuse() -> None:
    A, T = _mn_copy()
    s = te.create_schedule(T.op)
    xo, yo, xi, yi = s[T].tile(T.op.axis[0], T.op.axis[1], x_factor=10, y_factor=5)
    fused = s[T].fuse(xo, yo)
    assert same_axes(s[T].leaves, (fused, xi, yi))
    _run_copy(s, A, T)


def test_fuse_with_split() -> None:
    A, T = _mn_copy()
    s = te.create_schedule(T.op)
    y = T.op.axis[1]
    xo, xi = s[T].split(T.op.axis[0], factor=10)
    fused = s[T].fuse(xi, y)
    assert same_axes(s[T].leaves, (xo, fused))
    _run_copy(s, A, T)


def test_fuse_with_out_of_order_axis() -> None:
    _, T = _mn_copy()
    s = te.create_schedule(T.op)
    y = T.op.axis[1]
    xo, _ = s[T].split(T.op.axis[0], factor=10)
    with pytest.raises(ValueError, match="fuse"):
        s[T].fuse(xo, y)


def test_fuse_with_out_of_order_axis_with_reorder() -> None:
    A, T = _mn_copy()
    s = te.create_schedule(T.op)
    y = T.op.axis[1]
    xo, xi = s[T].split(T.op.axis[0], factor=10)
    s[T].reorder(y, xo, xi)
    fused = s[T].fuse(y, xo)  # adjacent after the reorder: fine
    assert same_axes(s[T].leaves, (fused, xi))
    _run_copy(s, A, T)

    A, T = _mn_copy()
    s = te.create_schedule(T.op)
    y = T.op.axis[1]
    xo, xi = s[T].split(T.op.axis[0], factor=10)
    s[T].reorder(y, xo, xi)
    with pytest.raises(ValueError, match="fuse"):
        s[T].fuse(y, xi)


def test_singleton() -> None:
    A = te.placeholder((), name="A")
    T = te.compute((), lambda: A[()] + 1.0, name="T")  # TVM spells the read A()
    s = te.create_schedule(T.op)
    fused = s[T].fuse()
    assert same_axes(s[T].leaves, (fused,))
    s2, A2, T2 = pickle.loads(pickle.dumps((s, A, T)))
    for sched, args in [(s, [A, T]), (s2, [A2, T2])]:
        t = guarded(())
        compiler.build(sched, args)(np.array(2.5, np.float32), t.array)
        t.check(3.5)


def test_vectorize() -> None:
    A, T = _mn_copy()
    s = te.create_schedule(T.op)
    _, _, xi, yi = s[T].tile(T.op.axis[0], T.op.axis[1], x_factor=10, y_factor=5)
    s[T].vectorize(yi)
    s[T].unroll(xi)
    kinds = [lp.kind for lp in loops(loop_ir(s, [A, T]))]
    assert kinds[-2:] == ["unrolled", "vectorized"]
    _run_copy(s, A, T, (20, 10))


def test_vectorize_commreduce() -> None:
    V = te.placeholder((128,), name="V")
    ax = te.reduce_axis((0, 128), name="ax")
    Out = te.compute((1,), lambda _: te.sum(V[ax], axis=[ax]), name="O")
    s = te.create_schedule(Out.op)
    with pytest.raises(ValueError, match="reduce"):
        s[Out].vectorize(ax)


def test_pragma() -> None:
    m = 100
    A = te.placeholder((m,), name="A")
    T = te.compute((m,), lambda i: A[i], name="T")
    s = te.create_schedule(T.op)
    xo, xi = s[T].split(T.op.axis[0], factor=10)
    s[T].pragma(xo, "pragma1")
    s[T].pragma(xi, "vectorize")  # the vectorize pragma vectorizes the loop
    assert [lp.kind for lp in loops(loop_ir(s, [A, T]))] == ["serial", "vectorized"]
    a = rand(m)
    t = guarded(m)
    compiler.build(s, [A, T])(a, t.array)
    t.check(a)


def test_rfactor() -> None:
    n = te.var("n")
    k1 = te.reduce_axis((0, n), name="k1")
    k2 = te.reduce_axis((0, n), name="k2")
    A = te.placeholder((n, n, n), name="A")
    B = te.compute((n,), lambda i: te.sum(A[i, k1, k2], axis=[k1, k2]), name="B")
    a = rand((6, 6, 6))
    expected = a.sum(axis=(1, 2))

    def run(s: object) -> None:
        b = guarded(6)
        compiler.build(s, [A, B])(a, b.array)
        b.check(expected, rtol=1e-4, atol=1e-4)

    # rfactor over k1: BF[i, k1] sums over k2 only; B sums BF over one axis
    s = te.create_schedule(B.op)
    BF = s.rfactor(B, k1)
    assert len(BF.shape) == 2
    assert [iv.name for iv in BF.op.reduce_axis] == ["k2"]
    assert len(s[B].op.reduce_axis) == 1
    run(s)

    # rfactor over the inner part of a split: BF's first axis is ki (extent 4)
    s = te.create_schedule(B.op)
    _, ki = s[B].split(k1, factor=4)
    s[B].split(B.op.axis[0], factor=8)
    BF = s.rfactor(B, ki)
    assert BF.shape[0] == 4
    assert len(BF.shape) == 2
    assert BF.op.reduce_axis[0].name == "k2"
    run(s)

    # factor_axis=1 puts ki second
    s = te.create_schedule(B.op)
    _, ki = s[B].split(k1, factor=4)
    s[B].split(B.op.axis[0], factor=8)
    BF = s.rfactor(B, ki, 1)
    assert BF.shape[1] == 4
    run(s)


@pytest.mark.parametrize("relation", ["split", "fuse"])
def test_legalize_invalid_attach(relation: str) -> None:
    # TVM lowers with [A, B]; here A stays an intermediate stage (see README)
    A = te.compute((10, 10), lambda i, j: 1.0, name="A")
    B = te.compute((10, 10), lambda i, j: A[i, j], name="B")
    s = te.create_schedule([B.op])
    s[A].compute_at(s[B], B.op.axis[1])
    if relation == "split":
        s[B].split(B.op.axis[1], 2)
    else:
        s[B].fuse(B.op.axis[0], B.op.axis[1])
    # TVM moves the attach point to the split's inner axis (or to the fused axis):
    # A is still computed one element at a time, inside B's innermost loop
    assert allocs(loop_ir(s, [B]))["A"] == (1, 1)
    b = guarded((10, 10))
    compiler.build(s, [B])(b.array)
    b.check(1.0)


def _add() -> tuple[te.Tensor, te.Tensor, te.Tensor]:
    A = te.compute((16, 16), lambda i, j: 1.0, name="A")
    B = te.compute((16, 16), lambda i, j: 2.0, name="B")
    C = te.compute((16, 16), lambda i, j: A[i, j] + B[i, j], name="C")
    return A, B, C


def test_compute_at() -> None:
    # attached to itself
    _, _, C = _add()
    s = te.create_schedule(C.op)
    s[C].compute_at(s[C], C.op.axis[0])
    with pytest.raises(ValueError, match="compute_at"):
        compiler.lower(s, [C], until="loop")

    # a cycle: A at C, C at A
    A, _, C = _add()
    s = te.create_schedule(C.op)
    s[A].compute_at(s[C], C.op.axis[0])
    s[C].compute_at(s[A], A.op.axis[0])
    with pytest.raises(ValueError, match="compute_at"):
        compiler.lower(s, [C], until="loop")

    # the same cycle between two intermediate stages
    A, _, C = _add()
    D = te.compute((16, 16), lambda i, j: C[i, j] * 2.0, name="D")
    s = te.create_schedule(D.op)
    s[A].compute_at(s[C], C.op.axis[0])
    s[C].compute_at(s[A], A.op.axis[0])
    with pytest.raises(ValueError, match="cycle"):
        compiler.lower(s, [D], until="loop")


# TVM also runs split_factor = 4 * vscale (scalable vectors, SVE): not applicable
@pytest.mark.parametrize("disable_predication", [True, False])
def test_split_disable_predicate(disable_predication: bool) -> None:
    A = te.placeholder((43,), name="A")
    B = te.compute(A.shape, lambda i: A[i] + 2.0, name="C")
    s = te.create_schedule(B.op)
    (i,) = s[B].op.axis
    if disable_predication:
        s[B].split(i, factor=4, disable_predication=True)
        # TVM drops the predicate: 11 x 4 iterations write C[43]. Here the split is
        # rejected unless 4 provably divides the extent; with 44 elements it does, and
        # the loops are TVM's, 11 x 4 without a predicate
        with pytest.raises(compiler.CompilerError, match="the extent 43 is not provably a multiple of 4"):
            loop_ir(s, [A, B])
        A = te.placeholder((44,), name="A")
        B = te.compute(A.shape, lambda i: A[i] + 2.0, name="C")
        s = te.create_schedule(B.op)
        s[B].split(s[B].op.axis[0], factor=4, disable_predication=True)
        ir = loop_ir(s, [A, B])
        assert "loop.if" not in ir
        assert [lp.extent for lp in loops(ir)] == [11, 4]
        a, b = rand(44), guarded(44)
        compiler.build(s, [A, B])(a, b.array)
        b.check(a + 2.0)
        return
    s[B].split(i, factor=4)
    ir = loop_ir(s, [A, B])
    outer, inner = loops(ir)
    assert outer.extent == 11
    # the last 3 elements are predicated: a guard, or an inner extent min(4, 43 - 4 * o)
    assert "loop.if" in ir or inner.extent is None
    a = rand(43)
    b = guarded(43)
    compiler.build(s, [A, B])(a, b.array)
    b.check(a + 2.0)
