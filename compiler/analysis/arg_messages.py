"""The error messages of the packed calling convention (make-packed-api).

A message names the function, the argument, the field and both values, so
that a bad call says what is wrong without a debugger. The run-time ones are
the messages of the wrapper's `loop.assert`s, in the order the wrapper emits
them: Python format strings whose `{i}` fields are the integers the assert
stores in `error_values[i]` (the actual value, then the expected one), with
the specs `{0:dtype}`, `{0:device}` and `{0:#x}` understood by
`compiler.runtime.dlpack.format_message`. The compile-time ones, at the end,
say why no call could bind a symbolic variable.

`func` is the function's name, `arg` an argument's, `field` a DLTensor field
as `A.shape[1]` or `A.strides[0]`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from compiler.dialects.shape import Dim

# ---------------------------------------------------------------------------
# Run-time: the wrapper's asserts
# ---------------------------------------------------------------------------


def wrong_num_args(func: str, args: Sequence[str]) -> str:
    """`{0}` is the number of arrays the caller passed (a TypeError)."""
    return f"{func}() takes {len(args)} arrays ({', '.join(args)}), got {{0}}"


def null_tensor(func: str, arg: str) -> str:
    """The `DLTensor*` is NULL (a TypeError)."""
    return f"{func}: argument {arg} is NULL, expected a DLTensor*"


def wrong_ndim(func: str, arg: str, ndim: int) -> str:
    return f"{func}: {arg}.ndim is {{0}}, expected {ndim}"


def zero_divisor(func: str, field: str, declared: str, divisor: str) -> str:
    """A shape declared with a division whose divisor is 0 at this call."""
    return f"{func}: {field} is declared {declared}, whose divisor {divisor} is 0"


def scalar_byte_offset(func: str, arg: str) -> str:
    """A scalar argument (a 0-d int64 tensor) is read at `data`: `{0}` is its byte_offset."""
    return f"{func}: scalar argument {arg} has byte_offset {{0}}, expected 0 (pass a Python int)"


def wrong_dtype(func: str, arg: str, dtype: str) -> str:
    """`{0}` is the packed DLPack data type (a TypeError)."""
    return f"{func}: {arg}.dtype is {{0:dtype}}, expected {dtype}"


def wrong_device(func: str, arg: str) -> str:
    return f"{func}: {arg}.device_type is {{0:device}}, expected cpu (device_type 1)"


def null_shape(func: str, arg: str, ndim: int) -> str:
    return f"{func}: {arg}.shape is NULL for a {ndim}-D tensor"


def negative_size(func: str, field: str, var: str) -> str:
    """A shape field that binds `var` is negative."""
    return f"{func}: {field} is {{0}}, expected a size >= 0 (it binds {var})"


def size_out_of_range(func: str, field: str, var: str, lower: int, upper: int | None) -> str:
    """A field that binds `var` lies outside the range the function declares for it."""
    allowed = f">= {lower}" if upper is None else f"in [{lower}, {upper}]"
    return f"{func}: {field} is {{0}}, expected {var} {allowed} (the range the function was compiled for)"


def field_mismatch(func: str, field: str, declared: Dim, origins: Mapping[str, str]) -> str:
    """A shape or declared stride differs from its declaration.

    For an expression `{1}` is its value and `origins` maps each of its
    variables to the field that bound it.
    """
    if isinstance(declared, int):
        return f"{func}: {field} is {{0}}, expected {declared}"
    bound = ", ".join(f"{var} bound from {ref}" for var, ref in origins.items())
    return f"{func}: {field} is {{0}}, expected {declared} = {{1}} ({bound})"


def not_compact(func: str, field: str, arg: str) -> str:
    """A stride of a buffer taken compact is not the row-major one, `{1}`."""
    return (
        f"{func}: {field} is {{0}}, expected {{1}} (strides count elements): {arg} is not "
        f"C-contiguous, and {func} takes {arg} compact (row-major)"
    )


def zero_output_stride(func: str, arg: str, axis: int) -> str:
    return (
        f"{func}: {arg}.strides[{axis}] is 0, but {arg} is an output: its elements must not overlap"
    )


def null_data(func: str, arg: str) -> str:
    """`{0}` is the element count."""
    return f"{func}: {arg}.data is NULL, but {arg} has {{0}} elements"


def misaligned(func: str, arg: str, size: int, dtype: str) -> str:
    """`{0}` is the address `data + byte_offset`."""
    return (
        f"{func}: {arg}.data + {arg}.byte_offset = {{0:#x}} is not a multiple of {size} bytes, "
        f"the alignment of {dtype}"
    )


def overlap(func: str) -> str:
    """`{0}` and `{1}` are the positions of the two arguments (the output first), `{2}`-`{3}`
    and `{4}`-`{5}` their byte ranges."""
    return (
        f"{func}: output {{0:arg}} overlaps {{1:arg}} in memory ([{{2:#x}}, {{3:#x}}) and "
        f"[{{4:#x}}, {{5:#x}})), but {func} assumes its arguments do not alias"
    )


# ---------------------------------------------------------------------------
# Compile time: variables no call can bind
# ---------------------------------------------------------------------------

_NO_BINDING = "appears in no argument shape or stride by itself, so no call can bind it"


def unbindable_in_field(func: str, var: str, field: str) -> str:
    """`var` occurs in the expression declared for `field`, and nowhere alone."""
    return f"@{func}: symbolic variable '{var}' (in {field}) {_NO_BINDING}"


def unbindable_in_body(func: str, var: str) -> str:
    """`var` is used by the function (a `loop.var`, an allocation) but bound by no field."""
    return f"symbolic variable '{var}' of @{func} {_NO_BINDING}"
