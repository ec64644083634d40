"""cache_read, cache_write and storage_align (TVM's semantics) from the Python API:
numerics against NumPy with guarded outputs and the bound checker, the regions
the cache stages get, and the errors for misuse."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from long_tests import examples
from references import assert_guard_intact, guarded_empty

import compiler
from compiler import te


def _matmul(m: int | te.Var, n: int | te.Var, k: int) -> tuple[te.Tensor, te.Tensor, te.Tensor]:
    A = te.placeholder((m, k), name="A")
    B = te.placeholder((k, n), name="B")
    r = te.reduce_axis((0, k), name="k")
    C = te.compute((m, n), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")
    return A, B, C


def _micro_kernel(C: te.Tensor, tile: tuple[int, int] = (4, 16)) -> te.Schedule:
    """The register-blocked GEMM: C.local computed per tile of C, reduce loop outermost."""
    s = te.create_schedule(C.op)
    CL = s.cache_write(C, "local")
    i, j = s[C].op.axis
    _io, jo, _ii, ji = s[C].tile(i, j, *tile)
    s[C].vectorize(ji)
    s[CL].compute_at(s[C], jo)
    ci, cj = s[CL].op.axis
    (k,) = s[CL].op.reduce_axis
    ko, ki = s[CL].split(k, factor=4)
    s[CL].reorder(ko, ki, ci, cj)
    s[CL].unroll(ki)
    s[CL].vectorize(cj)
    return s


def _run_matmul(f: compiler.Function, m: int, n: int, k: int) -> None:
    rng = np.random.default_rng(0)
    a = rng.random((m, k), dtype=np.float32)
    b = rng.random((k, n), dtype=np.float32)
    whole, c = guarded_empty((m, n))
    f(a, b, c)
    assert_guard_intact(whole)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)


def _alloc_shapes(ir: str) -> dict[str, str]:
    """Buffer name -> shape of every `loop.alloc` (`local`: "local 4, 16")."""
    found = re.findall(r'loop\.alloc (local )?"([^"]+)" \[[^]]*\] : !loop\.buffer<\[([^]]*)\]', ir)
    return {name: f"{local}{shape}" for local, name, shape in found}


@pytest.mark.parametrize("check_bounds", [False, True])
def test_micro_kernel_non_dividing(check_bounds: bool) -> None:
    A, B, C = _matmul(37, 45, 29)
    s = _micro_kernel(C)
    assert _alloc_shapes(str(compiler.lower(s, [A, B, C], until="loop")))["C.local"] == "4, 16"
    _run_matmul(compiler.build(s, [A, B, C], check_bounds=check_bounds), 37, 45, 29)


def test_micro_kernel_symbolic() -> None:
    m, n = te.var("m"), te.var("n")
    A, B, C = _matmul(m, n, 12)
    s = _micro_kernel(C, (3, 8))
    ir = str(compiler.lower(s, [A, B, C], until="loop"))
    # the tile (min(m, 3) x min(n, 8)) at its constant bounds on the stack, never m x n: its
    # rows lie 8 floats apart, and LLVM keeps them in registers
    assert _alloc_shapes(ir)["C.local"] == "local 3, 8"
    f = compiler.build(s, [A, B, C], check_bounds=True)
    for size in ((7, 13), (3, 8), (1, 1)):
        _run_matmul(f, *size, 12)


def test_micro_kernel_parallel_outer() -> None:
    A, B, C = _matmul(64, 48, 20)
    s = _micro_kernel(C, (8, 16))
    s[C].parallel(s[C].leaves[0])
    _run_matmul(compiler.build(s, [A, B, C]), 64, 48, 20)


def test_cache_write_at_root_keeps_shape() -> None:
    A, B, C = _matmul(10, 6, 5)
    s = te.create_schedule(C.op)
    CL = s.cache_write(C, "global")
    assert CL.name == "C.global"
    assert CL.shape == (10, 6)
    assert s[C].op.reduce_axis == ()
    assert len(s[CL].op.reduce_axis) == 1
    used = {id(n) for n in te.walk(CL.op.body) if isinstance(n, te.IterVar)}  # the cache's own axes
    assert used == {id(CL.op.axis[0]), id(CL.op.axis[1]), id(CL.op.reduce_axis[0])}
    ir = str(compiler.lower(s, [A, B, C], until="loop"))
    assert _alloc_shapes(ir)["C.global"] == "10, 6"
    _run_matmul(compiler.build(s, [A, B, C], check_bounds=True), 10, 6, 5)


@pytest.mark.parametrize("split", [{"factor": 4}, {"factor": 3}, {"nparts": 4}])
def test_cache_write_relayout(split: dict[str, int]) -> None:
    """TVM's relayout: C's split and reorder before the cache_write lay the cache out."""
    A = te.placeholder((10, 7), name="A")
    C = te.compute((10, 7), lambda i, j: A[i, j] * 2.0 + 1.0, name="C")
    s = te.create_schedule(C.op)
    i, j = C.op.axis
    io, ii = s[C].split(i, **split)
    s[C].reorder(io, j, ii)
    CC = s.cache_write(C, "global")
    factor = split.get("factor") or -(-10 // split["nparts"])
    assert CC.shape == (-(-10 // factor), 7, factor)
    assert s[C].leaves == list(C.op.axis)  # C's loops start afresh
    s[C].vectorize(s[C].op.axis[1])
    a = np.random.default_rng(1).random((10, 7), dtype=np.float32)
    whole, c = guarded_empty((10, 7))
    compiler.build(s, [A, C], check_bounds=True)(a, c)
    assert_guard_intact(whole)
    np.testing.assert_allclose(c, a * 2.0 + 1.0, rtol=1e-6)


def test_cache_write_relayout_fused_reduction() -> None:
    A = te.placeholder((6, 4, 5), name="A")
    k = te.reduce_axis((0, 5), name="k")
    C = te.compute((6, 4), lambda i, j: te.sum(A[i, j, k], axis=k), name="C")
    s = te.create_schedule(C.op)
    f = s[C].fuse(*C.op.axis)
    s[C].split(f, factor=5)  # 24 = 5 * 5 - 1: the cache's last row is guarded
    CC = s.cache_write(C, "local")
    assert CC.shape == (5, 5)
    a = np.random.default_rng(2).random((6, 4, 5), dtype=np.float32)
    whole, c = guarded_empty((6, 4))
    compiler.build(s, [A, C], check_bounds=True)(a, c)
    assert_guard_intact(whole)
    np.testing.assert_allclose(c, a.sum(axis=2), rtol=1e-5)


def test_cache_read_compute_at_row() -> None:
    A = te.placeholder((16, 32), name="A")
    B = te.compute((16, 32), lambda i, j: A[i, j] + A[i, 31 - j], name="B")
    D = te.compute((16, 32), lambda i, j: A[i, j] * 3.0, name="D")
    s = te.create_schedule([B.op, D.op])
    AL = s.cache_read(A, "local", [B])
    s[AL].compute_at(s[B], B.op.axis[0])
    s[AL].vectorize(AL.op.axis[1])
    ir = str(compiler.lower(s, [A, B, D], until="loop"))
    assert _alloc_shapes(ir)["A.local"] == "1, 32"
    a = np.random.default_rng(3).random((16, 32), dtype=np.float32)
    wb, b = guarded_empty((16, 32))
    wd, d = guarded_empty((16, 32))
    compiler.build(s, [A, B, D], check_bounds=True)(a, b, d)
    assert_guard_intact(wb)
    assert_guard_intact(wd)
    np.testing.assert_allclose(b, a + a[:, ::-1], rtol=1e-6)
    np.testing.assert_allclose(d, a * 3.0, rtol=1e-6)


def test_cache_read_of_cache_write_and_names() -> None:
    """cache_read of a stage twice (A.local, A.local1) and a cache_write of its reader."""
    A = te.placeholder((12,), name="A")
    B = te.compute((12,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((12,), lambda i: B[i] * B[11 - i], name="C")
    E = te.compute((12,), lambda i: B[i] - 1.0, name="E")
    s = te.create_schedule([C.op, E.op])
    BL = s.cache_read(B, "local", [C])
    BL2 = s.cache_read(B, "local", [E])
    CL = s.cache_write(C, "local")
    xo, _xi = s[C].split(C.op.axis[0], factor=5)
    s[CL].compute_at(s[C], xo)
    f = compiler.build(s, [A, C, E], check_bounds=True)
    ir = str(compiler.lower(s, [A, C, E], until="loop"))
    assert {"B.local", "B.local1", "C.local"} <= set(_alloc_shapes(ir))
    assert BL.name == BL2.name == "B.local"  # TVM's op names; the IR makes them unique
    assert _alloc_shapes(ir)["C.local"] == "5"
    a = np.arange(12, dtype=np.float32)
    wc, c = guarded_empty((12,))
    we, e = guarded_empty((12,))
    f(a, c, e)
    assert_guard_intact(wc)
    assert_guard_intact(we)
    np.testing.assert_allclose(c, (a + 1) * (a[::-1] + 1))
    np.testing.assert_allclose(e, a)


def test_storage_align() -> None:
    A = te.placeholder((8, 8), name="A")
    B = te.compute((8, 8), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((8, 8), lambda i, j: B[j, i], name="C")
    s = te.create_schedule(C.op)
    s[B].storage_align(B.op.axis[0], 16, 1)
    loop_ir = str(compiler.lower(s, [A, C], until="loop"))
    assert 'loop.alloc "B"' in loop_ir
    assert "strides [17, 1]" in loop_ir
    flat = str(compiler.lower(s, [A, C], until="flat"))
    assert "!loop.buffer<[127], f32>" in flat  # 7 rows of 17 and one of 8
    a = np.random.default_rng(4).random((8, 8), dtype=np.float32)
    whole, c = guarded_empty((8, 8))
    compiler.build(s, [A, C], check_bounds=True)(a, c)
    assert_guard_intact(whole)
    np.testing.assert_allclose(c, (a * 2.0).T)


# -- misuse ---------------------------------------------------------------------------


def _elementwise() -> tuple[te.Tensor, te.Tensor, te.Tensor]:
    A = te.placeholder((8, 8), name="A")
    B = te.compute((8, 8), lambda i, j: A[i, j] + 1.0, name="B")
    C = te.compute((8, 8), lambda i, j: B[i, j] * 2.0, name="C")
    return A, B, C


def test_cache_write_after_compute_at_is_rejected() -> None:
    _, B, C = _elementwise()
    s = te.create_schedule(C.op)
    s[B].compute_at(s[C], C.op.axis[0])
    with pytest.raises(ValueError, match=re.escape('cache_write: stage "B" is attached (compute_at); apply cache_write first')):
        s.cache_write(B, "local")
    with pytest.raises(ValueError, match=re.escape('cache_write: stage "C" has stage(s) B computed at its loops')):
        s.cache_write(C, "local")


def test_cache_write_after_vectorize_or_inline_is_rejected() -> None:
    _, B, C = _elementwise()
    s = te.create_schedule(C.op)
    s[C].vectorize(C.op.axis[1])
    s[B].compute_inline()
    with pytest.raises(ValueError, match=re.escape('stage "C" has its loop j annotated (vectorized)')):
        s.cache_write(C, "local")
    with pytest.raises(ValueError, match=re.escape('stage "B" is inlined')):
        s.cache_write(B, "local")


def test_cache_write_split_reduce_axis_is_rejected() -> None:
    _, _, C = _matmul(4, 4, 8)
    s = te.create_schedule(C.op)
    s[C].split(C.op.reduce_axis[0], factor=2)
    with pytest.raises(ValueError, match=re.escape('stage "C" has its reduce axis split or fused (k.outer)')):
        s.cache_write(C, "local")


def test_axes_from_before_cache_write_are_rejected() -> None:
    _, _, C = _matmul(4, 4, 8)
    s = te.create_schedule(C.op)
    _io, ii = s[C].split(C.op.axis[0], factor=2)
    CL = s.cache_write(C, "local")
    with pytest.raises(ValueError, match="is from before its cache_write"):
        s[C].vectorize(ii)
    with pytest.raises(ValueError, match="moved its reduce axes to the cache stage"):
        s[C].unroll(C.op.reduce_axis[0])
    s[CL].unroll(C.op.reduce_axis[0])  # the same reduce axis, now the cache's (TVM)


def test_cache_read_misuse() -> None:
    A, B, C = _elementwise()
    s = te.create_schedule(C.op)
    with pytest.raises(ValueError, match="cache_read: C does not read A"):
        s.cache_read(A, "local", [C])
    with pytest.raises(ValueError, match="unknown storage scope 'warp'"):
        s.cache_read(A, "warp", [B])
    with pytest.raises(ValueError, match="no reader of A"):
        s.cache_read(A, "local", [])
    s.cache_read(A, "local", [B])
    with pytest.raises(ValueError, match="cache_read: B does not read A"):
        s.cache_read(A, "local", [B])  # B reads A.local now


def test_storage_align_misuse() -> None:
    _, B, C = _elementwise()
    s = te.create_schedule(C.op)
    xo, _ = s[B].split(B.op.axis[0], factor=2)
    with pytest.raises(ValueError, match=re.escape('storage_align: i.outer is not a data-parallel root axis of "B"')):
        s[B].storage_align(xo, 16, 1)
    with pytest.raises(ValueError, match="0 <= offset < factor"):
        s[B].storage_align(B.op.axis[0], 4, 4)
    with pytest.raises(ValueError, match="is a result of the function; its buffer's layout is the caller's"):
        s[C].storage_align(C.op.axis[0], 4, 1)


def test_cache_write_then_rfactor_of_the_cache() -> None:
    A = te.placeholder((6, 16), name="A")
    k = te.reduce_axis((0, 16), name="k")
    C = te.compute((6,), lambda i: te.sum(A[i, k], axis=k), name="C")
    s = te.create_schedule(C.op)
    CL = s.cache_write(C, "local")
    _, ki = s[CL].split(s[CL].op.reduce_axis[0], factor=4)
    CF = s.rfactor(CL, ki)
    a = np.random.default_rng(5).random((6, 16), dtype=np.float32)
    whole, c = guarded_empty((6,))
    compiler.build(s, [A, C], check_bounds=True)(a, c)
    assert_guard_intact(whole)
    np.testing.assert_allclose(c, a.sum(axis=1), rtol=1e-5)
    s.cache_read(A, "local", [CF])  # a cache of a stage rfactor made: not supported, said so
    with pytest.raises(ValueError, match=r"stage \"C\.local\.rf\" was made or rebuilt by a sched\.rfactor"):
        compiler.build(s, [A, C])


# -- random micro-kernel schedules (hypothesis) -----------------------------------------

EXAMPLES = examples(3, 8)


@settings(max_examples=EXAMPLES, database=None, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_random_cache_schedules(data: st.DataObject) -> None:
    """Random sizes and tiles of a matmul with cache_write (C.local at C's tile, or at
    the root), optionally cache_read of A at the cache's reduce loop, random splits,
    orders and annotations of both stages; guarded output, bound checker on."""
    m, n, k = (data.draw(st.integers(1, 19), label=d) for d in "mnk")
    A, B, C = _matmul(m, n, k)
    s = te.create_schedule(C.op)
    if data.draw(st.booleans(), label="relayout split before cache_write"):
        s[C].split(C.op.axis[1], factor=data.draw(st.integers(1, 8), label="relayout factor"))
    CL = s.cache_write(C, data.draw(st.sampled_from(["local", "global", "shared"]), label="scope"))
    i, j = s[C].op.axis
    io, jo, _, ji = s[C].tile(i, j, data.draw(st.integers(1, 8), label="tx"), data.draw(st.integers(1, 8), label="ty"))
    if data.draw(st.booleans(), label="vectorize C"):
        s[C].vectorize(ji)
    if data.draw(st.booleans(), label="attach C.local"):
        s[CL].compute_at(s[C], data.draw(st.sampled_from([io, jo]), label="at"))
    leaves = list(s[CL].op.axis)
    (r,) = s[CL].op.reduce_axis
    ko, ki = s[CL].split(r, nparts=data.draw(st.integers(1, 6), label="k nparts"))
    order = data.draw(st.permutations([*leaves, ko, ki]), label="order")
    position = {id(iv): p for p, iv in enumerate(order)}
    if position[id(ko)] < position[id(ki)]:  # keep the reduce split's parts outer-first
        s[CL].reorder(*order)
    if data.draw(st.booleans(), label="cache_read A"):
        AL = s.cache_read(A, "local", [CL])
        if data.draw(st.booleans(), label="attach A.local at ko"):
            s[AL].compute_at(s[CL], ko)
    inner = s[CL].leaves[-1]
    if not inner.is_reduce and data.draw(st.booleans(), label="vectorize C.local"):
        s[CL].vectorize(inner)
    _run_matmul(compiler.build(s, [A, B, C], check_bounds=True), m, n, k)
