"""DLPack structures (ctypes), codes, and zero-copy export of array objects.

Mirrors `dlpack.h` (v1.x): `DLTensor`, `DLManagedTensor` and
`DLManagedTensorVersioned`, the device and data type codes, and the capsule
protocol (`obj.__dlpack__()` returns a PyCapsule named `"dltensor"` or, when
the producer supports `max_version`, `"dltensor_versioned"`). A capsule we
do not rename to `"used_dltensor"` stays owned by the producer: its
destructor frees the tensor when the capsule dies, so the caller only keeps
the capsule alive while the compiled function runs.

Layout of `DLTensor` (48 bytes, the offsets `lower-to-llvm` reads):

| offset | field           | type       |
|--------|-----------------|------------|
| 0      | data            | void*      |
| 8      | device_type     | int32      |
| 12     | device_id       | int32      |
| 16     | ndim            | int32      |
| 20     | dtype           | {u8 code, u8 bits, u16 lanes} |
| 24     | shape           | int64*     |
| 32     | strides         | int64*     |
| 40     | byte_offset     | uint64     |
"""

from __future__ import annotations

import ctypes
import string
from collections.abc import Callable, Sequence
from typing import Any

from compiler.errors import ArgumentValueError

# ---------------------------------------------------------------------------
# Codes
# ---------------------------------------------------------------------------

KDL_CPU = 1
DEVICE_NAMES = {
    1: "cpu",
    2: "cuda",
    3: "cuda_host",
    4: "opencl",
    7: "vulkan",
    8: "metal",
    9: "vpi",
    10: "rocm",
    11: "rocm_host",
    12: "ext_dev",
    13: "cuda_managed",
    14: "oneapi",
    15: "webgpu",
    16: "hexagon",
    17: "maia",
}

KDL_INT, KDL_UINT, KDL_FLOAT, KDL_OPAQUE_HANDLE, KDL_BFLOAT, KDL_COMPLEX, KDL_BOOL = range(7)
_TYPE_CODE_NAMES = {
    KDL_INT: "int",
    KDL_UINT: "uint",
    KDL_FLOAT: "float",
    KDL_OPAQUE_HANDLE: "handle",
    KDL_BFLOAT: "bfloat",
    KDL_COMPLEX: "complex",
    KDL_BOOL: "bool",
}

DLPACK_FLAG_BITMASK_READ_ONLY = 1
"""`DLManagedTensorVersioned.flags`: the tensor must not be written."""


def pack_dtype(code: int, bits: int, lanes: int = 1) -> int:
    """DLDataType as the little-endian u32 the compiled code compares: code | bits << 8 | lanes << 16."""
    return code | bits << 8 | lanes << 16


def dtype_name(packed: int) -> str:
    """`float32`, `int8`, `bool`, `float32x4` (lanes) for a packed DLDataType."""
    code, bits, lanes = packed & 0xFF, (packed >> 8) & 0xFF, (packed >> 16) & 0xFFFF
    base = _TYPE_CODE_NAMES.get(code)
    name = (
        "bool"
        if code == KDL_BOOL and bits == 8
        else f"{base}{bits}"
        if base
        else f"dtype(code={code}, bits={bits})"
    )
    return name if lanes == 1 else f"{name}x{lanes}"


def device_name(code: int) -> str:
    return f"{DEVICE_NAMES.get(code, 'unknown')} (device_type {code})"


class ErrorFormatter(string.Formatter):
    """Formats assert messages: `{0}` an int, `{0:#x}` hex, `{0:dtype}` a DLDataType, `{0:device}`,
    `{0:arg}` the name of the argument at that position (a check in a loop over the arguments)."""

    def __init__(self, arguments: Sequence[str] = ()):
        self.arguments = arguments

    def format_field(self, value: Any, format_spec: str) -> str:
        if format_spec == "arg":
            k = int(value)
            return self.arguments[k] if 0 <= k < len(self.arguments) else f"argument {k}"
        if format_spec == "dtype":
            return dtype_name(int(value) & 0xFFFFFFFF)
        if format_spec == "device":
            return device_name(int(value))
        text: str = super().format_field(value, format_spec)  # typeshed: -> Any
        return text


def format_message(template: str, values: Sequence[int], arguments: Sequence[str] = ()) -> str:
    """The message of a failed `loop.assert`: the template filled with the reported values
    (`arguments`: the function's argument names, in order)."""
    if not values:
        return template
    return ErrorFormatter(arguments).format(template, *values)


# ---------------------------------------------------------------------------
# Structures
# ---------------------------------------------------------------------------


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [
        ("version", DLPackVersion),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
        ("flags", ctypes.c_uint64),
        ("dl_tensor", DLTensor),
    ]


_VERSIONED_TENSOR_OFFSET = DLManagedTensorVersioned.dl_tensor.offset  # 32
_VERSIONED_FLAGS_OFFSET = DLManagedTensorVersioned.flags.offset  # 24
assert ctypes.sizeof(DLTensor) == 48
assert DLTensor.byte_offset.offset == 40


class RawTensor:
    """A DLTensor built from raw fields, for the packed ABI's edge cases.

    `RawTensor(data=addr, shape=(4, 2), strides=None, dtype=pack_dtype(KDL_FLOAT, 32))`
    describes memory without owning it (tests use it for NULL strides, byte
    offsets, foreign devices and shapes too large to allocate). Compiled
    functions accept it as an argument like an array.
    """

    def __init__(
        self,
        *,
        data: int | None,
        shape: Sequence[int],
        strides: Sequence[int] | None = None,
        dtype: int = pack_dtype(KDL_FLOAT, 32),
        device_type: int = KDL_CPU,
        byte_offset: int = 0,
        ndim: int | None = None,
        read_only: bool = False,
    ):
        self._shape = (ctypes.c_int64 * max(len(shape), 1))(*shape)
        self._strides = (
            None if strides is None else (ctypes.c_int64 * max(len(strides), 1))(*strides)
        )
        self.read_only = read_only
        self.tensor = DLTensor(
            data=data,
            device=DLDevice(device_type, 0),
            ndim=len(shape) if ndim is None else ndim,
            dtype=DLDataType(dtype & 0xFF, (dtype >> 8) & 0xFF, (dtype >> 16) & 0xFFFF),
            shape=ctypes.cast(self._shape, ctypes.POINTER(ctypes.c_int64)),
            strides=None
            if self._strides is None
            else ctypes.cast(self._strides, ctypes.POINTER(ctypes.c_int64)),
            byte_offset=byte_offset,
        )

    @property
    def address(self) -> int:
        return ctypes.addressof(self.tensor)


# ---------------------------------------------------------------------------
# Export through the capsule protocol
# ---------------------------------------------------------------------------

# A void* result is an int (PyCapsule_GetPointer raises rather than return NULL).
_get_pointer: Callable[[object, ctypes.c_char_p], int] = ctypes.PYFUNCTYPE(
    ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p
)(
    ("PyCapsule_GetPointer", ctypes.pythonapi)
)
_VERSIONED = ctypes.c_char_p(b"dltensor_versioned")
_UNVERSIONED = ctypes.c_char_p(b"dltensor")


class ExportError(ArgumentValueError):
    """`__dlpack__()` returned something that is not a DLPack capsule."""


def capsule(obj: Any) -> Any:
    """`obj.__dlpack__()`, versioned (it carries the read-only flag) if the producer can."""
    try:
        return obj.__dlpack__(max_version=(1, 0))
    except TypeError:  # a producer from before DLPack 1.0: no max_version keyword
        return obj.__dlpack__()


def tensor_of(capsule: Any, *, need_flags: bool = True) -> tuple[int, bool]:
    """(address of the DLTensor, read-only flag) of a DLPack capsule, which the caller keeps alive.

    `need_flags=False` skips reading the flags (inputs: about 0.3 us per call).
    """
    try:
        managed = _get_pointer(capsule, _VERSIONED)
    except ValueError:
        try:
            return _get_pointer(capsule, _UNVERSIONED), False
        except ValueError:
            raise ExportError(
                f"__dlpack__() returned {type(capsule).__name__}, not a DLPack capsule"
            ) from None
    if not need_flags:
        return managed + _VERSIONED_TENSOR_OFFSET, False
    flags = ctypes.c_uint64.from_address(managed + _VERSIONED_FLAGS_OFFSET).value
    return managed + _VERSIONED_TENSOR_OFFSET, bool(flags & DLPACK_FLAG_BITMASK_READ_ONLY)


def versioned_tensor(capsule: Any) -> int:
    """The DLTensor address of a `"dltensor_versioned"` capsule (ValueError for another capsule)."""
    return _get_pointer(capsule, _VERSIONED) + _VERSIONED_TENSOR_OFFSET


def read_only(capsule: Any, tensor: int) -> bool:
    """The read-only flag of the versioned capsule whose DLTensor is at `tensor`."""
    del capsule  # alive while the flag is read
    offset = _VERSIONED_FLAGS_OFFSET - _VERSIONED_TENSOR_OFFSET
    return bool(ctypes.c_uint64.from_address(tensor + offset).value & DLPACK_FLAG_BITMASK_READ_ONLY)


def export(obj: Any) -> tuple[int, Any, bool]:
    """(address of the DLTensor, the capsule to keep alive, read-only flag), zero-copy."""
    cap = capsule(obj)
    address, read_only = tensor_of(cap)
    return address, cap, read_only
