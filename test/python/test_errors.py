"""Wrong calls raise clear Python exceptions naming the argument, field and values."""

from __future__ import annotations

import numpy as np
import pytest

import compiler
from compiler import te


@pytest.fixture(scope="module")
def add_fn() -> compiler.Function:
    n = te.var("n")
    A = te.placeholder((n, 4), name="A")
    B = te.compute((n, 4), lambda i, j: A[i, j] + 1.0, name="B")
    return compiler.build([A, B])


def test_wrong_argument_count(add_fn: compiler.Function) -> None:
    with pytest.raises(TypeError, match=r"takes 2 arrays \(A, B\), got 1"):
        add_fn(np.zeros((3, 4), np.float32))


def test_wrong_dtype(add_fn: compiler.Function) -> None:
    with pytest.raises(TypeError, match=r"A.dtype is float64, expected float32"):
        add_fn(np.zeros((3, 4)), np.zeros((3, 4), np.float32))


def test_static_dimension_mismatch(add_fn: compiler.Function) -> None:
    with pytest.raises(ValueError, match=r"A.shape\[1\] is 5, expected 4"):
        add_fn(np.zeros((3, 5), np.float32), np.zeros((3, 4), np.float32))


def test_symbolic_dimension_mismatch_names_binding(add_fn: compiler.Function) -> None:
    with pytest.raises(ValueError, match=r"B.shape\[0\] is 2, expected n = 3 \(n bound from A.shape\[0\]\)"):
        add_fn(np.zeros((3, 4), np.float32), np.zeros((2, 4), np.float32))


def test_not_an_array(add_fn: compiler.Function) -> None:
    with pytest.raises(TypeError, match="argument A must be a NumPy array"):
        add_fn([[1.0]], np.zeros((1, 4), np.float32))


def test_wrong_ndim(add_fn: compiler.Function) -> None:
    with pytest.raises(ValueError, match=r"A.ndim is 1, expected 2"):
        add_fn(np.zeros(4, np.float32), np.zeros((1, 4), np.float32))


def test_read_only_output(add_fn: compiler.Function) -> None:
    out = np.zeros((3, 4), np.float32)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="output B is read-only"):
        add_fn(np.zeros((3, 4), np.float32), out)


def test_non_contiguous(add_fn: compiler.Function) -> None:
    a = np.zeros((3, 8), np.float32)[:, ::2]
    with pytest.raises(ValueError, match="A is not C-contiguous"):
        add_fn(a, np.zeros((3, 4), np.float32))


def test_builder_errors() -> None:
    A = te.placeholder((4,), name="A")
    with pytest.raises(IndexError, match="A has 1 dimensions, indexed with 2"):
        A[0, 1]
    k = te.reduce_axis((0, 4), "k")
    with pytest.raises(ValueError, match="must be the whole body"):
        te.compute((4,), lambda i: te.sum(A[k], axis=k) * 2.0, name="bad")
    B = te.compute((4,), lambda i: A[i] + 1.0, name="B")
    with pytest.raises(ValueError, match="placeholder\\(s\\) A are read but not in the argument list"):
        compiler.build([B])
    with pytest.raises(TypeError, match=r"convert one with .astype"):
        te.compute((4,), lambda i: A[i] + i, name="mixed")
