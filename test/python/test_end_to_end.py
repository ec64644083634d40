"""End-to-end numerics against NumPy: build, run, compare (static and symbolic shapes)."""

from __future__ import annotations

import numpy as np
import pytest
from references import conv2d_reference

import compiler
from compiler import ops, te

RNG = np.random.default_rng(0)


def rand(*shape: int, dtype: str = "float32") -> np.ndarray:
    return RNG.uniform(-1.0, 1.0, shape).astype(dtype)


@pytest.mark.parametrize("symbolic", [False, True])
def test_elementwise_add_mul_relu(symbolic: bool) -> None:
    n = te.var("n") if symbolic else 37
    A = te.placeholder((n, 8), name="A")
    B = te.placeholder((n, 8), name="B")
    C = te.compute((n, 8), lambda i, j: A[i, j] + B[i, j], name="C")
    D = te.compute((n, 8), lambda i, j: C[i, j] * B[i, j], name="D")
    E = ops.relu(D, name="E")
    f = compiler.build([A, B, E])
    a, b = rand(37, 8), rand(37, 8)
    e = np.zeros((37, 8), np.float32)
    f(a, b, e)
    np.testing.assert_allclose(e, np.maximum((a + b) * b, 0), rtol=1e-6)


@pytest.mark.parametrize("symbolic", [False, True])
def test_broadcast_add(symbolic: bool) -> None:
    m = te.var("m") if symbolic else 5
    A = te.placeholder((m, 7), name="A")
    b = te.placeholder((7,), name="b")
    C = te.compute((m, 7), lambda i, j: A[i, j] + b[j], name="C")
    f = compiler.build([A, b, C])
    a, bb = rand(5, 7), rand(7)
    c = np.zeros((5, 7), np.float32)
    f(a, bb, c)
    np.testing.assert_allclose(c, a + bb[None, :], rtol=1e-6)


@pytest.mark.parametrize("symbolic", [False, True])
def test_matmul(symbolic: bool) -> None:
    m, k, n = (te.var("m"), te.var("k"), te.var("n")) if symbolic else (19, 23, 17)
    A = te.placeholder((m, k), name="A")
    B = te.placeholder((k, n), name="B")
    C = ops.matmul(A, B, name="C")
    f = compiler.build([A, B, C])
    a, b = rand(19, 23), rand(23, 17)
    c = np.zeros((19, 17), np.float32)
    f(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("symbolic", [False, True])
def test_zero_padded_copy(symbolic: bool) -> None:
    n = te.var("n") if symbolic else 10
    A = te.placeholder((n, n), name="A")
    P = ops.pad(A, (1, 2), (3, 1), name="P")
    f = compiler.build([A, P])
    a = rand(10, 10)
    p = np.full((14, 13), 7.0, np.float32)
    f(a, p)
    np.testing.assert_array_equal(p, np.pad(a, ((1, 3), (2, 1))))


@pytest.mark.parametrize(("stride", "pad", "dilation"), [(1, 1, 1), (2, 1, 1), (1, 2, 2), (1, 0, 1)])
def test_conv2d(stride: int, pad: int, dilation: int) -> None:
    X = te.placeholder((1, 3, 9, 9), name="X")
    W = te.placeholder((4, 3, 3, 3), name="W")
    Y = ops.conv2d_nchw(X, W, stride=stride, padding=pad, dilation=dilation, name="Y")
    f = compiler.build([X, W, Y])
    x, w = rand(1, 3, 9, 9), rand(4, 3, 3, 3)
    expected = conv2d_reference(x, w, stride, pad, dilation)
    y = np.zeros(expected.shape, np.float32)
    f(x, w, y)
    np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-5)


def test_conv2d_symbolic_shape() -> None:
    c, h, w_ = te.var("c"), te.var("h"), te.var("w")
    X = te.placeholder((1, c, h, w_), name="X")
    W = te.placeholder((4, c, 3, 3), name="W")
    Y = ops.conv2d_nchw(X, W, padding=1, name="Y")
    f = compiler.build([X, W, Y])
    for shape in [(2, 6, 7), (3, 5, 5)]:
        x, w = rand(1, *shape), rand(4, shape[0], 3, 3)
        y = np.zeros((1, 4, shape[1], shape[2]), np.float32)
        f(x, w, y)
        np.testing.assert_allclose(y, conv2d_reference(x, w, 1, 1), rtol=1e-4, atol=1e-5)


def test_reductions_max_min_with_init() -> None:
    A = te.placeholder((6, 9), name="A")
    k = te.reduce_axis((0, 9), "k")
    Mx = te.compute((6,), lambda i: te.max(A[i, k], axis=k), name="Mx")
    k2 = te.reduce_axis((0, 9), "k2")
    Mn = te.compute((6,), lambda i: te.min(A[i, k2], axis=k2), name="Mn")
    k3 = te.reduce_axis((0, 9), "k3")
    S = te.compute((6,), lambda i: te.sum(A[i, k3], axis=k3, init=10.0), name="S")
    f = compiler.build([A, Mx, Mn, S])
    a = rand(6, 9)
    mx, mn, s = (np.zeros(6, np.float32) for _ in range(3))
    f(a, mx, mn, s)
    np.testing.assert_array_equal(mx, a.max(axis=1))
    np.testing.assert_array_equal(mn, a.min(axis=1))
    np.testing.assert_allclose(s, a.sum(axis=1) + 10.0, rtol=1e-5)


def test_math_and_integer_dtypes() -> None:
    A = te.placeholder((33,), name="A")
    B = te.compute((33,), lambda i: te.exp(A[i]) + te.sqrt(te.abs(A[i])) + te.tanh(A[i]), name="B")
    ints = te.placeholder((33,), dtype="int32", name="I")
    J = te.compute((33,), lambda i: ints[i] * 3 + (i % 4).astype("int32"), name="J")
    f = compiler.build([A, ints, B, J])
    a = rand(33)
    ii = RNG.integers(-100, 100, 33).astype(np.int32)
    b, j = np.zeros(33, np.float32), np.zeros(33, np.int32)
    f(a, ii, b, j)
    np.testing.assert_allclose(b, np.exp(a) + np.sqrt(np.abs(a)) + np.tanh(a), rtol=1e-5)
    np.testing.assert_array_equal(j, ii * 3 + np.arange(33) % 4)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_abs(dtype: str) -> None:
    # math.absi lowers to llvm.abs with an i1 flag constant that must be emitted too
    # (found by mypy: the constant was passed as an operand but never inserted).
    A = te.placeholder((9,), dtype=dtype, name="A")
    B = te.compute((9,), lambda i: te.abs(A[i]), name="B")
    f = compiler.build([A, B])
    a = np.array([np.iinfo(dtype).min + 1, -7, -1, 0, 1, 5, -3, 2, 100], dtype=dtype)
    b = np.zeros(9, dtype)
    f(a, b)
    np.testing.assert_array_equal(b, np.abs(a))


def test_argument_order_mixes_inputs_and_outputs() -> None:
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] * 2.0, name="B")
    C = te.placeholder((4,), name="C")
    D = te.compute((4,), lambda i: B[i] + C[i], name="D")
    f = compiler.build([D, A, B, C])
    a, c = rand(4), rand(4)
    b, d = np.zeros(4, np.float32), np.zeros(4, np.float32)
    f(d, a, b, c)
    np.testing.assert_allclose(b, a * 2)
    np.testing.assert_allclose(d, a * 2 + c)


def test_strided_placeholder_takes_views_without_copy() -> None:
    n = te.var("n")
    A = te.placeholder((n, 4), name="A", strided=True)
    B = te.compute((n, 4), lambda i, j: A[i, j] * 2.0, name="B")
    f = compiler.build([A, B])
    base = rand(6, 8)
    view = base[:, ::2]  # not contiguous: strides (8, 2) elements
    out = np.zeros((6, 4), np.float32)
    f(view, out)
    np.testing.assert_allclose(out, view * 2)
    reversed_rows = base[::-1, 1::2]
    f(reversed_rows, out)
    np.testing.assert_allclose(out, reversed_rows * 2)


def test_int64_elements_in_arithmetic_and_as_indices() -> None:
    """An int64 element is index math: added to axes and constants, and used as an index
    (a data-dependent read of a stage of symbolic size); a copy stays a plain read."""
    n = te.var("n")
    ids = te.placeholder((n,), "int64", name="ids")
    W = te.placeholder((n, 3), name="W")
    twice = te.compute((n, 3), lambda i, j: W[i, j] * 2.0, name="twice")
    shifted = te.compute((n,), lambda i: ids[i] + i - 1, name="shifted")
    rows = te.compute((n, 3), lambda i, j: twice[te.minimum(te.maximum(ids[i], 0), n - 1), j], name="rows")
    copy = te.compute((n,), lambda i: ids[i], name="copy")
    f = compiler.build([ids, W, shifted, rows, copy])
    i = np.array([4, 0, 2, 9, -3], np.int64)
    w = rand(5, 3)
    s, r, c = np.zeros(5, np.int64), np.zeros((5, 3), np.float32), np.zeros(5, np.int64)
    f(i, w, s, r, c)
    np.testing.assert_array_equal(s, i + np.arange(5) - 1)
    np.testing.assert_array_equal(r, 2 * w[np.clip(i, 0, 4)])
    np.testing.assert_array_equal(c, i)


def test_bool_casts_are_zero_one_and_nonzero() -> None:
    """A condition cast to a number is 0/1 (not the -1 a sign extension gives); a number
    cast to bool is `!= 0`, not a truncation; a float cast to int64 truncates."""
    X = te.placeholder((5,), name="X")
    mask = te.compute((5,), lambda i: (X[i] > 0.0).astype("int8"), name="mask")
    as_float = te.compute((5,), lambda i: (X[i] > 0.0).astype("float32") * 3.0, name="as_float")
    as_index = te.compute((5,), lambda i: (X[i] > 0.0).astype("int64") + 1, name="as_index")
    nonzero = te.compute((5,), lambda i: te.if_then_else(X[i].astype("bool"), 1.0, 0.0), name="nonzero")
    trunc = te.compute((5,), lambda i: (X[i] * 4.0).astype("int64"), name="trunc")
    f = compiler.build([X, mask, as_float, as_index, nonzero, trunc])
    x = np.array([0.5, -1.0, 0.0, 0.25, -0.75], np.float32)
    outs = [np.zeros(5, d) for d in ("int8", "float32", "int64", "float32", "int64")]
    f(x, *outs)
    pos = (x > 0).astype(np.int64)
    for got, want in zip(outs, [pos, 3 * pos, pos + 1, (x != 0).astype(np.int64), np.trunc(4 * x)], strict=True):
        np.testing.assert_array_equal(got, want)


def test_argument_names_ending_in_digits_stay_distinct() -> None:
    """xDSL drops a `_1` suffix from SSA names: `args_0` and `args_1` must not both become `args`."""
    A = te.placeholder((3,), name="args_0")
    B = te.placeholder((4,), name="args_1")
    C = te.compute((3,), lambda i: A[i] + B[i + 1], name="out_0")
    D = te.compute((3,), lambda i: A[i] * 2.0, name="out_1")
    f = compiler.build([A, B, C, D])
    c, d = np.zeros(3, np.float32), np.zeros(3, np.float32)
    f(np.ones(3, np.float32), np.arange(4, dtype=np.float32), c, d)
    np.testing.assert_array_equal(c, [2, 3, 4])
    np.testing.assert_array_equal(d, [2, 2, 2])
    with pytest.raises(compiler.errors.ArgumentValueError, match=r"args1\.shape\[0\]"):
        f(np.ones(3, np.float32), np.ones(5, np.float32), c, d)


def test_argument_names_ending_in_several_digit_groups() -> None:
    """`split_10_0` (an exported graph's node name: the 10th split's first output) ends in
    `_0` again once one underscore goes: the build failed with make-packed-api's "no
    function has exactly the arguments" (CvT at its default config)."""
    A = te.placeholder((3,), name="x_1_0")
    B = te.compute((3,), lambda i: A[i] + 1.0, name="split_10_0")
    C = te.compute((3,), lambda i: A[i] * 2.0, name="split_10_1")
    f = compiler.build([A, B, C])
    assert [a.name for a in f.specs] == ["x10", "split100", "split101"]
    b, c = np.zeros(3, np.float32), np.zeros(3, np.float32)
    f(np.arange(3, dtype=np.float32), b, c)
    np.testing.assert_array_equal(b, [1, 2, 3])
    np.testing.assert_array_equal(c, [0, 2, 4])


@pytest.mark.parametrize("k", [2, 3, 5, 8])
def test_casts_to_bool_of_several_operands_each_emit_their_own_comparison(k: int) -> None:
    """Each cast to bool is emitted as a comparison with zero made while emitting; the
    emitter's CSE (by node identity) once handed a later node the value of an earlier,
    freed one whose id it reused: an IRError (i8 where i1 was expected), or a wrong operand."""
    n = 64
    inputs = [te.placeholder((n,), "int8", name=f"x{j}") for j in range(k)]

    def every(i: te.Expr) -> te.Expr:
        acc = inputs[0][i].astype("bool")
        for x in inputs[1:]:
            acc = acc & x[i].astype("bool")
        return acc.astype("int8")

    f = compiler.build([*inputs, te.compute((n,), every, name="out")])
    x = np.ones((k, n), np.int8)
    for j in range(k):
        x[j, j::k + 1] = 0
    got = np.zeros(n, np.int8)
    f(*x, got)
    np.testing.assert_array_equal(got, np.all(x != 0, axis=0))
