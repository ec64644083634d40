"""Schedules end to end: the InferBound document's examples, API errors, and
random valid schedules (hypothesis) that must not change any result."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from long_tests import examples

import compiler
from compiler import ops, te
from compiler.te.schedule import Schedule

RNG = np.random.default_rng(1)


def rand(*shape: int) -> np.ndarray:
    return RNG.uniform(-1.0, 1.0, shape).astype(np.float32)


def const_c_d(shape_d: tuple[int, ...] = (5, 16)) -> tuple[te.Tensor, te.Tensor]:
    C = te.compute((5, 16), lambda i, j: te.const(5.0) + i.astype("float32") + j.astype("float32"), name="C")
    if len(shape_d) == 3:
        D = te.compute(shape_d, lambda di, dj, dk: C[dj, dk] * 2.0, name="D")
    else:
        D = te.compute(shape_d, lambda i, j: C[i, j] * 2.0, name="D")
    return C, D


def c_reference() -> np.ndarray:
    i, j = np.meshgrid(np.arange(5), np.arange(16), indexing="ij")
    return (5.0 + i + j).astype(np.float32)


@pytest.mark.parametrize("example", ["ex1", "ex2", "ex3", "ex5"])
def test_document_examples_2d(example: str) -> None:
    C, D = const_c_d()
    s = te.create_schedule(D.op)
    if example == "ex2":
        s[C].compute_at(s[D], D.op.axis[1])
    elif example == "ex3":
        s[C].compute_at(s[D], D.op.axis[0])
    elif example == "ex5":
        _, xi = s[D].split(D.op.axis[1], factor=8)
        s[C].compute_at(s[D], xi)
    f = compiler.build(s, [D])
    d = np.zeros((5, 16), np.float32)
    f(d)
    np.testing.assert_array_equal(d, c_reference() * 2)


def test_document_example_4_and_chain() -> None:
    C, D = const_c_d((4, 5, 16))
    s = te.create_schedule(D.op)
    s[C].compute_at(s[D], D.op.axis[2])
    d = np.zeros((4, 5, 16), np.float32)
    compiler.build(s, [D])(d)
    np.testing.assert_array_equal(d, np.broadcast_to(c_reference() * 2, (4, 5, 16)))

    C, D = const_c_d()
    E = te.compute((5, 16), lambda i, j: D[i, j] * 4.0, name="E")
    s = te.create_schedule(E.op)
    s[C].compute_at(s[D], D.op.axis[1])
    s[D].compute_at(s[E], E.op.axis[1])
    loop_ir = str(compiler.lower(s, [E], until="loop"))
    assert 'loop.alloc local "D" [%E_i, %E_j] : !loop.buffer<[1, 1], f32>' in loop_ir
    e = np.zeros((5, 16), np.float32)
    compiler.build(s, [E])(e)
    np.testing.assert_array_equal(e, c_reference() * 8)


@pytest.mark.parametrize("mode", ["tight", "guard"])
def test_split_that_does_not_divide_writes_nothing_outside(mode: str) -> None:
    """21 elements split by 8: the last inner loop stops at the end (tight) or is
    guarded (guard); either way nothing past element 21 is written."""
    from compiler.context import make_context
    from compiler.driver import compile_module
    from compiler.passes.infer_bound import InferBoundPass
    from compiler.passes.schedule_ops import ScheduleOpsPass
    from compiler.te.to_ir import build_module

    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    s[B].split(B.op.axis[0], factor=8)
    module, _ = build_module([A, B], "main", s)
    for p in (InferBoundPass(split_mode=mode), ScheduleOpsPass()):
        p.apply(make_context(), module)
    loop_ir = str(module)
    assert ("arith.minsi" in loop_ir) == (mode == "tight")
    assert ("loop.if" in loop_ir) == (mode == "guard")
    f = compile_module(module, "main")
    a = rand(21)
    guard = np.full(32, 7.0, np.float32)
    f(a, guard[:21])
    np.testing.assert_allclose(guard[:21], a + 1.0)
    np.testing.assert_array_equal(guard[21:], 7.0)


def test_schedule_errors_are_clear() -> None:
    A = te.placeholder((4, 8), name="A")
    B = te.compute((4, 8), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((4, 8), lambda i, j: A[i, j] + 1.0, name="C")
    D = te.compute((4, 8), lambda i, j: B[i, j] + C[i, j], name="D")
    k = te.reduce_axis((0, 8), "k")
    R = te.compute((4,), lambda i: te.sum(A[i, k], axis=k), name="R")
    s = te.create_schedule(D.op)
    s[B].split(B.op.axis[0], factor=2)
    with pytest.raises(ValueError, match="already split or fused"):
        s[B].split(B.op.axis[0], factor=2)
    with pytest.raises(ValueError, match="belongs to stage D"):
        s[B].reorder(D.op.axis[0])
    s2 = te.create_schedule([D.op, R.op])
    s2[B].compute_at(s2[R], R.op.axis[0])
    with pytest.raises(ValueError, match='"B" is computed inside loop R_i of "R", which does not read it, but "D" reads it outside'):
        compiler.build(s2, [A, D, R])
    with pytest.raises(ValueError, match="parallel: k is a reduce axis; its iterations update the same elements and can't run in parallel"):
        s2[R].parallel(k)
    s3 = te.create_schedule([D.op, R.op])
    with pytest.raises(ValueError, match='stage "R" is a reduction'):
        s3[R].compute_inline()


# ---------------------------------------------------------------------------
# Random valid schedules
# ---------------------------------------------------------------------------

Program = tuple[list[te.Tensor], Callable[[list[np.ndarray]], list[np.ndarray]], list[tuple[int, ...]]]


def elementwise_chain() -> Program:
    A = te.placeholder((6, 10), name="A")
    B = te.compute((6, 10), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((6, 10), lambda i, j: B[i, j] + 1.0, name="C")
    D = te.compute((6, 10), lambda i, j: C[i, j] * C[i, j], name="D")
    return [A, D], lambda xs: [((xs[0] * 2 + 1) ** 2)], [(6, 10)]


def matmul() -> Program:
    A = te.placeholder((7, 9), name="A")
    B = te.placeholder((9, 5), name="B")
    C = ops.matmul(A, B, name="C")
    D = te.compute((7, 5), lambda i, j: C[i, j] + 1.0, name="D")
    return [A, B, D], lambda xs: [xs[0] @ xs[1] + 1.0], [(7, 9), (9, 5)]


def pad_conv() -> Program:
    X = te.placeholder((1, 2, 7, 6), name="X")
    W = te.placeholder((3, 2, 3, 3), name="W")
    Y = ops.conv2d_nchw(X, W, padding=1, name="Y")
    Z = ops.relu(Y, name="Z")

    def reference(xs: list[np.ndarray]) -> list[np.ndarray]:
        from references import conv2d_reference

        return [np.maximum(conv2d_reference(xs[0], xs[1], 1, 1), 0)]

    return [X, W, Z], reference, [(1, 2, 7, 6), (3, 2, 3, 3)]


def two_consumers() -> Program:
    A = te.placeholder((12,), name="A")
    B = te.compute((12,), lambda i: A[i] * 3.0, name="B")
    C = te.compute((10,), lambda i: B[i] + B[i + 2], name="C")
    D = te.compute((10,), lambda i: B[i + 1] * 2.0, name="D")
    E = te.compute((10,), lambda i: C[i] - D[i], name="E")

    def reference(xs: list[np.ndarray]) -> list[np.ndarray]:
        b = xs[0] * 3
        return [b[:10] + b[2:12] - b[1:11] * 2]

    return [A, E], reference, [(12,)]


PROGRAMS = {"chain": elementwise_chain, "matmul": matmul, "pad_conv": pad_conv, "two_consumers": two_consumers}


def random_schedule(data: st.DataObject, args: list[te.Tensor]) -> Schedule:
    from compiler.te.tensors import collect_stages

    outputs = [t for t in args if not t.is_placeholder]
    s = te.create_schedule([t.op for t in outputs])
    stages = collect_stages(outputs)
    consumers = {t.uid: [c for c in stages if _reads(c, t)] for t in stages}
    inlined: set[int] = set()
    for t in stages:
        if t in outputs or t.op.reduce_axis or any(c.uid in inlined for c in consumers[t.uid]):
            continue
        if data.draw(st.booleans(), label=f"inline {t.name}"):
            s[t].compute_inline()
            inlined.add(t.uid)
    for t in stages:
        if t.uid in inlined:
            continue
        stage = s[t]
        for _ in range(data.draw(st.integers(0, 2), label=f"splits of {t.name}")):
            leaf = data.draw(st.sampled_from(stage.leaves))
            stage.split(leaf, factor=data.draw(st.integers(1, 5), label="factor"))
        if len(stage.leaves) > 1 and data.draw(st.booleans(), label=f"reorder {t.name}"):
            order = data.draw(st.permutations(stage.leaves), label="order")
            stage.reorder(*order)
        pairs = [k for k in range(len(stage.leaves) - 1) if stage.leaves[k].is_reduce == stage.leaves[k + 1].is_reduce]
        if pairs and data.draw(st.booleans(), label=f"fuse {t.name}"):
            k = data.draw(st.sampled_from(pairs))
            stage.fuse(stage.leaves[k], stage.leaves[k + 1])
        kind = data.draw(st.sampled_from(["none", "vectorize", "unroll", "parallel"]), label="annotate")
        target = stage.leaves[-1] if kind != "parallel" else stage.leaves[0]
        if kind != "none" and not (kind in ("parallel", "vectorize") and target.is_reduce):
            getattr(stage, kind)(target)
    def live_consumers(t: te.Tensor) -> list[te.Tensor]:
        found: list[te.Tensor] = []
        for c in consumers[t.uid]:
            found += live_consumers(c) if c.uid in inlined else [c]
        return found

    for t in stages:
        live = live_consumers(t)
        if t in outputs or t.uid in inlined or len(live) != 1:
            continue
        if data.draw(st.booleans(), label=f"compute_at {t.name}"):
            target = s[live[0]]
            s[t].compute_at(target, data.draw(st.sampled_from(target.leaves), label="at"))
    return s


def _reads(consumer: te.Tensor, producer: te.Tensor) -> bool:
    assert consumer.op.body is not None
    return any(isinstance(n, te.Read) and n.tensor is producer for n in te.walk(consumer.op.body))


@pytest.mark.parametrize("program", sorted(PROGRAMS))
@settings(
    max_examples=examples(4, 12, "SCHEDULE_EXAMPLES"),  # raise it for a thorough local run
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(data=st.data())
def test_random_schedules_match_numpy(program: str, data: st.DataObject) -> None:
    args, reference, input_shapes = PROGRAMS[program]()
    s = random_schedule(data, args)
    f = compiler.build(s, args)  # also checks the memory plan (verify-memory-plan)
    inputs = [rand(*shape) for shape in input_shapes]
    expected = reference(inputs)
    outputs = [np.full(e.shape, np.nan, np.float32) for e in expected]
    f(*inputs, *outputs)
    for got, want in zip(outputs, expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_parallel_loops_run_on_openmp() -> None:
    A = te.placeholder((64, 48), name="A")
    B = te.placeholder((48, 40), name="B")
    C = ops.matmul(A, B, name="C")
    s = te.create_schedule(C.op)
    i, j = C.op.axis
    s[C].parallel(i)
    s[C].vectorize(j)
    f = compiler.build(s, [A, B, C])
    assert "GOMP_parallel" in f.llvm_ir
    a, b = rand(64, 48), rand(48, 40)
    c = np.zeros((64, 40), np.float32)
    for _ in range(5):  # repeated, to give a race a chance to show
        f(a, b, c)
        np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
