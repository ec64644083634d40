"""The packed calling convention (make-packed-api): DLPack arguments, binding, checked calls.

Every bad call must raise a Python exception whose message names the
function, the argument, the field and the values, and must not write a byte
of memory: outputs live inside a sentinel-filled buffer that is checked after
each call.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import compiler
from compiler import te
from compiler.analysis.arg_binder import ArgBinder, ArgDecl, Bind, Check, DType, FieldRef
from compiler.driver import Function, compile_module
from compiler.runtime.dlpack import KDL_FLOAT, RawTensor, dtype_name, format_message, pack_dtype
from compiler.te.to_ir import build_module

SENTINEL = -7.0
PAD = 16


@pytest.fixture(scope="module")
def add_fn() -> Function:
    """main(A: (n, 4) f32, B: (n, 4) f32 output): B = A + 1."""
    n = te.var("n")
    A = te.placeholder((n, 4), name="A")
    B = te.compute((n, 4), lambda i, j: A[i, j] + 1.0, name="B")
    return compiler.build([A, B])


@pytest.fixture(scope="module")
def pair_fn() -> Function:
    """pair(A: (n, m), b: (m,), C: (n, m) output): C = A + b, m shared by A and b."""
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((n, m), name="A")
    b = te.placeholder((m,), name="b")
    C = te.compute((n, m), lambda i, j: A[i, j] + b[j], name="C")
    return compiler.build([A, b, C], name="pair")


def strided_build(*, out_strided: bool = False) -> Function:
    """scale(A: (n, m) strided, B: (n, m) output): B = 2 * A, any strides for A (and B)."""
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((n, m), name="A")
    B = te.compute((n, m), lambda i, j: A[i, j] * 2.0, name="B")
    module, _ = build_module([A, B], "scale")
    return compile_module(module, "scale", strided_args=["A", "B"] if out_strided else ["A"])


@pytest.fixture(scope="module")
def strided_fn() -> Function:
    return strided_build()


def rand(*shape: int) -> np.ndarray:
    return np.random.default_rng(0).uniform(-1, 1, shape).astype(np.float32)


@dataclass
class Guarded:
    """An output array inside a sentinel-filled buffer, to catch any stray write."""

    buffer: np.ndarray
    out: np.ndarray

    @classmethod
    def make(cls, shape: tuple[int, ...], dtype: Any = np.float32) -> Guarded:
        size = int(np.prod(shape))
        buffer = np.full(size + 2 * PAD, SENTINEL, dtype)
        return cls(buffer, buffer[PAD : PAD + size].reshape(shape))

    def untouched(self) -> bool:
        return bool(np.all(self.buffer == np.asarray(SENTINEL, self.buffer.dtype)))


class DLPackOnly:
    """An object that only speaks DLPack (like a torch tensor), wrapping a NumPy array."""

    def __init__(self, array: np.ndarray):
        self._array = array

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self._array.__dlpack_device__()


class LegacyDLPack(DLPackOnly):
    """A producer from before DLPack 1.0: no `max_version` keyword, unversioned capsules."""

    def __dlpack__(self) -> Any:  # type: ignore[override]
        return self._array.__dlpack__()


def raw(array: np.ndarray, **fields: Any) -> RawTensor:
    """A RawTensor over `array`'s memory, with some fields overridden."""
    spec: dict[str, Any] = {
        "data": array.ctypes.data,
        "shape": array.shape,
        "strides": [s // array.itemsize for s in array.strides],
        "dtype": pack_dtype(KDL_FLOAT, 32),
    }
    spec.update(fields)
    return RawTensor(**spec)


# ---------------------------------------------------------------------------
# Bad calls: (case id, arguments given the guarded output, exception, message regex)
# ---------------------------------------------------------------------------

A34 = rand(3, 4)
BIG = 2**33


def _read_only(out: np.ndarray) -> np.ndarray:
    out.flags.writeable = False
    return out


def _misaligned(n: int) -> np.ndarray:
    return np.frombuffer(bytearray(4 * n + 4), np.float32, count=n, offset=1).reshape(n // 4, 4)


BAD_CALLS: list[tuple[str, Callable[[np.ndarray], tuple[Any, ...]], type[Exception], str]] = [
    (
        "too-few-arguments",
        lambda out: (A34,),
        TypeError,
        r"^main\(\) takes 2 arrays \(A, B\), got 1$",
    ),
    (
        "too-many-arguments",
        lambda out: (A34, out, A34),
        TypeError,
        r"main\(\) takes 2 arrays \(A, B\), got 3",
    ),
    (
        "a-list",
        lambda out: (A34.tolist(), out),
        TypeError,
        r"main: argument A must be a NumPy array or a DLPack tensor, got list",
    ),
    (
        "none-output",
        lambda out: (A34, None),
        TypeError,
        r"argument B must be a NumPy array or a DLPack tensor, got NoneType",
    ),
    (
        "float64",
        lambda out: (A34.astype(np.float64), out),
        TypeError,
        r"^main: A.dtype is float64, expected float32$",
    ),
    (
        "int32-output",
        lambda out: (A34, out.view(np.int32)),
        TypeError,
        r"main: B.dtype is int32, expected float32",
    ),
    (
        "big-endian",
        lambda out: (A34.astype(">f4"), out),
        TypeError,
        r"main: A.dtype is >f4 \(non-native byte order\), expected float32",
    ),
    ("ndim", lambda out: (A34.ravel(), out), ValueError, r"^main: A.ndim is 1, expected 2$"),
    (
        "static-dimension",
        lambda out: (rand(3, 5), out),
        ValueError,
        r"^main: A.shape\[1\] is 5, expected 4$",
    ),
    (
        "symbolic-inconsistent",
        lambda out: (rand(2, 4), out),
        ValueError,
        r"^main: B.shape\[0\] is 3, expected n = 2 \(n bound from A.shape\[0\]\)$",
    ),
    (
        "non-compact-view",
        lambda out: (rand(3, 8)[:, ::2], out),
        ValueError,
        r"^main: A.strides\[0\] is 8, expected 4 \(strides count elements\): A is not C-contiguous",
    ),
    (
        "negative-strides",
        lambda out: (A34[::-1], out),
        ValueError,
        r"main: A.strides\[0\] is -4, expected 4",
    ),
    (
        "fortran-order",
        lambda out: (np.asfortranarray(A34), out),
        ValueError,
        r"main: A.strides\[0\] is 1, expected 4",
    ),
    (
        "zero-size-static",
        lambda out: (np.zeros((3, 0), np.float32), out),
        ValueError,
        r"main: A.shape\[1\] is 0, expected 4",
    ),
    (
        "zero-size-symbolic",
        lambda out: (np.zeros((0, 4), np.float32), out),
        ValueError,
        r"main: B.shape\[0\] is 3, expected n = 0 \(n bound from A.shape\[0\]\)",
    ),
    (
        "misaligned",
        lambda out: (_misaligned(12), out),
        ValueError,
        r"main: A.data \+ A.byte_offset = 0x[0-9a-f]*[13579bdf] is not a multiple of 4 bytes, the alignment of float32",
    ),
    (
        "read-only-output",
        lambda out: (A34, _read_only(out)),
        ValueError,
        r"^main: output B is read-only \(NumPy's flags.writeable is False\); pass a writable array$",
    ),
    (
        "read-only-dlpack-output",
        lambda out: (A34, DLPackOnly(_read_only(out))),
        ValueError,
        r"^main: output B is read-only \(its DLPack capsule has the read-only flag\); pass a writable array$",
    ),
    (
        "output-is-input",
        lambda out: (out, out),
        ValueError,
        r"main: output B overlaps A in memory \(\[0x[0-9a-f]+, 0x[0-9a-f]+\) and .*\), but main assumes its arguments do not alias",
    ),
    (
        "partial-overlap",
        lambda out: (out.reshape(-1)[4:].reshape(2, 4), out[:2]),
        ValueError,
        r"main: output B overlaps A in memory",
    ),
    (
        "more-than-2^31-elements",
        lambda out: (raw(A34, shape=(BIG, 4)), out),
        ValueError,
        rf"main: B.shape\[0\] is 3, expected n = {BIG} \(n bound from A.shape\[0\]\)",
    ),
    (
        "no-int32-truncation",
        lambda out: (raw(A34, shape=(3, 2**32 + 4)), out),
        ValueError,
        r"main: A.shape\[1\] is 4294967300, expected 4",
    ),
    (
        "negative-shape",
        lambda out: (raw(A34, shape=(-3, 4)), out),
        ValueError,
        r"main: A.shape\[0\] is -3, expected a size >= 0 \(it binds n\)",
    ),
    (
        "cuda-device",
        lambda out: (raw(A34, device_type=2), out),
        ValueError,
        r"main: A.device_type is cuda \(device_type 2\), expected cpu",
    ),
    (
        "null-data",
        lambda out: (raw(A34, data=None), out),
        ValueError,
        r"^main: A.data is NULL, but A has 12 elements$",
    ),
    (
        "odd-byte-offset",
        lambda out: (raw(A34, byte_offset=2), out),
        ValueError,
        r"main: A.data \+ A.byte_offset = 0x[0-9a-f]+ is not a multiple of 4 bytes",
    ),
    (
        "raw-dtype",
        lambda out: (raw(A34, dtype=pack_dtype(KDL_FLOAT, 16)), out),
        TypeError,
        r"main: A.dtype is float16, expected float32",
    ),
    ("raw-ndim", lambda out: (raw(A34, ndim=3), out), ValueError, r"main: A.ndim is 3, expected 2"),
]


@pytest.mark.parametrize(
    ("args", "error", "pattern"), [c[1:] for c in BAD_CALLS], ids=[c[0] for c in BAD_CALLS]
)
def test_bad_call(
    add_fn: Function,
    args: Callable[[np.ndarray], tuple[Any, ...]],
    error: type[Exception],
    pattern: str,
) -> None:
    guard = Guarded.make((3, 4))
    with pytest.raises(error, match=pattern):
        add_fn(*args(guard.out))
    assert guard.untouched()


def test_bad_call_matrix_is_large() -> None:
    assert len(BAD_CALLS) >= 20


def test_shared_variable_inconsistent(pair_fn: Function) -> None:
    guard = Guarded.make((3, 4))
    with pytest.raises(
        ValueError, match=r"^pair: b.shape\[0\] is 5, expected m = 4 \(m bound from A.shape\[1\]\)$"
    ):
        pair_fn(rand(3, 4), rand(5), guard.out)
    assert guard.untouched()


def test_output_overlapping_a_later_input(pair_fn: Function) -> None:
    c = np.zeros((3, 4), np.float32)
    with pytest.raises(ValueError, match="pair: output C overlaps b in memory"):
        pair_fn(rand(3, 4), c[1], c)


@pytest.fixture(scope="module")
def three_outputs_fn() -> Function:
    """split(A: (n,), b: (n,), C, D, E: (n,) outputs): three outputs, two inputs."""
    n = te.var("n")
    A, b = te.placeholder((n,), name="A"), te.placeholder((n,), name="b")
    C = te.compute((n,), lambda i: A[i] + b[i], name="C")
    D = te.compute((n,), lambda i: A[i] * 2.0, name="D")
    E = te.compute((n,), lambda i: b[i] - 1.0, name="E")
    return compiler.build([A, b, C, D, E], name="split")


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 4), offsets=st.lists(st.integers(0, 12), min_size=5, max_size=5))
def test_overlap_checks_every_output_against_every_argument(
    three_outputs_fn: Function, n: int, offsets: list[int]
) -> None:
    """Arguments placed anywhere in one buffer: the call is refused exactly when an
    output's elements share memory with another argument's, and the message names two
    arguments that do."""
    memory = np.zeros(16, np.float32)
    args = [memory[o : o + n] for o in offsets]
    names = ["A", "b", "C", "D", "E"]
    spans = [set(range(o, o + n)) for o in offsets]
    clash = {(names[i], names[j]) for i in (2, 3, 4) for j in range(5) if j != i and spans[i] & spans[j]}
    if not clash:
        three_outputs_fn(*args)
        return
    with pytest.raises(ValueError, match=r"split: output (\w+) overlaps (\w+) in memory") as failure:
        three_outputs_fn(*args)
    out, other = re.match(r"split: output (\w+) overlaps (\w+)", str(failure.value)).groups()  # type: ignore[union-attr]
    assert (out, other) in clash


def test_zero_stride_output_rejected() -> None:
    f = strided_build(out_strided=True)
    guard = Guarded.make((3, 4))
    out = np.lib.stride_tricks.as_strided(guard.out, shape=(3, 4), strides=(0, 4))
    with pytest.raises(
        ValueError,
        match=r"scale: B.strides\[0\] is 0, but B is an output: its elements must not overlap",
    ):
        f(rand(3, 4), out)
    assert guard.untouched()


# ---------------------------------------------------------------------------
# Good calls
# ---------------------------------------------------------------------------


def test_numpy_call(add_fn: Function) -> None:
    guard = Guarded.make((3, 4))
    add_fn(A34, guard.out)
    np.testing.assert_allclose(guard.out, A34 + 1)
    assert np.all(guard.buffer[:PAD] == SENTINEL)
    assert np.all(guard.buffer[-PAD:] == SENTINEL)


def test_zero_size_call_writes_nothing(add_fn: Function) -> None:
    guard = Guarded.make((0, 4))
    add_fn(np.zeros((0, 4), np.float32), guard.out)
    assert guard.untouched()


def test_declared_range_is_checked_at_every_call() -> None:
    """A `te.var` range (`lower`, `upper`) is part of the function: the compiler proves
    with it, so a call outside raises, naming the field, the variable and the range."""
    n = te.var("n", lower=1, upper=8)
    A = te.placeholder((n, 4), name="A")
    B = te.compute((n, 4), lambda i, j: A[i, j] + 1.0, name="B")
    f = compiler.build([A, B])
    for size in (1, 8):
        a = np.arange(size * 4, dtype=np.float32).reshape(size, 4)
        guard = Guarded.make((size, 4))
        f(a, guard.out)
        np.testing.assert_array_equal(guard.out, a + 1)
    for size in (0, 9):
        guard = Guarded.make((size, 4))
        with pytest.raises(compiler.ArgumentValueError, match=rf"main: A.shape\[0\] is {size}, expected n in \[1, 8\]"):
            f(np.zeros((size, 4), np.float32), guard.out)
        assert guard.untouched()


@pytest.mark.parametrize(
    ("lower", "upper", "error"),
    [(-1, None, compiler.ExprValueError), (4, 2, compiler.ExprValueError), (True, None, compiler.ExprTypeError),
     (0, 2.5, compiler.ExprTypeError)],
)
def test_te_var_range_is_a_range_of_sizes(lower: Any, upper: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match=r"te\.var n"):
        te.var("n", lower=lower, upper=upper)


def test_one_variable_declares_one_range() -> None:
    A = te.placeholder((te.var("n", lower=1), 4), name="A")
    B = te.compute((te.var("n"), 4), lambda i, j: A[i, j], name="B")
    with pytest.raises(compiler.ExprValueError, match=r"two te\.vars named n declare different ranges"):
        compiler.build([A, B])


def test_empty_tensor_may_have_null_data(add_fn: Function) -> None:
    out = np.zeros((0, 4), np.float32)
    add_fn(raw(out, data=None), out)


def test_null_strides_mean_compact(add_fn: Function) -> None:
    out = np.zeros((3, 4), np.float32)
    add_fn(raw(A34, strides=None), raw(out, strides=None))
    np.testing.assert_allclose(out, A34 + 1)


def test_stride_of_a_unit_dimension_is_not_checked(add_fn: Function) -> None:
    a = rand(1, 4)
    odd = np.lib.stride_tricks.as_strided(a, shape=(1, 4), strides=(12345 * 4, 4))
    out = np.zeros((1, 4), np.float32)
    add_fn(odd, raw(out, strides=(-99, 1)))
    np.testing.assert_allclose(out, a + 1)


def test_byte_offset(add_fn: Function) -> None:
    base = rand(5, 4)
    out = np.zeros((3, 4), np.float32)
    add_fn(raw(base, shape=(3, 4), byte_offset=8 * 4), out)
    np.testing.assert_allclose(out, base[2:] + 1)


def test_dlpack_objects_zero_copy(add_fn: Function) -> None:
    out = np.zeros((3, 4), np.float32)
    add_fn(DLPackOnly(A34), DLPackOnly(out))  # written in place through the capsule
    np.testing.assert_allclose(out, A34 + 1)
    out[...] = 0
    add_fn(LegacyDLPack(A34), LegacyDLPack(out))
    np.testing.assert_allclose(out, A34 + 1)


def test_read_only_input_accepted(add_fn: Function) -> None:
    a = A34.copy()
    a.flags.writeable = False
    out = np.zeros((3, 4), np.float32)
    add_fn(a, out)
    np.testing.assert_allclose(out, a + 1)


def test_torch_tensors(add_fn: Function) -> None:
    torch = pytest.importorskip("torch")
    a = torch.from_numpy(A34.copy())
    out = torch.zeros((3, 4))
    add_fn(a, out)  # zero-copy both ways: the output tensor is written in place
    np.testing.assert_allclose(out.numpy(), A34 + 1)
    row = torch.arange(4, dtype=torch.float32).reshape(4, 1).t()  # (1, 4), strides (1, 1)
    out1 = torch.zeros((1, 4))
    add_fn(row, out1)  # the stride of the size-1 dimension is not checked
    np.testing.assert_allclose(out1.numpy(), row.numpy() + 1)
    with pytest.raises(ValueError, match=r"main: A.strides\[0\] is 1, expected 4"):
        add_fn(torch.zeros((4, 3)).t(), torch.zeros((3, 4)))


def test_inputs_may_overlap_each_other(pair_fn: Function) -> None:
    a = rand(4, 4)
    out = np.zeros((4, 4), np.float32)
    pair_fn(a, a[0], out)
    np.testing.assert_allclose(out, a + a[0])


@pytest.mark.parametrize(
    "view",
    [
        lambda x: x,
        lambda x: x[:, ::2],
        lambda x: x[::-1, ::-3],
        lambda x: x[1:4, 2:7],
        lambda x: x.T,
        lambda x: x[:1, :],
        lambda x: np.broadcast_to(x[0], (5, 8)),
    ],
    ids=[
        "compact",
        "every-other-column",
        "reversed",
        "window",
        "transposed",
        "one-row",
        "broadcast",
    ],
)
def test_strided_argument_runs_without_copy(
    strided_fn: Function, view: Callable[[np.ndarray], np.ndarray]
) -> None:
    a = view(np.arange(48, dtype=np.float32).reshape(6, 8))
    out = np.zeros(a.shape, np.float32)
    strided_fn(a, out)
    np.testing.assert_array_equal(out, 2 * a)


def test_strided_argument_with_null_strides(strided_fn: Function) -> None:
    a = rand(3, 5)
    out = np.zeros((3, 5), np.float32)
    strided_fn(raw(a, strides=None), out)
    np.testing.assert_array_equal(out, 2 * a)


def test_strided_output_written_in_place() -> None:
    f = strided_build(out_strided=True)
    a = rand(3, 4)
    big = np.zeros((6, 8), np.float32)
    f(a, big[::2, 1::2])
    np.testing.assert_array_equal(big[::2, 1::2], 2 * a)
    assert np.count_nonzero(big[1::2]) == 0
    assert np.count_nonzero(big[:, ::2]) == 0


def test_more_than_2_pow_31_elements_use_int64_indices() -> None:
    """A[n - 4 + i] with n = 2^31 + 8: an int32 index would wrap. np.zeros maps lazily."""
    n = te.var("n")
    A = te.placeholder((n,), name="A", dtype="int8")
    B = te.compute((4,), lambda i: A[n - 4 + i], name="B")
    f = compiler.build([A, B], name="tail")
    try:
        a = np.zeros(2**31 + 8, np.int8)
    except MemoryError:
        pytest.skip("cannot map 2 GiB here")
    a[-4:] = [1, 2, 3, 4]
    b = np.zeros(4, np.int8)
    f(a, b)
    assert b.tolist() == [1, 2, 3, 4]


def test_concurrent_calls_from_threads(add_fn: Function) -> None:
    failures: list[str] = []

    def work(k: int) -> None:
        a = np.full((k + 1, 4), k, np.float32)
        out = np.zeros_like(a)
        for _ in range(200):
            add_fn(a, out)
            if not np.all(out == k + 1):
                failures.append(f"thread {k}")
                return

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_error_table_matches_the_ir(add_fn: Function) -> None:
    # every assert of the packed function has an entry; a code maps to its exception
    assert len(add_fn._packed.errors) == add_fn.flat_ir.count("loop.assert")
    err = add_fn._packed.error(1, [5, 0, 0, 0])
    assert isinstance(err, TypeError)
    assert str(err) == "main() takes 2 arrays (A, B), got 5"
    assert isinstance(add_fn._packed.error(999, [0] * 4), RuntimeError)


def test_raw_abi_null_tensor_pointer(add_fn: Function) -> None:
    """A C caller passing NULL for a DLTensor* gets an error code, not a crash."""
    import ctypes

    from compiler.runtime.packed import MAX_ERROR_VALUES

    argv = (ctypes.c_void_p * 2)()
    values = (ctypes.c_int64 * MAX_ERROR_VALUES)()  # a failed check fills all of them
    code = add_fn._packed._fn(argv, 2, values)
    with pytest.raises(TypeError, match="main: argument A is NULL, expected a DLTensor"):
        raise add_fn._packed.error(code, values)
    assert add_fn._packed._fn(argv, 2, None) == code  # no error-values array: still a clean code


def test_raw_abi_writes_no_error_value_past_the_array(add_fn: Function) -> None:
    """A failed check fills the caller's error-values array (MAX_ERROR_VALUES entries) and
    nothing after it: guard entries past it keep their sentinel. (Test code that passed an
    array of 4 after the array grew to 6 corrupted the heap of its worker.)"""
    import ctypes

    from compiler.runtime.packed import MAX_ERROR_VALUES

    argv = (ctypes.c_void_p * 2)()
    values = (ctypes.c_int64 * (MAX_ERROR_VALUES + 4))(*[-7] * (MAX_ERROR_VALUES + 4))
    assert add_fn._packed._fn(argv, 2, values) != 0
    assert list(values[MAX_ERROR_VALUES:]) == [-7] * 4


# ---------------------------------------------------------------------------
# The ArgBinder alone, and message formatting
# ---------------------------------------------------------------------------

F32 = DType("float32", KDL_FLOAT, 32)


def test_binder_binds_at_first_occurrence_and_checks_the_rest() -> None:
    x = ArgDecl("x", (1, "c", "h", "w"), F32)
    wt = ArgDecl("wt", ("k", "c", 1, 1), F32)
    y = ArgDecl("y", (1, "k", "h", "w"), F32, is_output=True)
    binder = ArgBinder("conv", [x, wt, y])
    assert binder.variables == ["c", "h", "w", "k"]
    assert binder.origin["k"] == FieldRef("wt", "shape", 0)
    shape_x = binder.plans[0].shape
    assert [type(s) for s in shape_x] == [Check, Bind, Bind, Bind]
    check = binder.plans[1].shape[1]
    assert isinstance(check, Check)
    assert (
        binder.check_message(check)
        == "conv: wt.shape[1] is {0}, expected c = {1} (c bound from x.shape[1])"
    )
    # size-1 dimensions have no stride check; symbolic ones are exempt at run time when 1
    strides_wt = binder.plans[1].strides
    assert [s.field.axis for s in strides_wt] == [0, 1]
    assert all(isinstance(s, Check) and s.unit_exempt for s in strides_wt)
    assert binder.deferred == []


def test_binder_defers_checks_on_later_variables() -> None:
    binder = ArgBinder("f", [ArgDecl("P", ("n + 2",), F32), ArgDecl("A", ("n",), F32)])
    assert binder.plans[0].shape == []
    assert [str(c.field) for c in binder.deferred] == ["P.shape[0]"]
    assert (
        binder.check_message(binder.deferred[0])
        == "f: P.shape[0] is {0}, expected n + 2 = {1} (n bound from A.shape[0])"
    )


def test_binder_rejects_unbindable_variables() -> None:
    with pytest.raises(
        ValueError, match=r"symbolic variable 'n' \(in P.shape\[0\]\) appears in no argument"
    ):
        ArgBinder("f", [ArgDecl("P", ("n + 2",), F32)])


def test_binder_strided_buffer_binds_strides() -> None:
    binder = ArgBinder("f", [ArgDecl("A", ("n", 8), F32, strides=("s", 1))])
    assert binder.variables == ["n", "s"]
    assert binder.origin["s"] == FieldRef("A", "strides", 0)
    last = binder.plans[0].strides[1]
    assert isinstance(last, Check)
    assert binder.check_message(last) == "f: A.strides[1] is {0}, expected 1"


def test_message_formatting() -> None:
    assert dtype_name(pack_dtype(KDL_FLOAT, 32)) == "float32"
    assert dtype_name(pack_dtype(0, 8, 4)) == "int8x4"
    assert format_message("x is {0:dtype}", [pack_dtype(1, 16)]) == "x is uint16"
    assert format_message("at {0:#x} on {1:device}", [255, 2]) == "at 0xff on cuda (device_type 2)"
    assert format_message("{braces} kept without values", []) == "{braces} kept without values"
    assert format_message("{0:arg} overlaps {1:arg}", [1, 7], ["x", "y"]) == "y overlaps argument 7"


def test_arguments_in_call_order() -> None:
    """The packed function takes the arrays in the order given to build, outputs anywhere."""
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n,), name="B")
    C = te.compute((n,), lambda i: A[i] - B[i], name="C")
    f = compiler.build([C, A, B], name="sub")
    assert [s.name for s in f.specs] == ["C", "A", "B"]
    assert [s.is_output for s in f.specs] == [True, False, False]
    a, b, c = np.arange(5, dtype=np.float32), np.ones(5, np.float32), np.zeros(5, np.float32)
    f(c, a, b)
    np.testing.assert_array_equal(c, a - b)
    with pytest.raises(TypeError, match=r"^sub\(\) takes 3 arrays \(C, A, B\), got 2$"):
        f(c, a)


SEED_CONV = """
loop.func @conv(%x: !loop.buffer<[1, "c", "h", "w"], f32>, %wt: !loop.buffer<["k", "c", 1, 1], f32>,
                %y: !loop.buffer<[1, "k", "h", "w"], f32> {loop.output}) {
  %c = loop.var "c" : index
  %h = loop.var "h" : index
  %w = loop.var "w" : index
  %k = loop.var "k" : index
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  loop.for %f = %c0 extent %k {
    loop.for %i = %c0 extent %h {
      loop.for %j = %c0 extent %w {
        loop.store %zero, %y[%c0, %f, %i, %j] : !loop.buffer<[1, "k", "h", "w"], f32>
        loop.for %rc = %c0 extent %c {
          %a = loop.load %x[%c0, %rc, %i, %j] : !loop.buffer<[1, "c", "h", "w"], f32>
          %b = loop.load %wt[%f, %rc, %c0, %c0] : !loop.buffer<["k", "c", 1, 1], f32>
          %acc = loop.load %y[%c0, %f, %i, %j] : !loop.buffer<[1, "k", "h", "w"], f32>
          %p = arith.mulf %a, %b : f32
          %s = arith.addf %acc, %p : f32
          loop.store %s, %y[%c0, %f, %i, %j] : !loop.buffer<[1, "k", "h", "w"], f32>
        }
      }
    }
  }
}
"""


def test_seed_conv_with_symbolic_c_h_w_k() -> None:
    """Seed 003's 1x1 conv: c, h, w, k bound from x and wt, checked on y."""
    from xdsl.parser import Parser

    from compiler.context import make_context

    f = compile_module(Parser(make_context(), SEED_CONV).parse_module(), "conv")
    x, wt = rand(1, 3, 56, 56), rand(8, 3, 1, 1)
    y = np.zeros((1, 8, 56, 56), np.float32)
    f(x, wt, y)
    np.testing.assert_allclose(
        y, np.einsum("nchw,kc->nkhw", x, wt[:, :, 0, 0]), rtol=1e-5, atol=1e-6
    )
    guard = Guarded.make((1, 8, 57, 56))
    with pytest.raises(
        ValueError,
        match=r"^conv: y.shape\[2\] is 57, expected h = 56 \(h bound from x.shape\[2\]\)$",
    ):
        f(x, wt, guard.out)
    assert guard.untouched()
    with pytest.raises(
        ValueError,
        match=r"^conv: wt.shape\[1\] is 4, expected c = 3 \(c bound from x.shape\[1\]\)$",
    ):
        f(x, rand(8, 4, 1, 1), y)
