"""Fusing a data-parallel axis with a reduce axis (TVM's test_reduction_and_dummy_fuse_split).

The fused loop is a reduce loop that also runs over data (TVM's fuse takes the
larger iteration type): the reduction is initialised in a nest of its own before
the loops, over every loop that is not purely of reduce axes, then accumulated in
place. Every schedule runs against NumPy with its output inside guard memory.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pytest

import compiler
from compiler import te
from compiler.errors import ScheduleError

RNG = np.random.default_rng(5)


def run(s: te.Schedule, args: list[te.Tensor], inputs: list[np.ndarray], shape: tuple[int, ...]) -> np.ndarray:
    pad = 8
    outer = np.full(int(np.prod(shape)) + 2 * pad, np.nan, np.float32)
    out = outer[pad:-pad].reshape(shape)
    compiler.build(s, args)(*inputs, out)
    assert np.isnan(outer[:pad]).all(), "wrote before the output"
    assert np.isnan(outer[-pad:]).all(), "wrote after the output"
    return out


def row_sum(n: int, m: int) -> tuple[te.Tensor, te.Tensor, te.IterVar]:
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), "k")
    Y = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="Y")
    return A, Y, k


def fuse_data_reduce(s: te.Schedule, Y: te.Tensor, k: te.IterVar) -> None:
    s[Y].fuse(Y.op.axis[0], k)


def fuse_reduce_data(s: te.Schedule, Y: te.Tensor, k: te.IterVar) -> None:
    s[Y].reorder(k, Y.op.axis[0])
    s[Y].fuse(k, Y.op.axis[0])


def fuse_then_split(s: te.Schedule, Y: te.Tensor, k: te.IterVar) -> None:
    s[Y].split(s[Y].fuse(Y.op.axis[0], k), factor=7)


def split_then_fuse(s: te.Schedule, Y: te.Tensor, k: te.IterVar) -> None:
    ko, ki = s[Y].split(k, factor=4)
    s[Y].reorder(ko, Y.op.axis[0], ki)
    s[Y].fuse(Y.op.axis[0], ki)


@pytest.mark.parametrize(
    "schedule", [fuse_data_reduce, fuse_reduce_data, fuse_then_split, split_then_fuse], ids=lambda f: f.__name__
)
@pytest.mark.parametrize(("n", "m"), [(5, 6), (3, 9)])
def test_a_data_axis_fused_with_a_reduce_axis(
    schedule: Callable[[te.Schedule, te.Tensor, te.IterVar], None], n: int, m: int
) -> None:
    A, Y, k = row_sum(n, m)
    s = te.create_schedule(Y.op)
    schedule(s, Y, k)
    a = RNG.standard_normal((n, m)).astype(np.float32)
    np.testing.assert_allclose(run(s, [A, Y], [a], (n,)), a.sum(axis=1), rtol=1e-5, atol=1e-5)


def test_the_init_nest_runs_over_the_fused_loop() -> None:
    A, Y, k = row_sum(4, 6)
    s = te.create_schedule(Y.op)
    fuse_data_reduce(s, Y, k)
    text = str(compiler.lower(s, [A, Y], until="loop"))
    loops = re.findall(r"loop\.for %(\w+) = %\w+ extent %\w+", text)
    assert loops == ["Y_i_f_init", "Y_i_f"]  # no accumulator: Y[i] is updated in place
    assert "acc" not in text


def test_max_over_a_fused_inner_pair_in_a_parallel_loop() -> None:
    A = te.placeholder((3, 4, 5), name="A")
    k = te.reduce_axis((0, 5), "k")
    Y = te.compute((3, 4), lambda i, j: te.max(A[i, j, k], axis=k), name="Y")
    s = te.create_schedule(Y.op)
    s[Y].fuse(Y.op.axis[1], k)
    s[Y].parallel(Y.op.axis[0])
    a = RNG.standard_normal((3, 4, 5)).astype(np.float32)
    np.testing.assert_allclose(run(s, [A, Y], [a], (3, 4)), a.max(axis=2))


def test_a_producer_attached_at_the_fused_loop_is_one_element() -> None:
    A = te.placeholder((4, 6), name="A")
    P = te.compute((4, 6), lambda i, j: A[i, j] * 2.0, name="P")
    k = te.reduce_axis((0, 6), "k")
    Y = te.compute((4,), lambda i: te.sum(P[i, k], axis=k), name="Y")
    s = te.create_schedule(Y.op)
    f = s[Y].fuse(Y.op.axis[0], k)
    s[P].compute_at(s[Y], f)
    text = str(compiler.lower(s, [A, Y], until="loop"))
    assert re.search(r'loop\.alloc (local )?"P" \[[^]]*\] : !loop\.buffer<\[1, 1\], f32>', text)
    a = RNG.standard_normal((4, 6)).astype(np.float32)
    np.testing.assert_allclose(run(s, [A, Y], [a], (4,)), 2 * a.sum(axis=1), rtol=1e-5, atol=1e-5)


def test_the_fused_axis_is_a_reduce_axis() -> None:
    _, Y, k = row_sum(4, 6)
    s = te.create_schedule(Y.op)
    f = s[Y].fuse(Y.op.axis[0], k)
    assert f.is_reduce
    with pytest.raises(ScheduleError, match="reduce axis"):
        s[Y].parallel(f)
    with pytest.raises(ScheduleError, match='of "Y" fuses data-parallel and reduce axes; only a loop of reduce axes alone can be factored'):
        s.rfactor(Y, f)


def test_rfactor_of_a_reduce_loop_split_off_a_mixed_one_is_an_error() -> None:
    _, Y, k = row_sum(4, 6)
    s = te.create_schedule(Y.op)
    ko, ki = s[Y].split(k, factor=2)
    s[Y].reorder(ko, Y.op.axis[0], ki)
    s[Y].fuse(Y.op.axis[0], ki)
    with pytest.raises(ScheduleError, match=r'k\.outer of "Y" fuses data-parallel and reduce axes'):
        s.rfactor(Y, ko)
