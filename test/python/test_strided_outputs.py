"""Strided outputs (`te.compute(..., strided=True)`) and outputs that must not be written.

A strided output binds its strides at call time like a strided placeholder, so a
compiled function writes straight into a view (a column slice, a transpose, a
reversed array) without a copy; it must still not overlap another argument. An
array that must not be written (read-only NumPy, a DLPack capsule with the
read-only flag, a torch tensor that requires grad or an inference tensor, any
JAX array) is refused as an output with a `ReadOnlyOutputError` naming it.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np
import pytest

import compiler
from compiler import te
from compiler.errors import ArgumentValueError, ReadOnlyOutputError


def scale_fn(*, input_strided: bool = False, output_strided: bool = True) -> compiler.Function:
    """main(A: (n, 4), out B: (n, 4)): B = 2 A + 1."""
    n = te.var("n")
    A = te.placeholder((n, 4), name="A", strided=input_strided)
    B = te.compute((n, 4), lambda i, j: A[i, j] * 2.0 + 1.0, name="B", strided=output_strided)
    return compiler.build([A, B])


@pytest.fixture(scope="module")
def strided_out() -> compiler.Function:
    return scale_fn()


@pytest.fixture(scope="module")
def both_strided() -> compiler.Function:
    return scale_fn(input_strided=True)


@pytest.fixture(scope="module")
def compact_out() -> compiler.Function:
    return scale_fn(output_strided=False)


A34 = np.arange(12, dtype=np.float32).reshape(3, 4)
EXPECTED = A34 * 2 + 1


def test_column_slice_is_written_in_place(strided_out: compiler.Function) -> None:
    big = np.full((3, 9), -7.0, np.float32)
    view = big[:, 1:9:2]  # strides (9, 2) in elements
    strided_out(A34, view)
    np.testing.assert_array_equal(view, EXPECTED)
    untouched = np.delete(big, [1, 3, 5, 7], axis=1)
    assert (untouched == -7.0).all()  # nothing written between the columns


def test_transposed_view(strided_out: compiler.Function) -> None:
    t = np.zeros((4, 3), np.float32)
    strided_out(A34, t.T)  # strides (1, 3)
    np.testing.assert_array_equal(t, EXPECTED.T)


def test_negative_strides(strided_out: compiler.Function) -> None:
    out = np.zeros((3, 4), np.float32)
    strided_out(A34, out[::-1, ::-1])  # DLPack strides (-4, -1), data at the last element
    np.testing.assert_array_equal(out, EXPECTED[::-1, ::-1])


def test_symbolic_rows_are_bound_from_the_input(strided_out: compiler.Function) -> None:
    a = np.random.default_rng(0).random((7, 4), dtype=np.float32)
    big = np.zeros((4, 14), np.float32)
    strided_out(a, big.T[::2])  # shape (7, 4), strides (2, 14)
    np.testing.assert_allclose(big.T[::2], a * 2 + 1)


def test_compact_output_still_takes_a_contiguous_array(strided_out: compiler.Function) -> None:
    out = np.zeros((3, 4), np.float32)
    strided_out(A34, out)
    np.testing.assert_array_equal(out, EXPECTED)


def test_a_compact_output_rejects_a_view(compact_out: compiler.Function) -> None:
    big = np.zeros((3, 8), np.float32)
    with pytest.raises(ArgumentValueError, match="B is not C-contiguous, and main takes B compact"):
        compact_out(A34, big[:, ::2])


def test_repr_says_which_arguments_are_strided(strided_out: compiler.Function) -> None:
    assert "A: float32[n, 4], out B: float32[n, 4] strided)" in repr(strided_out)


def test_overlap_with_an_input_is_refused(both_strided: compiler.Function) -> None:
    big = np.zeros((3, 9), np.float32)
    # interleaved columns share no element, but their address ranges overlap
    with pytest.raises(ArgumentValueError, match=r"main: output B overlaps A in memory \(\[0x[0-9a-f]+, 0x[0-9a-f]+\) and"):
        both_strided(big[:, 0:8:2], big[:, 1:9:2])
    with pytest.raises(ArgumentValueError, match="output B overlaps A"):
        both_strided(big[:, 0:4], big[:, 4:8])  # row i of B runs into row i + 1 of A
    with pytest.raises(ArgumentValueError, match="output B overlaps A"):
        both_strided(big[:, :4], big[:, :4])
    with pytest.raises(ArgumentValueError, match=r"B.strides\[1\] is 0, but B is an output"):
        both_strided(A34, np.lib.stride_tricks.as_strided(big, shape=(3, 4), strides=(36, 0)))
    bigger = np.zeros((6, 4), np.float32)
    both_strided(bigger[:3], bigger[3:])  # disjoint halves of one array
    np.testing.assert_array_equal(bigger[3:], np.ones((3, 4), np.float32))


def test_strided_output_whose_name_is_taken() -> None:
    """Names are made unique (`B` -> `B1`); `strided` follows the tensor, not the name."""
    A = te.placeholder((4,), name="B")
    B = te.compute((4,), lambda i: A[i] + 1.0, name="B", strided=True)
    f = compiler.build([A, B])
    out = np.zeros(8, np.float32)
    f(np.arange(4, dtype=np.float32), out[::2])
    np.testing.assert_array_equal(out, [1, 0, 2, 0, 3, 0, 4, 0])


# ---------------------------------------------------------------------------
# Outputs that must not be written
# ---------------------------------------------------------------------------


def test_read_only_numpy_output(strided_out: compiler.Function) -> None:
    out = np.zeros((3, 4), np.float32)
    out.flags.writeable = False
    with pytest.raises(ReadOnlyOutputError) as info:
        strided_out(A34, out)
    assert str(info.value) == (
        "main: output B is read-only (NumPy's flags.writeable is False); pass a writable array"
    )
    assert (info.value.function, info.value.argument) == ("main", "B")
    assert not out.any()
    a = A34.copy()
    a.flags.writeable = False  # a read-only input is fine
    strided_out(a, np.zeros((3, 4), np.float32))


class CapsuleOnly:
    """A producer known only by its DLPack capsule (not a NumPy type)."""

    def __init__(self, array: np.ndarray):
        self.array = array

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.array.__dlpack_device__()


def test_read_only_flag_of_a_versioned_capsule(strided_out: compiler.Function) -> None:
    out = np.zeros((3, 4), np.float32)
    out.flags.writeable = False
    with pytest.raises(ReadOnlyOutputError, match=r"output B is read-only \(its DLPack capsule has the read-only flag\)"):
        strided_out(A34, CapsuleOnly(out))
    writable = np.zeros((3, 4), np.float32)
    strided_out(A34, CapsuleOnly(writable))
    np.testing.assert_array_equal(writable, EXPECTED)


def fake_jax_array(array: np.ndarray) -> Any:
    """An object whose type lives in a `jax` module and that exports a writable capsule,
    as a JAX array does (its capsule carries no read-only flag)."""
    cls = types.new_class("ArrayImpl", (CapsuleOnly,))
    cls.__module__ = "jaxlib._jax"
    return cls(array)


def test_jax_arrays_are_immutable_even_without_the_flag(strided_out: compiler.Function) -> None:
    out = np.zeros((3, 4), np.float32)
    with pytest.raises(ReadOnlyOutputError, match=r"output B is read-only \(a JAX array is immutable\)"):
        strided_out(A34, fake_jax_array(out))
    assert not out.any()
    strided_out(fake_jax_array(A34), out)  # as an input it is read, zero-copy
    np.testing.assert_array_equal(out, EXPECTED)


def test_real_jax_array() -> None:
    jnp = pytest.importorskip("jax.numpy")
    f = scale_fn()
    with pytest.raises(ReadOnlyOutputError, match=r"output B is read-only \(a JAX array is immutable\)"):
        f(A34, jnp.zeros((3, 4), jnp.float32))
    out = np.zeros((3, 4), np.float32)
    f(jnp.asarray(A34), out)
    np.testing.assert_array_equal(out, EXPECTED)


def test_torch_outputs() -> None:
    torch = pytest.importorskip("torch")
    f = scale_fn()
    grad = torch.zeros(3, 4, requires_grad=True)
    with pytest.raises(ReadOnlyOutputError, match=r"output B is read-only \(a torch tensor that requires grad"):
        f(A34, grad)
    with torch.inference_mode():
        inference = torch.zeros(3, 4)
    with pytest.raises(ReadOnlyOutputError, match=r"\(an inference tensor, which torch forbids writing outside"):
        f(A34, inference)
    with torch.inference_mode():  # where torch itself allows writing it
        f(A34, inference)
    np.testing.assert_array_equal(inference.numpy(), EXPECTED)
    plain = torch.zeros(4, 3)
    f(torch.from_numpy(A34), plain.T)  # a transposed torch view, through DLPack
    np.testing.assert_array_equal(plain.T.numpy(), EXPECTED)
