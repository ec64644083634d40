"""bfloat16 values in NumPy, which has no bf16 type: their bits as uint16.

The rounding is the compiled code's (lowering/bfloat16.py) and torch's: f32 to the
nearest bf16, ties to even; a NaN stays a quiet NaN (torch's is always 0x7FC0).
"""

from __future__ import annotations

from typing import Any

import numpy as np


def to_bf16_bits(values: Any) -> np.ndarray:
    """The bf16 bits (uint16) of float values, each first rounded to float32: to nearest
    even; a NaN a quiet positive NaN (its payload's top bits kept), as the compiled code."""
    with np.errstate(over="ignore", invalid="ignore"):  # beyond f32's range: infinities, as a cast gives
        b = np.asarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    magnitude = b & 0x7FFFFFFF
    rounded = np.minimum(magnitude + 0x7FFF + ((magnitude >> 16) & 1), 0x7FFFFFFF)
    nan_high = magnitude + 0x7FFFFF  # bit 31: a NaN
    sign = b & ~nan_high & 0x80000000
    return ((((sign | rounded) >> 16) | ((nan_high >> 25) & 0x40)) & 0xFFFF).astype(np.uint16)


def from_bf16_bits(bits: Any) -> np.ndarray:
    """The float32 values of bf16 bits (exact)."""
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def bf16_bits(x: float) -> int:
    """The bf16 bits of a Python float (a constant of the IR)."""
    return int(to_bf16_bits(x))


def bf16_value(bits: int) -> float:
    """The value of bf16 bits, exact in a Python float."""
    return float(from_bf16_bits(bits))


def numpy_dtype(dtype: str) -> np.dtype:
    """What holds a dtype's elements in NumPy: uint16 bits for bfloat16."""
    return np.dtype(np.uint16 if dtype == "bfloat16" else dtype)
