"""Schedule.create_group (TVM's group stages): stages attached as one.

The regions each stage of an attached group gets are read off the IR after
schedule-ops (the shape of its `loop.alloc`); every program also runs against
NumPy with its output inside a larger array that must stay untouched.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import compiler
from compiler import te
from compiler.errors import ScheduleError

RNG = np.random.default_rng(10)


def alloc_shapes(s: te.Schedule, args: list[te.Tensor]) -> dict[str, tuple[str, ...]]:
    text = str(compiler.lower(s, args, until="loop"))
    found = re.findall(r'loop\.alloc (?:local )?"([\w.]+)" \[[^]]*\] : !loop\.buffer<\[([^]]*)\]', text)
    return {name: tuple(d.strip().strip('"') for d in dims.split(",")) for name, dims in found}


def run_guarded(f: compiler.Function, inputs: list[np.ndarray], shape: tuple[int, ...], expected: np.ndarray) -> None:
    pad = 16
    outer = np.full(int(np.prod(shape)) + 2 * pad, np.nan, np.float32)
    out = outer[pad:-pad].reshape(shape)
    f(*inputs, out)
    assert np.isnan(outer[:pad]).all(), "wrote before the output"
    assert np.isnan(outer[-pad:]).all(), "wrote after the output"
    np.testing.assert_allclose(out, expected, rtol=1e-5)


def stencil(n: int) -> tuple[te.Tensor, te.Tensor, te.Tensor, te.Tensor]:
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
    C = te.compute((n - 1,), lambda i: B[i] + B[i + 1], name="C")
    D = te.compute((n - 1,), lambda i: C[i] + 1.0, name="D")
    return A, B, C, D


@pytest.mark.parametrize("n", [17, 16, 5])
def test_group_under_a_split_gets_each_stage_its_tile(n: int) -> None:
    """{B, C} at D's outer loop: C 4 elements a tile, B 5 (C reads B[i + 1])."""
    A, B, C, D = stencil(n)
    s = te.create_schedule(D.op)
    xo, _ = s[D].split(D.op.axis[0], factor=4)
    g = s.create_group(outputs=C, inputs=A)
    g.compute_at(s[D], xo)
    assert s[B].group is g
    assert s[C].group is g
    assert g.group is None
    assert alloc_shapes(s, [A, D]) == {"B": ("5",), "C": ("4",)}
    a = RNG.standard_normal(n).astype(np.float32)
    b = a * 2
    run_guarded(compiler.build(s, [A, D]), [a], (n - 1,), b[:-1] + b[1:] + 1)


def test_a_stage_attached_inside_its_group() -> None:
    """B computed at C's loop inside the group {B, C}, which is at D's outer loop."""
    A, B, C, D = stencil(12)
    s = te.create_schedule(D.op)
    xo, _ = s[D].split(D.op.axis[0], factor=4)
    g = s.create_group(outputs=C, inputs=A)
    g.compute_at(s[D], xo)
    s[B].compute_at(s[C], C.op.axis[0])
    assert alloc_shapes(s, [A, D]) == {"B": ("2",), "C": ("4",)}
    a = RNG.standard_normal(12).astype(np.float32)
    b = a * 2
    run_guarded(compiler.build(s, [A, D]), [a], (11,), b[:-1] + b[1:] + 1)


def test_compute_root_puts_the_group_back() -> None:
    A, _, C, D = stencil(9)
    s = te.create_schedule(D.op)
    g = s.create_group(outputs=C, inputs=A)
    g.compute_at(s[D], D.op.axis[0])
    g.compute_root()
    assert alloc_shapes(s, [A, D]) == {"B": ("9",), "C": ("8",)}
    a = RNG.standard_normal(9).astype(np.float32)
    b = a * 2
    run_guarded(compiler.build(s, [A, D]), [a], (8,), b[:-1] + b[1:] + 1)


def test_a_group_of_all_of_another_nests_it() -> None:
    A, B, C, D = stencil(9)
    s = te.create_schedule(D.op)
    inner = s.create_group(outputs=B, inputs=A)
    outer = s.create_group(outputs=C, inputs=A)
    assert s[B].group is inner
    assert inner.group is outer
    assert s[C].group is outer


def test_an_input_the_outputs_do_not_read_is_an_error() -> None:
    A, _, C, D = stencil(9)
    s = te.create_schedule(D.op)
    with pytest.raises(ScheduleError, match=r"input\(s\) D are not read by the outputs"):
        s.create_group(outputs=C, inputs=[A, D])


def test_a_group_cutting_through_another_is_an_error() -> None:
    A, B, C, D = stencil(9)
    s = te.create_schedule(D.op)
    s.create_group(outputs=C, inputs=A)  # {B, C}
    with pytest.raises(ScheduleError, match=re.escape('create_group cuts through group "group0": its stage(s) B')):
        s.create_group(outputs=D, inputs=B)  # {C, D}: part of group0


def test_a_group_inside_its_own_stage_is_an_error() -> None:
    A, _, C, D = stencil(9)
    s = te.create_schedule(D.op)
    g = s.create_group(outputs=C, inputs=A)
    with pytest.raises(ScheduleError, match=re.escape('compute_at: stage "C" is in group "group0", which can\'t be computed inside one of its own stages')):
        g.compute_at(s[C], C.op.axis[0])


def test_a_stage_of_a_group_attached_outside_it_is_rejected_at_build() -> None:
    A, B, C, D = stencil(9)
    s = te.create_schedule(D.op)
    s.create_group(outputs=B, inputs=A)
    s[B].compute_at(s[C], C.op.axis[0])
    with pytest.raises(ScheduleError, match='stage "B" is in group "group0"; it can only be computed at a stage of that group'):
        compiler.build(s, [A, D])
