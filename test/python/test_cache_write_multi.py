"""cache_write of a multi-output stage (TVM's `s.cache_write([C1, C2], scope)`).

Every output moves to one multi-output cache stage, laid out by the stage's loops
(TVM's relayout), and the stage reads each output back. Outputs are written into
views of larger NaN-filled arrays, which must stay NaN outside them.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import compiler
from compiler import te
from compiler.errors import ScheduleError

RNG = np.random.default_rng(4)


def guarded_run(f: compiler.Function, inputs: list[np.ndarray], outputs: list[tuple[tuple[int, ...], str]]) -> list[np.ndarray]:
    pad = 8
    outers = [np.full(int(np.prod(shape)) + 2 * pad, -7, dtype) for shape, dtype in outputs]
    views = [o[pad:-pad].reshape(shape) for o, (shape, _) in zip(outers, outputs, strict=True)]
    f(*inputs, *views)
    for o in outers:
        assert (o[:pad] == -7).all(), "wrote before an output"
        assert (o[-pad:] == -7).all(), "wrote after an output"
    return views


def two_outputs(n: int, m: int) -> tuple[te.Tensor, te.Tensor, te.Tensor, te.Tensor]:
    A = te.placeholder((n, m), name="A")
    B = te.placeholder((n, m), name="B")
    C1, C2 = te.compute((n, m), lambda i, j: (A[i, j] + 1.0, A[i, j] * B[i, j]), name="C")
    return A, B, C1, C2


def test_the_cache_takes_every_output_and_the_relayout() -> None:
    """A split by 4 of 10 rows lays the cache out as 3 x 4 x 5 (the tail guarded)."""
    A, B, C1, C2 = two_outputs(10, 5)
    s = te.create_schedule(C1.op)
    s[C1].split(C1.op.axis[0], factor=4)
    CL = s.cache_write([C1, C2], "local")
    assert isinstance(CL, list)
    assert len(CL) == 2
    assert [tuple(c.shape) for c in CL] == [(3, 4, 5), (3, 4, 5)]
    assert s[CL[1]] is s[CL[0]]
    text = str(compiler.lower(s, [A, B, C1, C2], until="loop"))
    assert re.findall(r'loop\.alloc "(C\.local\.v\d)" \[[^]]*\] : !loop\.buffer<\[([^]]*)\]', text) == [
        ("C.local.v0", "3, 4, 5"),
        ("C.local.v1", "3, 4, 5"),
    ]
    a, b = RNG.random((10, 5), np.float32), RNG.random((10, 5), np.float32)
    c1, c2 = guarded_run(compiler.build(s, [A, B, C1, C2]), [a, b], [((10, 5), "float32")] * 2)
    np.testing.assert_allclose(c1, a + 1.0)
    np.testing.assert_allclose(c2, a * b)


def test_the_cache_can_be_attached_and_split() -> None:
    A, B, C1, C2 = two_outputs(6, 8)
    s = te.create_schedule(C1.op)
    CL = s.cache_write([C1, C2], "local")
    xo, _ = s[C1].split(C1.op.axis[1], factor=4)
    s[CL[0]].compute_at(s[C1], xo)
    text = str(compiler.lower(s, [A, B, C1, C2], until="loop"))
    assert re.findall(r'loop\.alloc (?:local )?"(C\.local\.v\d)" \[[^]]*\] : !loop\.buffer<\[([^]]*)\]', text) == [
        ("C.local.v0", "1, 4"),
        ("C.local.v1", "1, 4"),
    ]
    a, b = RNG.random((6, 8), np.float32), RNG.random((6, 8), np.float32)
    c1, c2 = guarded_run(compiler.build(s, [A, B, C1, C2]), [a, b], [((6, 8), "float32")] * 2)
    np.testing.assert_allclose(c1, a + 1.0)
    np.testing.assert_allclose(c2, a * b)


def argmax_reducer() -> te.CommReducer:
    def combine(x: tuple, y: tuple) -> tuple:
        return te.if_then_else(x[1] >= y[1], x[0], y[0]), te.if_then_else(x[1] >= y[1], x[1], y[1])

    def identity(idx_type: str, val_type: str) -> tuple:
        return te.const(-1, idx_type), te.min_value(val_type)

    return te.comm_reducer(combine, identity, name="argmax")


@pytest.mark.parametrize("factor", [None, 3])
def test_an_argmax_reduction_is_cached_whole(factor: int | None) -> None:
    """A tuple reducer's two outputs in one cache; a split by 3 of 7 rows guards the tail
    of the cache's reduction (its start values there, never read)."""
    argmax = argmax_reducer()
    V = te.placeholder((7, 9), name="V")
    k = te.reduce_axis((0, 9), "k")
    idx, val = te.compute((7,), lambda i: argmax((k.var, V[i, k]), axis=k), name="T")
    s = te.create_schedule(idx.op)
    if factor is not None:
        s[idx].split(idx.op.axis[0], factor=factor)
    s.cache_write([idx, val], "local")
    v = RNG.standard_normal((7, 9)).astype(np.float32)
    out_idx, out_val = guarded_run(compiler.build(s, [V, idx, val]), [v], [((7,), idx.dtype), ((7,), "float32")])
    np.testing.assert_array_equal(out_idx, np.argmax(v, axis=1))
    np.testing.assert_allclose(out_val, v.max(axis=1))


def test_one_output_of_a_multi_output_stage_is_an_error() -> None:
    _, _, C1, C2 = two_outputs(4, 4)
    s = te.create_schedule(C1.op)
    with pytest.raises(ScheduleError, match="C is one output of a multi-output stage; pass the list of all 2 outputs"):
        s.cache_write(C2, "local")
    with pytest.raises(ScheduleError, match=r"must be all the outputs of one computed stage, in order"):
        s.cache_write([C2, C1], "local")
