"""`te.extern` (TVM's): stages an external function computes over whole buffers, found
by name at build time (registered ctypes callbacks, the process's symbols)."""

from __future__ import annotations

import ctypes
import re

import numpy as np
import pytest

import compiler
from compiler import te

FLOATS = ctypes.POINTER(ctypes.c_float)
ADD_ONE = ctypes.CFUNCTYPE(None, FLOATS, FLOATS, ctypes.c_int64)
SPLIT = ctypes.CFUNCTYPE(None, FLOATS, FLOATS, FLOATS, ctypes.c_int64, ctypes.c_int64)
calls: list[int] = []


def _add_one(src: FLOATS, dst: FLOATS, count: int) -> None:
    calls.append(count)
    np.ctypeslib.as_array(dst, (count,))[:] = np.ctypeslib.as_array(src, (count,)) + 1.0


def _split_sum_diff(src: FLOATS, total: FLOATS, diff: FLOATS, rows: int, cols: int) -> None:
    """Row sums and first-minus-last of a rows x cols matrix: two outputs of one call."""
    a = np.ctypeslib.as_array(src, (rows, cols))
    np.ctypeslib.as_array(total, (rows,))[:] = a.sum(axis=1)
    np.ctypeslib.as_array(diff, (rows,))[:] = a[:, 0] - a[:, -1]


def _reverse(src: FLOATS, dst: FLOATS, count: int) -> None:
    """Element by element: wrong if dst were src's memory."""
    for i in range(count):
        dst[i] = src[count - 1 - i]


_add_one_fn = ADD_ONE(_add_one)
_split_fn = SPLIT(_split_sum_diff)
_reverse_fn = ADD_ONE(_reverse)


@pytest.fixture(autouse=True)
def _registered() -> None:
    compiler.register_extern("test_add_one", _add_one_fn)
    compiler.register_extern("test_split_sum_diff", _split_fn)
    compiler.register_extern("test_reverse", _reverse_fn)
    calls.clear()


def _add_one_stage(source: te.Tensor, n: te.Dim) -> te.Tensor:
    stage = te.extern(
        (n,), [source], lambda ins, outs: te.call_extern("int32", "test_add_one", ins[0].data, outs[0].data, n), name="E"
    )
    assert isinstance(stage, te.Tensor)
    return stage


def test_python_callback_feeds_a_compute_stage() -> None:
    A = te.placeholder((64,), name="A")
    P = te.compute((64,), lambda i: A[i] * 2.0, name="P")
    E = _add_one_stage(P, 64)
    C = te.compute((64,), lambda i: E[i] * 3.0 + P[i], name="C")
    f = compiler.build([A, C])
    a = np.random.default_rng(0).standard_normal(64).astype(np.float32)
    c = np.empty_like(a)
    f(a, c)
    np.testing.assert_allclose(c, (a * 2.0 + 1.0) * 3.0 + a * 2.0, rtol=1e-6)
    assert calls == [64]
    assert "loop.call_extern @test_add_one(%P, %E, " in f.loop_ir


def test_memcpy_of_the_process_with_a_symbolic_byte_count() -> None:
    n = te.var("n")
    A = te.placeholder((n, 3), name="A")
    B = te.extern(
        (n, 3),
        [A],
        lambda ins, outs: te.call_extern("int32", "memcpy", outs[0].data, ins[0].data, ins[0].shape[0] * 3 * 4),
        name="B",
    )
    assert isinstance(B, te.Tensor)
    C = te.compute((n, 3), lambda i, j: B[i, j] - 1.0, name="C")
    f = compiler.build([A, C])
    for rows in (5, 1, 0):
        a = np.arange(rows * 3, dtype=np.float32).reshape(rows, 3)
        c = np.full_like(a, 7.0)
        f(a, c)
        np.testing.assert_array_equal(c, a - 1.0)


def test_libm_function_with_a_float_scalar() -> None:
    """A loop-free call into libm: `frexpf(x, &exponent)` writes one int32 through a
    pointer; x is the scalar argument k, converted to a float."""
    k = te.var("k")
    E = te.extern(
        (1,),
        [],
        lambda ins, outs: te.call_extern("float32", "frexpf", k.astype("float32"), outs[0].data),
        name="E",
        dtype="int32",
    )
    assert isinstance(E, te.Tensor)
    f = compiler.build([k, E])
    e = np.zeros(1, np.int32)
    for value, exponent in ((8, 4), (1, 1), (1000, 10)):
        f(value, e)
        assert int(e[0]) == exponent


def test_two_outputs() -> None:
    m, n = te.var("m"), te.var("n")
    A = te.placeholder((m, n), name="A")
    outs = te.extern(
        [(m,), (m,)],
        [A],
        lambda ins, outs: te.call_extern(
            "int32", "test_split_sum_diff", ins[0].data, outs[0].data, outs[1].data, m, n
        ),
        name="S",
    )
    assert isinstance(outs, list)
    total, diff = outs
    D = te.compute((m,), lambda i: total[i] * diff[i], name="D")
    f = compiler.build([A, total, D])
    a = np.random.default_rng(1).standard_normal((6, 5)).astype(np.float32)
    t, d = np.empty(6, np.float32), np.empty(6, np.float32)
    f(a, t, d)
    np.testing.assert_allclose(t, a.sum(axis=1), rtol=1e-5)
    np.testing.assert_allclose(d, a.sum(axis=1) * (a[:, 0] - a[:, -1]), rtol=1e-5)


@pytest.mark.parametrize("n", [1, 7, 100])
def test_symbolic_shape_passed_as_a_scalar(n: int) -> None:
    size = te.var("size")
    A = te.placeholder((size,), name="A")
    E = _add_one_stage(A, size)
    f = compiler.build([A, E])
    a = np.linspace(-1, 1, n, dtype=np.float32)
    e = np.empty_like(a)
    f(a, e)
    np.testing.assert_allclose(e, a + 1.0)
    assert calls == [n]


def test_producer_of_an_extern_is_realized_whole_with_a_partial_reader() -> None:
    """P feeds the extern (whole) and a consumer that reads only its first half."""
    A = te.placeholder((16,), name="A")
    P = te.compute((16,), lambda i: A[i] + 10.0, name="P")
    E = _add_one_stage(P, 16)
    C = te.compute((8,), lambda i: E[i + 8] + P[i], name="C")
    s = te.create_schedule(C.op)
    _, xi = s[C].split(C.op.axis[0], factor=4)
    s[C].vectorize(xi)
    f = compiler.build(s, [A, C])
    a = np.arange(16, dtype=np.float32)
    c = np.empty(8, np.float32)
    f(a, c)
    np.testing.assert_allclose(c, (a[8:] + 11.0) + (a[:8] + 10.0))


def test_extern_output_is_never_planned_over_its_input() -> None:
    """P dies at the call that writes R: storage-rewrite must not put R over P (the
    callee's accesses are unknown), though the sizes match."""
    A = te.placeholder((32,), name="A")
    P = te.compute((32,), lambda i: A[i] + 1.0, name="P")
    R = te.extern(
        (32,), [P], lambda ins, outs: te.call_extern("int32", "test_reverse", ins[0].data, outs[0].data, 32), name="R"
    )
    assert isinstance(R, te.Tensor)
    C = te.compute((32,), lambda i: R[i] * 2.0, name="C")
    f = compiler.build([A, C])
    a = np.arange(32, dtype=np.float32)
    c = np.empty_like(a)
    f(a, c)
    np.testing.assert_array_equal(c, (a[::-1] + 1.0) * 2.0)
    assert 'inplace "P"' not in f.flat_ir


def _extern_program() -> tuple[te.Tensor, te.Tensor, te.Tensor, te.Tensor]:
    A = te.placeholder((16,), name="A")
    P = te.compute((16,), lambda i: A[i] * 2.0, name="P")
    E = _add_one_stage(P, 16)
    C = te.compute((16,), lambda i: E[i] + 1.0, name="C")
    return A, P, E, C


def test_split_of_the_extern_stage_is_rejected() -> None:
    _, _, E, C = _extern_program()
    s = te.create_schedule(C.op)
    with pytest.raises(ValueError, match=re.escape('split: stage "E" is a te.extern stage')):
        s[E].split(C.op.axis[0], factor=4)


def test_compute_at_inline_and_caches_of_the_extern_stage_are_rejected() -> None:
    A, _, E, C = _extern_program()
    s = te.create_schedule(C.op)
    with pytest.raises(ValueError, match=re.escape('compute_at: stage "E" is a te.extern stage')):
        s[E].compute_at(s[C], C.op.axis[0])
    with pytest.raises(ValueError, match=re.escape('compute_inline: stage "E" is a te.extern stage')):
        s[E].compute_inline()
    with pytest.raises(ValueError, match=re.escape('cache_write: stage "E" is a te.extern stage')):
        s.cache_write(E, "local")
    s.cache_read(E, "local", [C])  # checked by the sched verifier, at build
    with pytest.raises(ValueError, match=re.escape('sched.cache_read: "E" is a te.extern stage')):
        compiler.build(s, [A, C])
    s[E].compute_root()  # where it is anyway


def test_producer_of_an_extern_can_not_be_attached_or_inlined() -> None:
    A, P, E, C = _extern_program()
    s = te.create_schedule(C.op)
    s[P].compute_inline()
    with pytest.raises(ValueError, match=re.escape('stage "P" is read whole by the te.extern stage "E"')):
        compiler.build(s, [A, C])
    s = te.create_schedule(C.op)
    with pytest.raises(ValueError, match=re.escape('compute_at: stage "E" is a te.extern stage')):
        s[P].compute_at(s[E], C.op.axis[0])


def test_consumer_of_an_extern_output_is_scheduled_normally() -> None:
    A, _, E, C = _extern_program()
    D = te.compute((16,), lambda i: C[i] * E[i], name="D")
    s = te.create_schedule(D.op)
    xo, _ = s[D].split(D.op.axis[0], factor=4)
    s[C].compute_at(s[D], xo)
    s[D].parallel(xo)
    f = compiler.build(s, [A, D])
    a = np.arange(16, dtype=np.float32)
    d = np.empty_like(a)
    f(a, d)
    e = a * 2.0 + 1.0
    np.testing.assert_allclose(d, (e + 1.0) * e)


def test_missing_symbol_is_a_link_error_naming_it() -> None:
    A = te.placeholder((4,), name="A")
    E = te.extern(
        (4,), [A], lambda ins, outs: te.call_extern("int32", "no_such_function_xyz", ins[0].data, outs[0].data), name="E"
    )
    assert isinstance(E, te.Tensor)
    with pytest.raises(compiler.LinkError, match="no function no_such_function_xyz to call"):
        compiler.build([A, E])


def test_register_extern_rejects_a_plain_python_function() -> None:
    with pytest.raises(TypeError, match="expected a ctypes function pointer"):
        compiler.register_extern("f", _add_one)  # type: ignore[arg-type]  # the point of the test


def test_call_arguments_are_checked() -> None:
    A = te.placeholder((4,), name="A")
    with pytest.raises(TypeError, match=re.escape("argument 1 is a buffer; pass its pointer")):
        te.extern((4,), [A], lambda ins, outs: te.call_extern("int32", "f", outs[0].data, ins[0]), name="E")
    with pytest.raises(TypeError, match=re.escape("argument 1 must be a buffer's .data or a scalar")):
        te.extern((4,), [A], lambda ins, outs: te.call_extern("int32", "f", outs[0].data, A[0]), name="E")
    with pytest.raises(TypeError, match=re.escape("fcompute must return te.call_extern")):
        te.extern((4,), [A], lambda ins, outs: 1.0, name="E")  # type: ignore[arg-type, return-value]  # wrong on purpose


def test_te_ir_prints_and_parses_back() -> None:
    from xdsl.parser import Parser

    from compiler.context import make_context
    from compiler.te.to_ir import build_module

    A, _, _, C = _extern_program()
    module, _ = build_module([A, C])
    text = str(module)
    assert 'te.extern "E" @test_add_one(%P, out 0, ' in text
    assert str(Parser(make_context(), text).parse_module()) == text
