"""Converters of the writes a functionalized program makes into tensors: `index_copy`,
`index_put`, `slice_scatter` (row writes) and `copy` (a whole replacement). Forms that
are no row write (an accumulating `index_put`, a strided slice) are `aten_index`'s.

torch.export's functional graph spells `cache.index_copy_(2, pos, k)` as
`new = aten.index_copy(cache, 2, pos, k)`, a whole new tensor, and lists `new`
as the buffer's BUFFER_MUTATION output. Computing `new` as a stage would copy
the whole cache on every call. Instead each row write here makes:

* the value every later reader sees, a stage inlined into its readers (the
  state module asks for it): `new[.., r, ..] = src[.., j, ..]` where row r is the
  j-th written row, else `base[.., r, ..]` (a lazy `if_then_else`: the base is
  read only at the rows the write leaves alone);
* a `RowUpdate` record (the base, the dimension, the positions and the rows),
  which `compiler.torch.state` turns into outputs of the compiled function (the
  positions and the rows, L rows, not the cache) and the in-place write of those
  rows into the state buffer after the call.

For `index_copy` and `index_put` the j of a row r is found by `inverse[r] = max j
with index[j] == r` (-1 where no j writes r; the last write wins, as on CPU), a
reduction of (rows of the base) x L steps; for `slice_scatter` it is `r - start`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from compiler import te
from compiler.ops.util import broadcast_read, normalize_axis, same_dim
from compiler.te import Dim, Expr, Tensor
from compiler.te.nodes import is_float
from compiler.torch import aten_index
from compiler.torch.aten import aten, unsupported
from compiler.torch.graph import Converter


@dataclass(frozen=True)
class RowUpdate:
    """Rows `positions` (1-D int64, length L) along `dim` of `base` replaced by `rows`
    (base's shape with L at `dim`)."""

    base: Tensor
    dim: int
    positions: Tensor
    rows: Tensor


UPDATES: dict[int, RowUpdate] = {}
"""The row write each updated value (by its tensor's uid) came from."""


def _rows_like(cx: Converter, base: Tensor, dim: int, length: Dim, source: Any) -> Tensor:
    """`source` as the rows written: base's dtype and shape with `length` at `dim`
    (broadcast as torch's in-place ops broadcast their source)."""
    shape = tuple(length if d == dim else n for d, n in enumerate(base.shape))
    if isinstance(source, int | float | bool):
        value = float(source) if is_float(base.dtype) else int(source)
        return te.compute(shape, lambda *_: te.const(value, base.dtype), name=f"{cx.name}_rows")
    src = cx.tensor(source, "source")
    same = src.ndim == len(shape) and all(same_dim(a, b) for a, b in zip(src.shape, shape, strict=True))
    if same and src.dtype == base.dtype:
        return src
    if src.ndim > len(shape):
        raise unsupported(cx, f"the source has {src.ndim} dimensions, more than the {len(shape)} of the tensor written")
    return te.compute(shape, lambda *i: broadcast_read(src, shape, i).astype(base.dtype), name=f"{cx.name}_rows")


def _positions(cx: Converter, index: Any) -> Tensor:
    positions = cx.tensor(index, "index")
    if positions.ndim != 1 or not positions.dtype.startswith("int"):
        raise unsupported(cx, f"the index must be a 1-D integer tensor, got {positions.ndim}-D {positions.dtype}")
    if positions.dtype != "int64":
        return te.compute(positions.shape, lambda j: positions[j].astype("int64"), name=f"{cx.name}_positions")
    return positions


def _written(cx: Converter, base: Tensor, dim: int, positions: Tensor, rows: Tensor) -> Tensor:
    """The updated tensor through the inverse of `positions` (see the module docstring)."""
    n, length = base.shape[dim], positions.shape[0]

    def inverse_of(r: Expr) -> Expr:
        j = te.reduce_axis((0, length), name="j")
        return te.max(te.if_then_else(positions[j] == r.astype("int64"), j.astype("int64"), te.const(-1, "int64")), axis=j)

    inverse = te.compute((n,), inverse_of, name=f"{cx.name}_inverse")

    def element(*i: Expr) -> Expr:
        j = inverse[i[dim]]
        at = tuple(j if d == dim else v for d, v in enumerate(i))
        return te.if_then_else(j >= 0, rows[at], base[i])

    value = te.compute(base.shape, element, name=cx.name)
    UPDATES[value.uid] = RowUpdate(base, dim, positions, rows)
    return value


@aten("index_copy.default")
def index_copy(cx: Converter, x: Any, dim: int, index: Any, source: Any) -> Tensor:
    base = cx.tensor(x, "self")
    dim = normalize_axis(int(dim), base.ndim, cx.name)
    positions = _positions(cx, index)
    rows = _rows_like(cx, base, dim, positions.shape[0], source)
    return _written(cx, base, dim, positions, rows)


@aten("index_put.default")
def index_put(cx: Converter, x: Any, indices: Any, values: Any, accumulate: bool = False) -> Tensor:
    """Rows of one dimension (one 1-D index tensor, the others None) as a row write;
    any other form through `aten_index.index_put` (a value, never state)."""
    base = cx.tensor(x, "self")
    given = [(d, i) for d, i in enumerate(indices) if i is not None]
    index_ndim = len(given[0][1].shape) if len(given) == 1 else 0
    if accumulate or len(given) != 1 or index_ndim != 1 or getattr(given[0][1], "dtype", None) in (torch.bool, "int8"):
        return aten_index.index_put(cx, x, indices, values, accumulate)
    dim, index = given[0]
    positions = _positions(cx, index)
    rows = _rows_like(cx, base, dim, positions.shape[0], values)
    return _written(cx, base, dim, positions, rows)


@aten("slice_scatter.default")
def slice_scatter(
    cx: Converter, x: Any, src: Any, dim: int = 0, start: Any = None, end: Any = None, step: int = 1
) -> Tensor:
    if step != 1:  # a value, never state
        return aten_index.slice_scatter(cx, x, src, dim, start, end, step)
    base = cx.tensor(x, "self")
    dim = normalize_axis(int(dim), base.ndim, cx.name)
    n = base.shape[dim]
    first: Dim = 0 if start is None else start
    if isinstance(first, int) and first < 0:
        first = first + n if isinstance(n, int) else n + first
    last: Dim = n if end is None or (isinstance(end, int) and isinstance(n, int) and end > n) else end
    if isinstance(last, int) and last < 0:
        last = last + n if isinstance(n, int) else n + last
    length: Dim = last - first
    rows = _rows_like(cx, base, dim, length, src)
    positions = te.compute((length,), lambda j: (j + first).astype("int64"), name=f"{cx.name}_positions")

    def element(*i: Expr) -> Expr:
        j = i[dim] - first
        at = tuple(j if d == dim else v for d, v in enumerate(i))
        return te.if_then_else(te.all(j >= 0, j < length), rows[at], base[i])

    value = te.compute(base.shape, element, name=cx.name)
    UPDATES[value.uid] = RowUpdate(base, dim, positions, rows)
    return value


@aten("copy.default")
def copy(cx: Converter, x: Any, src: Any, non_blocking: bool = False) -> Tensor:
    """`x.copy_(src)`: src broadcast to x's shape and dtype (a whole replacement)."""
    base = cx.tensor(x, "self")
    return _rows_like(cx, base, 0, base.shape[0], src) if base.ndim else _scalar_copy(cx, base, src)


def _scalar_copy(cx: Converter, base: Tensor, src: Any) -> Tensor:
    if isinstance(src, int | float | bool):
        value = float(src) if is_float(base.dtype) else int(src)
        return te.compute((), lambda: te.const(value, base.dtype), name=cx.name)
    s = cx.tensor(src, "source")
    if s.ndim != 0:
        raise unsupported(cx, f"copy of a {s.ndim}-D source into a 0-D tensor")
    return te.compute((), lambda: s[()].astype(base.dtype), name=cx.name)


__all__ = ["UPDATES", "RowUpdate"]
