"""Conformance with Apache TVM's tests/python/tir-transform/test_tir_transform_storage_rewrite.py (v0.19.0).

TVM counts the `Allocate` nodes StorageRewrite leaves. Here every
intermediate buffer lives in one arena planned by storage-rewrite, so
"one allocation" reads as "the buffers share one slot of the arena", read
off the memory plan `compiler.build(...).memory` (each buffer's offset,
in-place decisions, the arena size). Tests of the pass on hand-written TIR
are not applicable (see README.md).
"""

from __future__ import annotations

import numpy as np
from conformance_helpers import (
    align64,
    allocs,
    arena_bytes,
    guarded,
    loop_ir,
    loops,
    plan,
    rand,
)

import compiler
from compiler import te


def test_storage_share() -> None:
    m, lv = te.var("m"), te.var("l")
    A = te.placeholder((m, lv), name="A")
    num_stage = 5
    B = A
    for t in range(num_stage):
        B = te.compute((m, lv), lambda i, j, B=B, t=t: B[i, j] + float(t + 1), name=f"A{t}")
    s = te.create_schedule(B.op)
    f = compiler.build(s, [A, B])
    buffers = plan(f)
    assert sorted(buffers) == ["A0", "A1", "A2", "A3"]
    # one allocation: each stage writes in place of the one before
    assert len({b.offset for b in buffers.values()}) == 1
    for t in range(1, 4):
        assert buffers[f"A{t}"].inplace_of == f"A{t - 1}"
    assert arena_bytes(f, m=5, l=7) == align64(5 * 7 * 4)
    a = rand((5, 7))
    b = guarded((5, 7))
    f(a, b.array)
    b.check(a + sum(range(1, num_stage + 1)))


def test_inplace_rule() -> None:
    m = 10
    A = te.placeholder((m,), name="A")
    A0 = te.compute((m,), lambda i: A[i], name="A0")
    A1 = te.compute((m,), lambda i: A[i] + 1.0, name="A1")
    AA = te.compute((m,), lambda i: A0[i] + A1[i] + A1[0], name="AA")
    B = te.compute((m,), lambda i: AA[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    f = compiler.build(s, [A, B])
    buffers = plan(f)
    # two allocations: AA may overwrite A0 (read at i only) but not A1 (A1[0] is read by every i)
    assert len({b.offset for b in buffers.values()}) == 2
    assert buffers["AA"].offset != buffers["A1"].offset
    a = rand(m)
    b = guarded(m)
    f(a, b.array)
    b.check(a + (a + 1.0) + (a[0] + 1.0) + 1.0)


def test_storage_combine() -> None:
    # TVM sets the scope "global:tag" on the 4 intermediate stages so that
    # StorageRewrite merges them into one allocation; here every intermediate
    # is planned in the one arena anyway (the set_scope calls are left out)
    n = 8
    A = te.placeholder((4,), name="A")
    num_stage = 5
    B = A
    for t in range(num_stage):
        B = te.compute((n,), lambda i, B=B, t=t: B[i] + B[0] + float(t + 1), name=f"A{t}")
    s = te.create_schedule(B.op)
    f = compiler.build(s, [A, B])
    buffers = plan(f)
    assert sorted(buffers) == ["A0", "A1", "A2", "A3"]
    # TVM: one allocation of 16 floats, two 8-float buffers used alternately
    # (none can be in place: every element reads element 0 of its input)
    assert len({b.offset for b in buffers.values()}) == 2
    assert all(b.inplace_of is None for b in buffers.values())
    assert arena_bytes(f) == 2 * align64(8 * 4)

    # A0 reads A[0..7] although A has 4 elements (as in TVM's program): A is a
    # view of an 8-element array so those reads are defined
    backing = rand(8)
    b = guarded(n)
    f(backing[:4], b.array)
    x = backing.astype(np.float64)
    for t in range(num_stage):
        x = x + x[0] + (t + 1)
    b.check(x)


def test_storage_combine_with_vectorization() -> None:
    n = 1024
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n,), name="B")
    C = te.compute((n,), lambda i: A[i] + B[i], name="C")
    s = te.create_schedule(C.op)
    AA = s.cache_read(A, "global", readers=[C])  # TVM: "global:tag"
    BB = s.cache_read(B, "global", readers=[C])
    CC = s.cache_write(C, "global")
    s[CC].vectorize(s[CC].op.axis[0])
    f = compiler.build(s, [A, B, C])
    buffers = plan(f)
    # the two vector loads of CC read non-overlapping memory
    aa, bb = buffers[AA.name], buffers[BB.name]
    lo_a, lo_b = int(aa.offset), int(bb.offset)
    assert lo_a >= lo_b + n * 4 or lo_b >= lo_a + n * 4
    a, b = rand(n), rand(n)
    c = guarded(n)
    f(a, b, c.array)
    c.check(a + b)


def test_parallel_alloc() -> None:
    # TVM's test writes the TIR by hand: a buffer allocated inside a parallel
    # loop must stay inside it (one per iteration), not be hoisted and shared.
    # The same situation in TE: a stage computed at a parallel loop.
    n = 64
    A = te.placeholder((n, 16), name="A")
    B = te.compute((n, 16), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((n, 16), lambda i, j: B[i, j] + B[i, 15 - j], name="C")
    s = te.create_schedule(C.op)
    s[C].parallel(C.op.axis[0])
    s[B].compute_at(s[C], C.op.axis[0])
    ir = loop_ir(s, [A, C])
    outer = loops(ir)[0]
    assert outer.kind == "parallel"
    assert allocs(ir)["B"] == (1, 16)
    # one copy per thread: a stack buffer (`loop.alloc local`) inside the parallel loop,
    # which the outlined body allocates in each thread
    alloc_line = next(line for line in ir.splitlines() if 'loop.alloc local "B"' in line)
    assert len(alloc_line) - len(alloc_line.lstrip()) > outer.depth  # inside the parallel loop
    a = rand((n, 16))
    c = guarded((n, 16))
    compiler.build(s, [A, C])(a, c.array)
    c.check(2.0 * a + 2.0 * a[:, ::-1])


def _inplace_rule2_program() -> tuple[list[te.Tensor], te.Tensor, te.Tensor, te.Tensor]:
    m = 10
    A = te.placeholder((m,), name="A")
    C = te.placeholder((m,), name="C")
    D = te.placeholder((m,), name="D")
    A0 = te.compute((m,), lambda i: A[i] + C[i], name="A0")
    A1 = te.compute((m,), lambda i: D[i] * D[i], name="A1")
    A2 = te.compute((m,), lambda i: A0[i] + A1[i], name="A2")
    B = te.compute((m,), lambda i: A2[i], name="B")
    return [A, B, C, D], A0, A1, A2


# TVM caches into a custom memory scope it registers ("local_TB2"); "local" here
def test_inplace_rule2() -> None:
    args, A0, A1, A2 = _inplace_rule2_program()
    B = args[1]
    s = te.create_schedule(B.op)
    s.cache_read(A0, "local", [A2])
    s.cache_read(A1, "local", [A2])
    s.cache_read(A2, "local", [B])
    f = compiler.build(s, args)
    assert int(f.memory.arena) < int(f.memory.no_reuse)  # in-place folding reuses memory
    a, c, d = rand(10), rand(10), rand(10)
    b = guarded(10)
    f(a, b.array, c, d)
    b.check(a + c + d * d)


def test_inplace_rule3() -> None:
    m = 10
    B0, B1, B2, B3, B4, B5 = (te.placeholder((m,), name=f"B{k}") for k in range(6))
    B6 = te.compute((m,), lambda i: B1[i] * B5[i], name="B6")
    B7 = te.compute((m,), lambda i: B2[i] * B4[i], name="B7")
    B8 = te.compute((m,), lambda i: B6[i] - B7[i], name="B8")
    B9 = te.compute((m,), lambda i: B2[i] * B3[i], name="B9")
    B10 = te.compute((m,), lambda i: B0[i] * B5[i], name="B10")
    B11 = te.compute((m,), lambda i: B9[i] - B10[i], name="B11")
    B12 = te.compute((m,), lambda i: B0[i] * B4[i], name="B12")
    B13 = te.compute((m,), lambda i: B1[i] * B3[i], name="B13")
    B14 = te.compute((m,), lambda i: B12[i] - B13[i], name="B14")
    B = te.compute((m,), lambda i: B8[i] * B11[i] + B14[i], name="B")
    s = te.create_schedule(B.op)
    scope = "local"  # TVM: a custom scope it registers ("local_TB3")
    s.cache_read(B1, scope, [B6, B13])
    s.cache_read(B5, scope, [B6, B10])
    s.cache_read(B2, scope, [B7, B9])
    s.cache_read(B4, scope, [B7, B12])
    s.cache_read(B3, scope, [B9, B13])
    s.cache_read(B0, scope, [B10, B12])
    for T in (B8, B11, B14, B6, B7, B9, B10, B12, B13):
        s.cache_write(T, scope)
    for T in (B12, B13, B8, B11, B14, B6, B7, B9, B10):
        s[T].compute_inline()
    f = compiler.build(s, [B0, B1, B2, B3, B4, B5, B])
    assert int(f.memory.arena) < int(f.memory.no_reuse)  # TVM: 70 floats for the 21 buffers
    xs = [rand(m) for _ in range(6)]
    b = guarded(m)
    f(*xs, b.array)
    x0, x1, x2, x3, x4, x5 = xs
    b.check((x1 * x5 - x2 * x4) * (x2 * x3 - x0 * x5) + (x0 * x4 - x1 * x3))


def test_replace_dataflow() -> None:
    shape = (255,)
    A = te.placeholder(shape, name="A")
    B = te.compute(shape, lambda i: A[i] + A[i], name="B")
    C = te.compute(shape, lambda i: A[i] + B[i], name="C")
    D = te.compute(shape, lambda i: A[i] + C[i], name="D")
    E = te.compute(shape, lambda i: A[i] + D[i], name="E")
    s = te.create_schedule(E.op)
    s.cache_read(A, "local", [B, C, D, E])
    a = rand(255)
    e = guarded(255)
    compiler.build(s, [A, E])(a, e.array)
    e.check(5.0 * a)


def test_large_input() -> None:
    # TVM writes the first stage with te.hybrid (a loop nest computing a - b);
    # it is the same computation as a te.compute. Built, not run (1 GiB buffer).
    n = 16384
    shape = (n, n)
    a = te.placeholder(shape, name="a", dtype="int32")
    b = te.placeholder(shape, name="b", dtype="int32")
    c = te.compute(shape, lambda i, j: a[i, j] - b[i, j], name="c")
    d = te.compute(shape, lambda i, j: 1 + c[i, j], name="d")
    s = te.create_schedule(d.op)
    assert allocs(loop_ir(s, [a, b, d]))["c"] == (n, n)  # 268435456 elements, as in TVM
    f = compiler.build(s, [a, b, d])
    assert int(plan(f)["c"].size) == n * n * 4
    assert arena_bytes(f) == n * n * 4
