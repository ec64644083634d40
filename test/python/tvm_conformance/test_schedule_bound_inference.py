"""Conformance with Apache TVM's tests/python/te/test_te_schedule_bound_inference.py (v0.19.0).

TVM's tests read `InferBound(s)[iv].extent`. Here the same numbers are read
off the IR after schedule-ops: the realized region of an attached stage is
the shape of its `loop.alloc`, and a leaf axis' extent is its `loop.for`
extent. Every program is also built and run against NumPy with guarded
outputs. TVM's `s.normalize()` has no counterpart (every domain starts at
0 here) and is left out. See README.md for the tests that are not applicable.
"""

from __future__ import annotations

import numpy as np
import pytest
from conformance_helpers import (
    allocs,
    guarded,
    isolated,
    loop_ir,
    loop_named,
    loops,
    rand,
)

import compiler
from compiler import te

TILE = "Stage.tile is missing"
SPLIT_TAIL_REGION = (
    "the region of a stage attached under a split whose factor does not divide the extent "
    "(or whose extent is symbolic) is the whole tensor (loop.alloc ['m', 'l'], or [36, 7] for "
    "m = 36) instead of the factor's 8 rows: its extent min(8, m - 8 * xo) is not bounded by "
    "the factor"
)


def _a1_a2(m: object, lv: object) -> tuple[te.Tensor, te.Tensor, te.Tensor]:
    A = te.placeholder((m, lv), name="A")
    A1 = te.compute((m, lv), lambda i, j: A[i, j], name="A1")
    A2 = te.compute((m, lv), lambda i, j: A1[i, j] + 3.0, name="A2")
    return A, A1, A2


def _run_a2(s: object, A: te.Tensor, A2: te.Tensor, shape: tuple[int, int]) -> None:
    a = rand(shape)
    a2 = guarded(shape)
    compiler.build(s, [A, A2])(a, a2.array)
    a2.check(a + 3.0)


def _bound1(m: object, lv: object) -> None:
    A, A1, A2 = _a1_a2(m, lv)
    s = te.create_schedule([A2.op])
    xo, _ = s[A2].split(s[A2].op.axis[0], 8)
    s[A1].compute_at(s[A2], xo)
    _run_a2(s, A, A2, (m if isinstance(m, int) else 20, lv if isinstance(lv, int) else 7))
    # TVM allocates 8 rows; with a symbolic m this project allocates min(m, 8) (never more).
    assert allocs(loop_ir(s, [A, A2]))["A1"][0] in (8, "min(m, 8)")


def test_bound1() -> None:
    _bound1(te.var("m"), te.var("l"))


def test_bound1_divisible_constant_shape() -> None:
    """test_bound1 with m, l = 32, 7 (8 divides m): the attached region is 8 rows."""
    _bound1(32, 7)


def test_bound2() -> None:
    A, A1, A2 = _a1_a2(te.var("m"), te.var("l"))
    s = te.create_schedule(A2.op)
    _, yo, _, _ = s[A2].tile(A2.op.axis[0], A2.op.axis[1], 8, 8)
    s[A1].compute_at(s[A2], yo)
    # TVM: 8 x 8. The region is min(m, 8) x min(l, 8); a tile bounded by constants is
    # allocated at those bounds (on the stack), as TVM's.
    assert allocs(loop_ir(s, [A, A2]))["A1"] == (8, 8)
    _run_a2(s, A, A2, (20, 13))


def _ef_e() -> tuple[te.Tensor, te.Tensor, te.Tensor]:
    m = 8
    Inp = te.placeholder((m,), name="I")
    EF = te.compute((m,), lambda i: Inp[i] * 2.0, name="EF")
    E = te.compute((m,), lambda i: EF[i] * 2.0, name="E")
    return Inp, EF, E


def _run_e(s: object, Inp: te.Tensor, E: te.Tensor) -> None:
    x = rand(8)
    e = guarded(8)
    compiler.build(s, [Inp, E])(x, e.array)
    e.check(x * 4.0)


def test_bound_split_ext_less_than_factor() -> None:
    Inp, EF, E = _ef_e()
    s = te.create_schedule([E.op])
    xo, _ = s[E].split(s[E].op.axis[0], factor=32)
    s[EF].compute_at(s[E], xo)
    ir = loop_ir(s, [Inp, E])
    assert loop_named(ir, "E_i_i").extent == 8
    assert loop_named(ir, "E_i_o").extent == 1
    assert allocs(ir)["EF"] == (8,)
    _run_e(s, Inp, E)


@isolated  # a split by nparts once ran 32 outer iterations here, writing E[8..31]
def test_bound_split_ext_less_than_naprts() -> None:
    Inp, EF, E = _ef_e()
    s = te.create_schedule([E.op])
    xo, _ = s[E].split(s[E].op.axis[0], nparts=32)
    s[EF].compute_at(s[E], xo)
    _run_e(s, Inp, E)
    assert loop_named(loop_ir(s, [Inp, E]), "E_i_o").extent == 8


def test_bound_split_divisible() -> None:
    m, lv = te.var("m"), te.var("l")
    A = te.placeholder((8 * m, lv), name="A")
    B = te.compute((8 * m, lv), lambda i, j: A[i, j], name="B")
    s = te.create_schedule(B.op)
    s[B].split(B.op.axis[0], 8)
    # m appears only in 8 * m, so no argument shape binds it and the function
    # can't be built (nor in TVM, whose test never builds): bounds only
    assert [lp.extent for lp in loops(loop_ir(s, [A, B]))] == ["m", 8, "l"]


def test_bound_tile_divisible() -> None:
    m, lv = te.var("m"), te.var("l")
    shape = (8 * m, 32 * lv)
    A = te.placeholder(shape, name="A")
    B = te.compute(shape, lambda i, j: A[i, j], name="B")
    s = te.create_schedule(B.op)
    s[B].tile(B.op.axis[0], B.op.axis[1], 8, 32)
    assert [lp.extent for lp in loops(loop_ir(s, [A, B]))] == ["m", "l", 8, 32]



def test_bound_fusesplit1() -> None:
    m, lv, split1 = te.var("m"), te.var("l"), te.var("s")
    A, A1, A2 = _a1_a2(m, lv)
    s = te.create_schedule(A2.op)
    fused_axes = s[A2].fuse(A2.op.axis[0], A2.op.axis[1])
    xo, _ = s[A2].split(fused_axes, split1)
    s[A1].compute_at(s[A2], xo)
    # TVM: A1's rows are [xo * s // l, ((xo + 1) * s - 1) // l], its columns all of l
    assert allocs(loop_ir(s, [A, A2, split1]))["A1"][1] == "l"
    # run with the factor s a scalar argument, dividing l, not dividing it, and above m * l
    f = compiler.build(s, [A, A2, split1])
    for shape, factor in (((5, 6), 3), ((5, 6), 4), ((4, 7), 100), ((3, 2), 1)):
        a, a2 = rand(shape), guarded(shape)
        f(a, a2.array, factor)
        a2.check(a + 3.0)


def test_bound_fusesplit2() -> None:
    A, A1, A2 = _a1_a2(te.var("m"), 6)
    s = te.create_schedule(A2.op)
    fused_axes = s[A2].fuse(A2.op.axis[0], A2.op.axis[1])
    xo, _ = s[A2].split(fused_axes, 3)
    s[A1].compute_at(s[A2], xo)
    _run_a2(s, A, A2, (5, 6))
    # TVM: at xo = 5, A1's region is row 2 (extent 1), columns 3..5 (extent 3)
    assert allocs(loop_ir(s, [A, A2]))["A1"] == (1, 3)


def test_bound_scan() -> None:
    m, n = te.var("m"), te.var("n")
    X = te.compute((m, n), lambda i, j: te.const(1.0, "float32"), name="x")
    s_state = te.placeholder((m, n), name="s_state")
    s_init = te.compute((1, n), lambda _, i: X[0, i], name="s_init")
    s_update = te.compute((m, n), lambda t, i: s_state[t - 1, i] + X[t, i], name="s_update")
    s_scan = te.scan(s_init, s_update, s_state)
    assert len(s_scan.shape) == 2
    s = te.create_schedule(s_scan.op)
    XX = s.cache_read(X, "local", s_update)
    xo, _ = s[s_update].split(s_update.op.axis[1], factor=4)
    s[XX].compute_at(s[s_update], xo)
    assert allocs(loop_ir(s, [s_scan]))[XX.name][1] == 4
    r = guarded((5, 10))
    compiler.build(s, [s_scan])(r.array)
    r.check(np.arange(1, 6, dtype=np.float32)[:, None])


def test_bound_conv1d() -> None:
    n = te.var("n")
    A = te.compute((n + 2), lambda i: 1, name="A")

    def computeB(ii: te.Expr) -> te.Expr:
        i = ii + 1
        return A[i - 1] + A[i] + A[i + 1]

    B = te.compute(n, computeB, name="B")
    s = te.create_schedule(B.op)
    s[A].compute_at(s[B], B.op.axis[0])
    assert allocs(loop_ir(s, [B]))["A"] == (3,)
    b = guarded(10, B.dtype)
    compiler.build(s, [B])(b.array)
    b.check(3)


def test_bound_blur() -> None:
    n = 12
    A = te.compute((n, n), lambda i, j: 1, name="A")

    def computeB(ii: te.Expr, jj: te.Expr) -> te.Expr:
        i, j = ii + 1, jj + 1  # the center
        return A[i, j] + A[i - 1, j] + A[i + 1, j] + A[i, j + 1] + A[i, j - 1]

    B = te.compute((n - 2, n - 2), computeB, name="B")
    s = te.create_schedule(B.op)
    s[A].compute_at(s[B], B.op.axis[1])
    assert allocs(loop_ir(s, [B]))["A"] == (3, 3)
    b = guarded((n - 2, n - 2), B.dtype)
    compiler.build(s, [B])(b.array)
    b.check(5)


def test_bound_rfactor() -> None:
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    k = te.reduce_axis((0, n))
    B = te.compute((1,), lambda i: te.sum(A[k], axis=k, where=(i > 1)), name="B")
    s = te.create_schedule(B.op)
    kf, _ = s[B].split(k, nparts=4)
    BF = s.rfactor(B, kf)
    assert allocs(loop_ir(s, [A, B]))[BF.name] == (4, 1)
    b = guarded(1)
    compiler.build(s, [A, B])(rand(10), b.array)
    b.check(0.0)  # i = 0 fails the where condition


def _x_x1_x2() -> tuple[te.Tensor, te.Tensor, te.Tensor]:
    m, n = te.var("m"), te.var("n")
    x = te.compute((m, n), lambda i, j: te.const(1.0, "float32"), name="x")
    x1 = te.compute(x.shape, lambda i, j: x[i, j] + 1.0, name="x1")
    x2 = te.compute(x.shape, lambda i, j: x1[i, j] + 2.0, name="x2")
    return x, x1, x2


def test_bound_group_schedule() -> None:
    x, x1, x2 = _x_x1_x2()
    s = te.create_schedule(x2.op)
    g = s.create_group(outputs=x1, inputs=x, include_inputs=True)
    g.compute_at(s[x2], x2.op.axis[0])
    assert s[x1].group is g
    assert s[x].group is g
    assert allocs(loop_ir(s, [x2]))["x"] == (1, "n")
    out = guarded((4, 5))
    compiler.build(s, [x2])(out.array)
    out.check(4.0)


def test_bound_nest_group() -> None:
    x, x1, x2 = _x_x1_x2()
    s = te.create_schedule(x2.op)
    g1 = s.create_group(outputs=x, inputs=x, include_inputs=True)
    g2 = s.create_group(outputs=x1, inputs=x, include_inputs=True)
    assert s[x].group is g1
    assert s[x1].group is g2
    g2.compute_at(s[x2], x2.op.axis[0])
    g1.compute_at(s[x1], s[x1].op.axis[1])
    regions = allocs(loop_ir(s, [x2]))
    assert regions["x"] == (1, 1)
    assert regions["x1"] == (1, "n")
    out = guarded((4, 5))
    compiler.build(s, [x2])(out.array)
    out.check(4.0)


# TVM's third index uses truncdiv(i, 2); i >= 0, so it is i // 2 here. TVM builds
# with [B, A]; here A stays an intermediate so that its region is allocated.
@pytest.mark.parametrize(
    ("index", "reference"),
    [
        pytest.param(
            lambda i: te.min(3 * i, 4 * i) + te.min(-3 * i, -2 * i),
            lambda i: 0 * i,
            id="min_plus_min",
        ),
        pytest.param(
            lambda i: te.min(3 * i, 4 * i) + te.max(-3 * i, -4 * i),
            lambda i: 0 * i,
            id="min_plus_max",
        ),
        pytest.param(
            lambda i: -2 * (i // 2) - te.min(i, 0 - i),
            lambda i: i % 2,
            id="div_minus_min",
        ),
        pytest.param(lambda i: i + (0 - i), lambda i: 0 * i, id="cancelling"),
        pytest.param(lambda i: i, None, id="out_of_bounds"),
    ],
)
def test_bound_simplification_failure(index: object, reference: object) -> None:
    A = te.compute((2,), lambda j: j, "A")
    B = te.compute((10,), lambda i: A[index(i)], name="B")  # type: ignore[operator]
    s = te.create_schedule(B.op)
    (extent,) = allocs(loop_ir(s, [B]))["A"]
    assert extent <= 2  # the bound of A is not expanded past its shape
    if reference is None:
        return  # the out-of-bounds read of TVM's last program has no defined value
    b = guarded(10, B.dtype)
    compiler.build(s, [B])(b.array)
    b.check(reference(np.arange(10)))  # type: ignore[operator]


@pytest.mark.parametrize(
    ("shape", "expected"), [((1, 4, 6, 6), 4), ((1, 7, 6, 6), 4), ((1, 3, 6, 6), 3)]
)
def test_bound_block(shape: tuple[int, int, int, int], expected: int) -> None:
    block_size = 4
    N, C, H, W = shape
    tail = C % block_size
    chunks = -(-C // block_size)
    A = te.placeholder((N, C, H, W), name="A")

    def _reorder_data_nchw(*indices: te.Expr) -> te.Expr:
        condition = te.all(indices[1] == chunks - 1, indices[4] >= tail)
        return te.if_then_else(
            condition,
            te.const(0.0, A.dtype),
            A[indices[0], indices[1] * block_size + indices[4], indices[2], indices[3]],
        )

    repack = te.compute((N, chunks, H, W, block_size), _reorder_data_nchw, name="repack")
    B = te.compute(
        (N, C, H, W),
        lambda n, c, h, w: repack[n, c // block_size, h, w, c % block_size],
        name="back_repack",
    )
    s = te.create_schedule([B.op])
    assert allocs(loop_ir(s, [A, B]))["repack"][4] == expected
    a = rand(shape)
    c = np.arange(C)
    padded = (c // block_size == chunks - 1) & (c % block_size >= tail)  # TVM's condition
    b = guarded(shape)
    compiler.build(s, [A, B])(a, b.array)
    b.check(np.where(padded[None, :, None, None], 0.0, a))
