"""Scalar arguments: a `te.var` in `build`'s argument list is passed as a Python int
(TVM's scalar arguments), bound at call time, and usable in the body and in shapes."""

from __future__ import annotations

import re

import numpy as np
import pytest
from references import assert_guard_unchanged, guarded_array

import compiler
from compiler import te

GUARD = 32


def _scale() -> compiler.Function:
    k = te.var("k")
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] * k.astype("float32") + te.if_then_else(i < k, 1.0, 0.0), name="B")
    return compiler.build(te.create_schedule(B.op), [k, A, B])


@pytest.mark.parametrize("k", [3, 0, -2, 11, np.int64(5), np.int32(4)])
def test_value_used_in_the_body(k: int) -> None:
    f = _scale()
    a = np.linspace(-1.0, 1.0, 8, dtype=np.float32)
    whole, b = guarded_array((8,), GUARD)
    f(k, a, b)
    assert_guard_unchanged(whole, GUARD)
    np.testing.assert_allclose(b, a * float(k) + (np.arange(8) < int(k)), rtol=1e-6)


def test_signature_and_loop_ir() -> None:
    f = _scale()
    assert [s.name for s in f.specs] == ["k", "A", "B"]
    assert f.specs[0].dims == ()
    assert f.specs[0].dtype == "int64"


@pytest.mark.parametrize(
    ("bad", "error", "message"),
    [
        (2.5, compiler.ArgumentTypeError, re.escape("argument k must be a NumPy array or a DLPack tensor (or an int, for an integer argument), got float")),
        ("3", compiler.ArgumentTypeError, "argument k must be .* got str"),
        (True, compiler.ArgumentTypeError, "argument k must be .* got bool"),
        (np.array([1, 2]), compiler.ArgumentValueError, r"main: k.ndim is 1, expected 0"),
        (np.array(2.0), TypeError, r"main: k.dtype is float64, expected int64"),
    ],
)
def test_wrong_type_is_an_error_naming_the_argument(bad: object, error: type[Exception], message: str) -> None:
    f = _scale()
    with pytest.raises(error, match=message):
        f(bad, np.zeros(8, np.float32), np.zeros(8, np.float32))


def test_scalar_in_a_shape_binds_it_for_the_other_arguments() -> None:
    """TVM's test_dependent_output_shape: B's shape n // x needs the scalar x."""
    n, m, x = te.var("n"), te.var("m"), te.var("x")
    A = te.placeholder((n, m), name="A")
    B = te.compute((m, n // x), lambda i, j: A[i, j] + x.astype("float32"), name="B")
    f = compiler.build(te.create_schedule(B.op), [A, B, x])
    a = np.arange(42, dtype=np.float32).reshape(7, 6)
    whole, b = guarded_array((6, 3), GUARD)
    f(a, b, 2)
    assert_guard_unchanged(whole, GUARD)
    np.testing.assert_allclose(b, a[:6, :3] + 2.0)
    with pytest.raises(compiler.ArgumentValueError, match=r"B.shape\[1\] is 3, expected n // x = 1 \(n bound from A.shape\[0\], x bound from x.value\)"):
        f(a, b, 4)
    with pytest.raises(compiler.ArgumentValueError, match=r"B.shape\[1\] is declared n // x, whose divisor x is 0"):
        f(a, b, 0)


def test_scalar_checked_against_a_shape_that_bound_it() -> None:
    """n bound from A's shape first: the scalar n must then equal it."""
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + n.astype("float32"), name="B")
    f = compiler.build(te.create_schedule(B.op), [A, B, n])
    a = np.arange(5, dtype=np.float32)
    b = np.zeros(5, np.float32)
    f(a, b, 5)
    np.testing.assert_allclose(b, a + 5.0)
    with pytest.raises(compiler.ArgumentValueError, match=r"main: n.value is 4, expected n = 5 \(n bound from A.shape\[0\]\)"):
        f(a, b, 4)


def test_a_variable_twice_in_the_argument_list_is_rejected() -> None:
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
    with pytest.raises(ValueError, match="the variable n appears twice in the argument list"):
        compiler.build(te.create_schedule(B.op), [n, A, B, n])
