"""Calling a packed function (make-packed-api's ABI) on arrays, from Python.

The compiled function is `int32_t f(DLTensor **args, int32_t num_args,
int64_t *error_values)`. `PackedFunction.__call__`:

  1. turns each argument into a `DLTensor*`, zero-copy: a NumPy array or any
     object with `__dlpack__` (PyTorch, JAX, CuPy...) through the DLPack
     capsule protocol, or a `RawTensor`; anything else is an
     `ArgumentTypeError` (a TypeError);
  2. refuses outputs that must not be written, with a `ReadOnlyOutputError`
     naming the output (`not_writable`): a versioned DLPack capsule with the
     read-only flag (NumPy's `writeable=False` travels that way), a JAX array
     (immutable, although its capsule carries no flag), a torch tensor that
     requires grad (autograd would not see the write) or an inference tensor
     outside inference mode (torch forbids writing it);
  3. calls the function, which checks everything else (count, ndim, dtype,
     device, shapes, strides, alignment, overlap) before touching memory;
  4. maps a non-zero result k to the k-th entry of the function's assert
     table and raises its `ArgumentValueError`, `ArgumentTypeError` or (a
     bound check) `BoundsError`, the message filled with the values the
     failed check reported (the actual value, the expected one).

NumPy arrays go through `ndarray.__dlpack__` too: it fills the DLTensor in C
(~0.2 us), where reading `ndarray.ctypes.data` alone costs ~3 us. The argument
array and the error-values array are cached per thread (the call releases
the GIL, so two threads may call one function at once).
"""

from __future__ import annotations

import ctypes
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from compiler.errors import (
    ArgumentError,
    ArgumentTypeError,
    ArgumentValueError,
    BoundsError,
    CompilerError,
    InternalError,
    OutOfMemoryError,
    ReadOnlyOutputError,
)
from compiler.runtime.dlpack import (
    ExportError,
    RawTensor,
    format_message,
    read_only,
    tensor_of,
    versioned_tensor,
)

MAX_ERROR_VALUES = 6
"""The length of the error-values array a caller passes: the most values a failed check reports."""

_PROTO = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32, ctypes.c_void_p)
_DLPACK_1 = (1, 0)


@dataclass(frozen=True)
class PackedArg:
    """What the caller side knows of an argument: its name, dtype name and role."""

    name: str
    dtype: str
    is_output: bool


@dataclass(frozen=True)
class ErrorEntry:
    """Failure code k + 1: a message template, the exception class name, the number of values."""

    message: str
    error: str
    n_values: int


class PackedFunction:
    """A callable over a packed function's address (see the module docstring)."""

    def __init__(
        self, name: str, address: int, args: Sequence[PackedArg], errors: Sequence[ErrorEntry]
    ):
        self.name = name
        self.args = list(args)
        self.errors = list(errors)
        self._fn = _PROTO(address)
        self._outputs = [a.is_output for a in self.args]
        self._local = threading.local()

    def _buffers(self) -> tuple[Any, Any, int, int]:
        """This thread's argument and error-values arrays, and their addresses."""
        try:
            buffers: tuple[Any, Any, int, int] = self._local.buffers  # threading.local: untyped
            return buffers
        except AttributeError:
            argv = (ctypes.c_void_p * max(len(self.args), 1))()
            errors = (ctypes.c_int64 * MAX_ERROR_VALUES)()
            buffers = (argv, errors, ctypes.addressof(argv), ctypes.addressof(errors))
            self._local.buffers = buffers
            return buffers

    def __call__(self, *arrays: Any) -> None:
        argv, errors, argv_address, errors_address = self._buffers()
        keep: list[Any] = []  # capsules and raw tensors, alive until the call returns
        if len(arrays) == len(self.args):  # otherwise the function reports the count
            for k, value in enumerate(arrays):
                try:  # the common case, inline: a versioned capsule (NumPy >= 2.1, torch >= 2.3)
                    cap = value.__dlpack__(max_version=_DLPACK_1)
                    tensor = versioned_tensor(cap)
                except Exception:  # everything else takes the slow path, with its own errors
                    argv[k] = self._tensor(k, value, keep)
                    continue
                keep.append(cap)
                if self._outputs[k]:
                    self._check_writable(k, value, read_only(cap, tensor))
                argv[k] = tensor
        code = self._fn(argv_address, len(arrays), errors_address)
        if code != 0:
            raise self.error(code, errors)

    def _tensor(self, k: int, value: Any, keep: list[Any]) -> int:
        arg = self.args[k]
        if arg.is_output:  # before exporting: torch refuses to export a tensor that requires grad
            self._check_writable(k, value, flagged=False)
        elif _is_integer(value) and arg.dtype.startswith("int"):
            # a scalar argument (a te.var): a Python int is passed as a 0-d tensor
            import numpy as np

            value = np.asarray(value, dtype=arg.dtype)
            keep.append(value)
        try:
            cap = value.__dlpack__(max_version=(1, 0))
        except AttributeError:
            return self._raw(arg, value, keep)
        except (BufferError, RuntimeError, ValueError, TypeError) as err:
            cap = self._retry(arg, value, err)
        keep.append(cap)
        try:
            address, read_only = tensor_of(cap, need_flags=arg.is_output)
        except ExportError as err:
            raise self._export_error(arg, value, err) from None
        if read_only:
            self._check_writable(k, value, flagged=True)
        return address

    def _raw(self, arg: PackedArg, value: Any, keep: list[Any]) -> int:
        if not isinstance(value, RawTensor):
            scalar = " (or an int, for an integer argument)" if arg.dtype.startswith("int") and not arg.is_output else ""
            raise ArgumentTypeError(
                f"{self.name}: argument {arg.name} must be a NumPy array or a DLPack tensor{scalar}, "
                f"got {type(value).__name__}"
            )
        if value.read_only and arg.is_output:
            raise self._read_only(arg, "a RawTensor made with read_only=True")
        keep.append(value)
        return value.address

    def _retry(self, arg: PackedArg, value: Any, err: Exception) -> Any:
        """A producer from before DLPack 1.0 rejects `max_version`: export unversioned."""
        if isinstance(err, TypeError):
            try:
                return value.__dlpack__()
            except (BufferError, RuntimeError, ValueError, TypeError) as again:
                err = again
        raise self._export_error(arg, value, err) from None

    def _export_error(self, arg: PackedArg, value: Any, err: Exception) -> Exception:
        if _is_ndarray(value) and (not value.dtype.isnative or value.dtype.kind not in "biufc"):
            order = "" if value.dtype.isnative else " (non-native byte order)"
            return ArgumentTypeError(
                f"{self.name}: {arg.name}.dtype is {value.dtype.str}{order}, expected {arg.dtype}"
            )
        return ArgumentValueError(f"{self.name}: argument {arg.name} has no DLTensor view: {err}")

    def _check_writable(self, k: int, value: Any, flagged: bool) -> None:
        """Raise ReadOnlyOutputError if output k must not be written (`flagged`: its
        capsule has DLPack's read-only flag)."""
        reason = not_writable(value)
        if reason is None and flagged:
            reason = (
                "NumPy's flags.writeable is False"
                if _is_ndarray(value)
                else "its DLPack capsule has the read-only flag"
            )
        if reason is not None:
            raise self._read_only(self.args[k], reason)

    def _read_only(self, arg: PackedArg, reason: str) -> ReadOnlyOutputError:
        return ReadOnlyOutputError(
            f"{self.name}: output {arg.name} is read-only ({reason}); pass a writable array",
            function=self.name,
            argument=arg.name,
        )

    def error(self, code: int, values: Sequence[int]) -> CompilerError:
        """The exception for a failure code, its message filled with the reported values."""
        if not 0 < code <= len(self.errors):
            return InternalError(f"{self.name}: failed with unknown code {code}")
        entry = self.errors[code - 1]
        reported = [values[i] for i in range(entry.n_values)]
        message = format_message(entry.message, reported, [a.name for a in self.args])
        return _ERRORS.get(entry.error, ArgumentValueError)(message)


_ERRORS: dict[str, type[ArgumentError | BoundsError | OutOfMemoryError]] = {
    "TypeError": ArgumentTypeError,
    "ValueError": ArgumentValueError,
    "IndexError": BoundsError,
    "MemoryError": OutOfMemoryError,
}
"""The exception a failed `loop.assert` raises, by its `raises` name (default ValueError)."""


def _is_integer(value: Any) -> bool:
    np = sys.modules.get("numpy")
    if isinstance(value, bool) or (np is not None and isinstance(value, np.bool_)):
        return False
    return isinstance(value, int) or (np is not None and isinstance(value, np.integer))


def _is_ndarray(value: Any) -> bool:
    """Whether `value` is a NumPy array (never, if NumPy was not imported: loading and calling a
    library does not import NumPy for callers that pass other DLPack tensors)."""
    np = sys.modules.get("numpy")
    return np is not None and isinstance(value, np.ndarray)


def not_writable(value: Any) -> str | None:
    """Why `value` must not be an output although its DLPack capsule may not say so,
    or None. Recognised by the type's module, without importing JAX or torch."""
    root = type(value).__module__.partition(".")[0]
    if root in ("jax", "jaxlib"):
        return "a JAX array is immutable"
    if root == "torch":
        if getattr(value, "requires_grad", False):
            return "a torch tensor that requires grad: autograd would not see the write"
        if _is_inference_tensor_outside_inference_mode(value):
            return "an inference tensor, which torch forbids writing outside inference mode"
    return None


def _is_inference_tensor_outside_inference_mode(value: Any) -> bool:
    is_inference = getattr(value, "is_inference", None)
    if is_inference is None or not is_inference():
        return False
    torch = sys.modules.get("torch")  # imported: `value` is one of its tensors
    return torch is None or not torch.is_inference_mode_enabled()
