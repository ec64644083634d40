"""Conformance with Apache TVM's tests/python/te/test_te_build_lower.py (v0.19.0)."""

from __future__ import annotations

from conformance_helpers import guarded, loop_ir, loops, rand

import compiler
from compiler import te


def test_lower_rfactor() -> None:
    # TVM binds xo, xi and B's reduce axis to GPU threads (blockIdx.x, threadIdx.y,
    # threadIdx.x); those binds are left out: the rest of the schedule runs on the CPU
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), "k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    _, ki = s[B].split(B.op.reduce_axis[0], factor=16)
    BF = s.rfactor(B, ki)
    s[B].split(s[B].op.axis[0], factor=32)
    s[BF].compute_at(s[B], s[B].op.reduce_axis[0])
    a = rand((5, 40))
    b = guarded(5)
    compiler.build(s, [A, B])(a, b.array)
    b.check(a.sum(axis=1), rtol=1e-4, atol=1e-4)


def test_dependent_output_shape() -> None:
    n, m, x = te.var("n"), te.var("m"), te.var("x")
    A = te.placeholder((n, m), name="A")
    B = te.compute((m, n // x), lambda i, j: A[i, j], name="B")
    s = te.create_schedule(B.op)
    f = compiler.build(s, [A, B, x])
    a = rand((6, 6))
    b = guarded((6, 3))
    f(a, b.array, 2)
    b.check(a[:, :3])


def test_split_uneven_unique_likely() -> None:
    a = te.placeholder((16, 16), name="a")
    b = te.placeholder((16, 16), name="b")
    c = te.compute((16, 16), lambda x, y: a[x, y] + b[x, y], name="c")
    x, _ = c.op.axis
    sch = te.create_schedule(c.op)
    sch[c].split(x, 5)
    ir = loop_ir(sch, [a, b, c])
    # TVM: the tail of the uneven split is predicated once (one likely guard,
    # around the body of the split loops). Here a tight split bounds the inner
    # loop instead (extent min(5, 16 - 5 * xo)); either way at most one guard.
    outer, inner, _ = loops(ir)
    assert outer.extent == 4
    assert ir.count("loop.if") + (inner.extent is None) == 1
    av, bv = rand((16, 16)), rand((16, 16))
    cv = guarded((16, 16))
    compiler.build(sch, [a, b, c])(av, bv, cv.array)
    cv.check(av + bv)
