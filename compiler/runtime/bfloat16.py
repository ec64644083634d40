"""bfloat16 values in NumPy, which has no bf16 type: their bits as uint16.

The rounding is the compiled code's (lowering/bfloat16.py) and torch's: f32 to the
nearest bf16, ties to even, every NaN the quiet NaN 0x7FC0.
"""

from __future__ import annotations

from typing import Any

import numpy as np

QUIET_NAN = 0x7FC0
"""The bf16 bits torch gives every NaN."""


def to_bf16_bits(values: Any) -> np.ndarray:
    """The bf16 bits (uint16) of float values, each first rounded to float32."""
    with np.errstate(over="ignore", invalid="ignore"):  # beyond f32's range: infinities, as a cast gives
        b = np.asarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where((b & 0x7FFFFFFF) > 0x7F800000, np.uint16(QUIET_NAN), rounded)


def from_bf16_bits(bits: Any) -> np.ndarray:
    """The float32 values of bf16 bits (exact)."""
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)
