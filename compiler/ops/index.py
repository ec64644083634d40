"""Indexing with integer tensors and index-producing operators: `embedding`,
`gather`, `index_select`, `advanced_index` (NumPy/PyTorch `x[i, j]` with index
tensors), `arange` and `cumsum` (TOPI's `take`, `gather`, `arange`, `cumsum`).

An element read through an index tensor is a data-dependent read
(`x[ids[i], j]`): bound inference cannot narrow it, so the whole indexed
dimension of `x` is kept (its full extent).

WARNING: indices are never checked at run time. An index outside
`[-n, n)` (or `[0, n)` where PyTorch rejects negative ones) reads the nearest
valid element instead of raising as PyTorch does: `embedding(W, [7])` with 5
rows returns row 4. The clamp is what keeps a bad index from reading outside
the buffer; a correct program gets PyTorch's results.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from compiler import te
from compiler.errors import ExprTypeError, ExprValueError
from compiler.ops.util import (
    accumulator_dtype,
    broadcast_read,
    broadcast_shape,
    normalize_axis,
    reduce_rounded,
    simplify_dim,
    static,
)
from compiler.te import Dim, Expr, Tensor
from compiler.te.nodes import INDEX, is_float

INDEX_DTYPES = ("int8", "int16", "int32", "int64", "uint8")


def _check_index(t: Tensor, name: str) -> None:
    if t.dtype not in INDEX_DTYPES:
        raise ExprTypeError(f"{name}: the indices {t.name} must be an integer tensor, got {t.dtype}")


def clamp_index(i: Expr, n: Dim, *, wrap: bool = False) -> Expr:
    """An index value moved into [0, n): negative values count from the end when `wrap`
    (PyTorch's indexing), then anything out of range goes to the nearest end."""
    i = i.astype(INDEX)
    if wrap:
        i = te.if_then_else(i < 0, i + n, i)
    return te.minimum(te.maximum(i, 0), n - 1)


def embedding(weight: Tensor, indices: Tensor, name: str = "embedding") -> Tensor:
    """Rows of `weight` (shape [N, D]) picked by the integer `indices`: the shape is
    `indices.shape + weight.shape[1:]` (PyTorch's `embedding`, NumPy's `weight[indices]`)."""
    _check_index(indices, name)
    if weight.ndim < 1:
        raise ExprValueError(f"{name}: the table {weight.name} needs at least one dimension")
    n, k = weight.shape[0], indices.ndim

    def element(*i: Expr) -> Expr:
        return weight[(clamp_index(indices[i[:k]], n), *i[k:])]

    return te.compute((*indices.shape, *weight.shape[1:]), element, name=name)


def gather(x: Tensor, axis: int, indices: Tensor, name: str = "gather") -> Tensor:
    """out[i] = x[i with i[axis] replaced by indices[i]]: the shape of `indices`, which
    has x's rank (PyTorch's `gather`, NumPy's `take_along_axis`; TOPI's `gather`)."""
    _check_index(indices, name)
    axis = normalize_axis(axis, x.ndim, name)
    if indices.ndim != x.ndim:
        raise ExprValueError(f"{name}: the indices have {indices.ndim} dimensions, {x.name} has {x.ndim}")

    def element(*i: Expr) -> Expr:
        pos = clamp_index(indices[i], x.shape[axis])
        return x[tuple(pos if d == axis else v for d, v in enumerate(i))]

    return te.compute(indices.shape, element, name=name)


def index_select(x: Tensor, axis: int, indices: Tensor, name: str = "index_select") -> Tensor:
    """The positions `indices` (1-D) of `axis`, in that order (PyTorch's `index_select`,
    NumPy's `take(x, indices, axis)`)."""
    _check_index(indices, name)
    if indices.ndim != 1:
        raise ExprValueError(f"{name}: the indices must be 1-D, got {indices.ndim} dimensions")
    axis = normalize_axis(axis, x.ndim, name)
    shape = tuple(indices.shape[0] if d == axis else n for d, n in enumerate(x.shape))

    def element(*i: Expr) -> Expr:
        pos = clamp_index(indices[i[axis]], x.shape[axis])
        return x[tuple(pos if d == axis else v for d, v in enumerate(i))]

    return te.compute(shape, element, name=name)


def advanced_index(x: Tensor, indices: Sequence[Tensor | None], name: str = "index") -> Tensor:
    """`x[i0, i1, ...]` with integer index tensors (None: the whole dimension, `:`), as
    NumPy and PyTorch: the index tensors broadcast together; their dimensions replace the
    indexed ones in place when the indexed dimensions are adjacent, else come first.
    Negative indices count from the end."""
    items = list(indices) + [None] * (x.ndim - len(indices))
    if len(items) > x.ndim:
        raise ExprValueError(f"{name}: {len(indices)} indices for {x.ndim} dimensions of {x.name}")
    indexed = [d for d, t in enumerate(items) if t is not None]
    if not indexed:
        return te.compute(x.shape, lambda *i: x[i], name=name)
    tensors = [t for t in items if t is not None]
    for t in tensors:
        _check_index(t, name)
    bshape: tuple[Dim, ...] = tensors[0].shape
    for t in tensors[1:]:
        bshape = broadcast_shape(bshape, t.shape, name)
    adjacent = indexed == list(range(indexed[0], indexed[-1] + 1))
    first = indexed[0] if adjacent else 0
    rest = [d for d in range(x.ndim) if d not in indexed]
    before = [d for d in rest if d < first] if adjacent else []
    after = [d for d in rest if d not in before]
    shape = (*(x.shape[d] for d in before), *bshape, *(x.shape[d] for d in after))
    nb = len(bshape)

    def element(*i: Expr) -> Expr:
        outer = dict(zip(before, i[: len(before)], strict=True))
        outer |= dict(zip(after, i[len(before) + nb :], strict=True))
        bi = i[len(before) : len(before) + nb]
        src: list[Expr] = []
        for d in range(x.ndim):
            t = items[d]
            if t is None:
                src.append(outer[d])
            else:
                src.append(clamp_index(broadcast_read(t, bshape, bi), x.shape[d], wrap=True))
        return x[tuple(src)]

    return te.compute(shape, element, name=name)


def arange(
    start: int | float | Dim, stop: int | float | Dim | None = None, step: int | float = 1, dtype: str = "int64",
    name: str = "arange",
) -> Tensor:
    """start, start + step, ... below `stop` (one argument: 0 .. start - 1), as NumPy;
    `stop` may be a symbolic dimension when start and step are integers."""
    if stop is None:
        start, stop = 0, start
    if step == 0:
        raise ExprValueError(f"{name}: the step must not be 0")
    length: Dim
    if isinstance(start, int | float) and isinstance(stop, int | float):
        length = max(0, math.ceil((stop - start) / step))
    elif isinstance(step, int) and not isinstance(start, float) and not isinstance(stop, float):
        span = stop - start
        length = simplify_dim((span + (step - 1)) // step if step > 0 else (-span + (-step - 1)) // (-step))
    else:
        raise ExprValueError(f"{name}: a symbolic range needs integer start, stop and step")
    floating = is_float(dtype)

    def element(i: Expr) -> Expr:
        if floating:
            first = start if isinstance(start, int | float) else start.astype(dtype)
            return i.astype(dtype) * float(step) + first
        return (i * int(step) + start).astype(dtype)

    return te.compute((length,), element, name=name, dtype=dtype)


def cumsum(x: Tensor, axis: int = 0, dtype: str | None = None, name: str = "cumsum") -> Tensor:
    """Running sums along `axis` (in `dtype`, default x's; float16 accumulates in float32).

    Each element is its own sum over the prefix (te.sum with a `where`): quadratic in the
    axis length, meant for the masks and position ids of sequence models, not long scans."""
    axis = normalize_axis(axis, x.ndim, name)
    out = dtype or x.dtype
    acc = accumulator_dtype(out, None)
    if static(x.shape[axis]) == 0:
        return te.compute(x.shape, lambda *i: te.const(0, out), name=name)

    def element(*i: Expr) -> Expr:
        k = te.reduce_axis((0, x.shape[axis]), "k")
        src = tuple(k if d == axis else v for d, v in enumerate(i))
        return te.sum(x[src].astype(acc), axis=k, where=k <= i[axis])

    # the float32 sums a stage of their own: attached in the rounding stage, a computed
    # input's bounds named the attached stage's axis (`k <= i`), a loop variable, and
    # make-packed-api refused the build (a float16 `cumulative_trapezoid`)
    return reduce_rounded(x.shape, element, out, name, attach=False)
