"""te.schedule.AutoInlineElemWise / AutoInlineBroadcast / AutoInlineInjective (TVM's).

Each inlines the unscheduled intermediate stages of its kind and leaves the others;
what stays is read off the buffers the lowered program allocates.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pytest

import compiler
from compiler import te

RNG = np.random.default_rng(6)
AutoInline = Callable[[te.Schedule], None]


def buffers(s: te.Schedule, args: list[te.Tensor]) -> set[str]:
    """The stages with a buffer (not counting a reduction's register accumulator)."""
    found = re.findall(r'loop\.alloc (?:local )?"([\w.]+)"', str(compiler.lower(s, args, until="loop")))
    return {name for name in found if not name.endswith(".acc")}


def program() -> tuple[list[te.Tensor], te.Tensor]:
    """An elementwise, a broadcast (tagged), an injective (a transpose) and a reduction
    stage, feeding one output."""
    A = te.placeholder((4, 4), name="A")
    B = te.placeholder((4,), name="B")
    E = te.compute((4, 4), lambda i, j: A[i, j] * 2.0, name="E")
    Bc = te.compute((4, 4), lambda i, j: B[j] + 1.0, name="Bc", tag="broadcast")
    T = te.compute((4, 4), lambda i, j: A[j, i] - 1.0, name="T")
    k = te.reduce_axis((0, 4), "k")
    R = te.compute((4,), lambda i: te.sum(A[i, k], axis=k), name="R")
    out = te.compute((4, 4), lambda i, j: E[i, j] + Bc[i, j] + T[i, j] + R[i], name="out")
    return [A, B], out


def reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a * 2 + (b + 1)[None, :] + (a.T - 1) + a.sum(axis=1)[:, None]


@pytest.mark.parametrize(
    ("auto_inline", "kept"),
    [
        (te.schedule.AutoInlineElemWise, {"Bc", "T", "R"}),
        (te.schedule.AutoInlineBroadcast, {"E", "T", "R"}),
        (te.schedule.AutoInlineInjective, {"R"}),
    ],
    ids=["elemwise", "broadcast", "injective"],
)
def test_each_kind_inlines_only_its_stages(auto_inline: AutoInline, kept: set[str]) -> None:
    inputs, out = program()
    s = te.create_schedule(out.op)
    assert buffers(s, [*inputs, out]) == {"E", "Bc", "T", "R"}
    auto_inline(s)
    assert buffers(s, [*inputs, out]) == kept
    a, b = RNG.standard_normal((4, 4)).astype(np.float32), RNG.standard_normal(4).astype(np.float32)
    result = np.zeros((4, 4), np.float32)
    compiler.build(s, [*inputs, out])(a, b, result)
    np.testing.assert_allclose(result, reference(a, b), rtol=1e-5, atol=1e-5)


def test_scheduled_stages_and_outputs_are_kept() -> None:
    A = te.placeholder((8,), name="A")
    P = te.compute((8,), lambda i: A[i] + 1.0, name="P")
    Q = te.compute((8,), lambda i: P[i] * 2.0, name="Q")
    R = te.compute((8,), lambda i: Q[i] - 3.0, name="R")
    s = te.create_schedule([R.op])
    s[P].split(P.op.axis[0], factor=4)  # scheduled: kept
    te.schedule.AutoInlineInjective(s)
    assert buffers(s, [A, R]) == {"P"}
    a, r = RNG.standard_normal(8).astype(np.float32), np.zeros(8, np.float32)
    compiler.build(s, [A, R])(a, r)
    np.testing.assert_allclose(r, (a + 1) * 2 - 3, rtol=1e-6)


def test_a_stage_after_compute_root_is_still_unscheduled() -> None:
    A = te.placeholder((8,), name="A")
    P = te.compute((8,), lambda i: A[i] + 1.0, name="P")
    Q = te.compute((8,), lambda i: P[i] * 2.0, name="Q")
    s = te.create_schedule(Q.op)
    s[P].compute_root()
    te.schedule.AutoInlineElemWise(s)
    assert buffers(s, [A, Q]) == set()
    a, q = RNG.standard_normal(8).astype(np.float32), np.zeros(8, np.float32)
    compiler.build(s, [A, Q])(a, q)
    np.testing.assert_allclose(q, (a + 1) * 2, rtol=1e-6)


def test_a_stage_of_an_attached_group_is_scheduled() -> None:
    A = te.placeholder((8, 8), name="A")
    P = te.compute((8, 8), lambda i, j: A[i, j] + 1.0, name="P")
    Q = te.compute((8, 8), lambda i, j: P[i, j] * 2.0, name="Q")
    R = te.compute((8, 8), lambda i, j: Q[i, j] - 3.0, name="R")
    s = te.create_schedule(R.op)
    s.create_group(outputs=Q, inputs=A).compute_at(s[R], R.op.axis[0])
    te.schedule.AutoInlineElemWise(s)
    assert buffers(s, [A, R]) == {"P", "Q"}


def test_the_tag_is_kept_on_the_op() -> None:
    A = te.placeholder((3,), name="A")
    B = te.compute((3, 3), lambda i, j: A[j], name="B", tag="broadcast")
    C, D = te.compute((3,), lambda i: (A[i], A[i] * 2.0), name="CD", tag="injective")
    assert B.op.tag == "broadcast"
    assert C.op.tag == D.op.tag == "injective"
    assert te.compute((3,), lambda i: A[i], name="E").op.tag == ""


def test_a_stage_attached_then_inlined_is_inlined() -> None:
    """compute_inline after compute_at (or compute_root): the last placement wins."""
    A = te.placeholder((8,), name="A")
    P = te.compute((8,), lambda i: A[i] + 1.0, name="P")
    Q = te.compute((8,), lambda i: P[i] * 2.0, name="Q")
    s = te.create_schedule(Q.op)
    s[P].compute_at(s[Q], Q.op.axis[0])
    s[P].compute_inline()
    assert buffers(s, [A, Q]) == set()
    a, q = RNG.standard_normal(8).astype(np.float32), np.zeros(8, np.float32)
    compiler.build(s, [A, Q])(a, q)
    np.testing.assert_allclose(q, (a + 1) * 2, rtol=1e-6)
