"""Calling a packed function (make-packed-api's ABI) on arrays, from Python.

The compiled function is `int32_t f(DLTensor **args, int32_t num_args,
int64_t *error_values)`. `PackedFunction.__call__`:

  1. turns each argument into a `DLTensor*`, zero-copy: a NumPy array or any
     object with `__dlpack__` (PyTorch, JAX, CuPy...) through the DLPack
     capsule protocol, or a `RawTensor`; anything else is a TypeError;
  2. rejects read-only outputs (NumPy's `writeable` flag travels as the
     versioned capsule's read-only flag);
  3. calls the function, which checks everything else (count, ndim, dtype,
     device, shapes, strides, alignment, overlap) before touching memory;
  4. maps a non-zero result k to the k-th entry of the function's assert
     table and raises its ValueError or TypeError, the message filled with
     the values the failed check reported (the actual value, the expected one).

NumPy arrays go through `ndarray.__dlpack__` too: it fills the DLTensor in C
(~0.2 us), where reading `ndarray.ctypes.data` alone costs ~3 us. The argument
array and the error-values array are cached per thread (the call releases
the GIL, so two threads may call one function at once).
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from compiler.runtime.dlpack import (
    ExportError,
    RawTensor,
    format_message,
    read_only,
    tensor_of,
    versioned_tensor,
)

MAX_ERROR_VALUES = 4

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
            return self._local.buffers
        except AttributeError:
            argv = (ctypes.c_void_p * max(len(self.args), 1))()
            errors = (ctypes.c_int64 * MAX_ERROR_VALUES)()
            self._local.buffers = (argv, errors, ctypes.addressof(argv), ctypes.addressof(errors))
            return self._local.buffers

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
                if self._outputs[k] and read_only(cap, tensor):
                    raise ValueError(f"{self.name}: output {self.args[k].name} is read-only")
                argv[k] = tensor
        code = self._fn(argv_address, len(arrays), errors_address)
        if code != 0:
            raise self.error(code, errors)

    def _tensor(self, k: int, value: Any, keep: list[Any]) -> int:
        arg = self.args[k]
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
            raise ValueError(f"{self.name}: output {arg.name} is read-only")
        return address

    def _raw(self, arg: PackedArg, value: Any, keep: list[Any]) -> int:
        if not isinstance(value, RawTensor):
            raise TypeError(
                f"{self.name}: argument {arg.name} must be a NumPy array or a DLPack tensor, "
                f"got {type(value).__name__}"
            )
        if value.read_only and arg.is_output:
            raise ValueError(f"{self.name}: output {arg.name} is read-only")
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
        if isinstance(value, np.ndarray) and (
            not value.dtype.isnative or value.dtype.kind not in "biufc"
        ):
            order = "" if value.dtype.isnative else " (non-native byte order)"
            return TypeError(
                f"{self.name}: {arg.name}.dtype is {value.dtype.str}{order}, expected {arg.dtype}"
            )
        return ValueError(f"{self.name}: argument {arg.name} has no DLTensor view: {err}")

    def error(self, code: int, values: Sequence[int]) -> Exception:
        """The exception for a failure code, its message filled with the reported values."""
        if not 0 < code <= len(self.errors):
            return RuntimeError(f"{self.name}: failed with unknown code {code}")
        entry = self.errors[code - 1]
        message = format_message(entry.message, [values[i] for i in range(entry.n_values)])
        return _ERRORS.get(entry.error, ValueError)(message)


_ERRORS: dict[str, type[Exception]] = {"TypeError": TypeError, "IndexError": IndexError}
"""The exception a failed `loop.assert` raises, by its `raises` name (default ValueError)."""
