"""NumPy references shared by the tests."""

from __future__ import annotations

import numpy as np


def conv2d_reference(x: np.ndarray, w: np.ndarray, stride: int, pad: int, dilation: int = 1) -> np.ndarray:
    n, _c, h, wd = x.shape
    k, _, r, s = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - ((r - 1) * dilation + 1)) // stride + 1
    ow = (wd + 2 * pad - ((s - 1) * dilation + 1)) // stride + 1
    out = np.zeros((n, k, oh, ow), np.float64)
    for ry in range(r):
        for rx in range(s):
            patch = xp[:, :, ry * dilation : ry * dilation + stride * oh : stride,
                       rx * dilation : rx * dilation + stride * ow : stride]
            out += np.einsum("nchw,kc->nkhw", patch, w[:, :, ry, rx])
    return out.astype(np.float32)


SENTINEL = -12345.0
GUARD = 16  # elements of guard memory on each side of an output


def guarded_empty(shape: tuple[int, ...], dtype: str = "float32") -> tuple[np.ndarray, np.ndarray]:
    """An output array that lives inside a larger buffer filled with a sentinel:
    returns (the whole buffer, the view to pass as the output)."""
    size = int(np.prod(shape)) if shape else 1
    whole = np.full(size + 2 * GUARD, SENTINEL, dtype)
    return whole, whole[GUARD : GUARD + size].reshape(shape)


def assert_guard_intact(whole: np.ndarray) -> None:
    """Nothing was written before or after the output view."""
    np.testing.assert_array_equal(whole[:GUARD], SENTINEL, err_msg="written before the output")
    np.testing.assert_array_equal(whole[-GUARD:], SENTINEL, err_msg="written after the output")


# --- guard memory of any size (test_schedule_properties.py) -----------------------


def guarded_array(
    shape: tuple[int, ...],
    guard: int,
    fill: float = SENTINEL,
    values: np.ndarray | None = None,
    dtype: str = "float32",
) -> tuple[np.ndarray, np.ndarray]:
    """`guarded_empty` with `guard` elements each side, all set to `fill` (NaN for an
    input: an out-of-bounds read then shows in the result); `values` fills the view."""
    size = int(np.prod(shape, dtype=np.int64)) if shape else 1
    whole = np.full(size + 2 * guard, fill, dtype)
    view = whole[guard : guard + size].reshape(shape)
    if values is not None:
        view[...] = values
    return whole, view


def assert_guard_unchanged(whole: np.ndarray, guard: int, fill: float = SENTINEL, what: str = "output") -> None:
    """Nothing was written in the `guard` elements before or after the view (NaN-aware)."""
    for side, part in (("before", whole[:guard]), ("after", whole[len(whole) - guard :])):
        same = np.isnan(part) if np.isnan(fill) else part == fill
        if not same.all():
            bad = np.flatnonzero(~same)
            where = bad if side == "after" else bad - guard
            raise AssertionError(
                f"written {side} the {what}: {len(bad)} guard elements changed "
                f"(offsets {where[:8].tolist()} {'from its end' if side == 'after' else 'from its start'})"
            )
