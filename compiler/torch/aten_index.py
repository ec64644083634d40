"""ATen converters of the Core ATen opset's data movement: copies and fills, flips and
diagonals, scatters (into a slice, an index, positions along a dimension), sorting,
masked scatter, sorting, distances and sizes.

Scatters are gathers in tensor expressions: each element of the result looks for
the source positions that write it (a reduction over the index tensor), which is
what makes them expressible without a write into a computed buffer. Where several
positions write one element, the last one wins (as torch on CPU); accumulating
variants add (or reduce) all of them. Sorting ranks each element by counting the
ones before it (stable, NaN last as torch), then places each at its rank: O(n^2)
per sorted row, meant for the short rows models sort (a router's experts, top-k).

Ops that cannot be expressed are refused with their reason (`REFUSED`): random
numbers, data-dependent shapes, FFTs.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from compiler import ops, te
from compiler.ops.index import clamp_index
from compiler.ops.util import (
    accumulator_dtype,
    broadcast_read,
    index_max,
    index_min,
    normalize_axis,
    product,
    static,
)
from compiler.te import Dim, Expr, Tensor
from compiler.te.nodes import is_float
from compiler.torch.aten import (
    aten,
    result_dtype,
    unsupported,
)
from compiler.torch.aten_transformer import _tensor_in
from compiler.torch.graph import Converter

REFUSED: dict[str, str] = {
    **{f"aten.{n}.default": "random numbers are not supported" for n in ("rand", "randn", "randperm")},
    "aten.nonzero.default": "its result's shape depends on the data (not supported)",
    "aten._local_scalar_dense.default": "reading a tensor's value as a Python number (.item()) is not supported",
    "aten._fft_r2c.default": "FFTs are not supported",
    "aten._fft_c2r.default": "FFTs are not supported",
}
"""Core ATen ops the importer refuses, with the reason its error gives."""


# ---------------------------------------------------------------------------
# Copies, fills, views that move elements
# ---------------------------------------------------------------------------


@aten("fill.Scalar", "fill.Tensor")
def fill(cx: Converter, x: Any, value: Any) -> Tensor:
    dtype = result_dtype(cx) or "float32"
    v = cx.operand(value, "value")
    if isinstance(v, Tensor):
        v = _tensor_in(cx, v, dtype, "value")
        return te.compute(tuple(x.shape), lambda *i: v[()] if v.ndim == 0 else v[(0,) * v.ndim], name=cx.name)
    return ops.full(tuple(x.shape), bool(v) if dtype == ops.MASK else v, dtype, name=cx.name)


@aten("empty_strided.default")
def empty_strided(cx: Converter, size: Sequence[Dim], stride: Sequence[Dim], **kwargs: Any) -> Tensor:
    """An empty tensor (its values are whatever was there: zeros here)."""
    return ops.full(tuple(size), 0, result_dtype(cx) or "float32", name=cx.name)


@aten("flip.default")
def flip(cx: Converter, x: Any, dims: Sequence[int]) -> Tensor:
    t = cx.tensor(x, "input")
    flipped = {normalize_axis(int(d), t.ndim, cx.name) for d in dims}
    return te.compute(
        t.shape, lambda *i: t[tuple(t.shape[d] - 1 - v if d in flipped else v for d, v in enumerate(i))], name=cx.name
    )


@aten("diagonal.default")
def diagonal(cx: Converter, x: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    t = cx.tensor(x, "input")
    a, b = normalize_axis(int(dim1), t.ndim, cx.name), normalize_axis(int(dim2), t.ndim, cx.name)
    row0, col0 = max(-int(offset), 0), max(int(offset), 0)
    length = index_max(index_min(t.shape[a] - row0, t.shape[b] - col0), 0)
    rest = [d for d in range(t.ndim) if d not in (a, b)]

    def element(*i: Expr) -> Expr:
        src: list[Expr | int] = [0] * t.ndim
        for d, v in zip(rest, i[:-1], strict=True):
            src[d] = v
        src[a], src[b] = i[-1] + row0, i[-1] + col0
        return t[tuple(src)]

    return te.compute((*(t.shape[d] for d in rest), length), element, name=cx.name)


@aten("as_strided.default")
def as_strided(cx: Converter, x: Any, size: Sequence[Dim], stride: Sequence[Dim], storage_offset: Dim | None = None
               ) -> Tensor:
    """Elements of x's row-major storage (x itself contiguous, as a functional graph's are)."""
    t = cx.tensor(x, "input")
    flat = ops.reshape(t, (product(t.shape),), name=f"{cx.name}_storage") if t.ndim != 1 else t
    base = storage_offset or 0

    def element(*i: Expr) -> Expr:
        position: Any = te.const(0, "int64") + base
        for v, s in zip(i, stride, strict=True):
            position = position + v * s
        return flat[clamp_index(position, flat.shape[0])]

    return te.compute(tuple(size), element, name=cx.name)


# ---------------------------------------------------------------------------
# Scatters
# ---------------------------------------------------------------------------


@aten("select_scatter.default")
def select_scatter(cx: Converter, x: Any, src: Any, dim: int, index: int) -> Tensor:
    t = cx.tensor(x, "input")
    s = _tensor_in(cx, src, t.dtype, "src")
    axis = normalize_axis(int(dim), t.ndim, cx.name)
    n = static(t.shape[axis])
    pos = int(index) + (n if n is not None and int(index) < 0 else 0)

    def element(*i: Expr) -> Expr:
        return te.if_then_else(i[axis] == pos, s[(*i[:axis], *i[axis + 1:])], t[i])

    return te.compute(t.shape, element, name=cx.name)


def slice_scatter(cx: Converter, x: Any, src: Any, dim: int = 0, start: Any = None, end: Any = None,
                  step: int = 1) -> Tensor:
    t = cx.tensor(x, "input")
    s = _tensor_in(cx, src, t.dtype, "src")
    axis = normalize_axis(int(dim), t.ndim, cx.name)
    size = t.shape[axis]
    first = _slice_bound(start, size, 0)
    stop = _slice_bound(end, size, size)

    def element(*i: Expr) -> Expr:
        v = i[axis]
        inside = (v >= first) & (v < stop)
        if step != 1:
            inside = inside & ((v - first) % step == 0)
        at = clamp_index((v - first) // step, s.shape[axis])
        return te.if_then_else(inside, s[(*i[:axis], at, *i[axis + 1:])], t[i])

    return te.compute(t.shape, element, name=cx.name)


def _slice_bound(v: Any, size: Dim, default: Dim) -> Dim:
    if v is None or (isinstance(v, int) and v >= 2**62):
        return default
    if isinstance(v, int) and v < 0:
        return index_max(size + v, 0)
    return index_min(v, size)


def _positions(t: Tensor, index: Tensor, axis: int, i: Sequence[Expr], k: Expr) -> tuple[Expr, tuple[Expr, ...]]:
    """Whether element i of the result lies in the index tensor's extent (outside `axis`)
    and the index tensor's position there with `axis` at k (clamped: always a valid read)."""
    inside: Expr = te.const(True)
    at: list[Expr] = []
    for d, v in enumerate(i):
        if d == axis:
            at.append(k)
            continue
        if not (static(index.shape[d]) is not None and static(index.shape[d]) == static(t.shape[d])):
            inside = inside & (v < index.shape[d])
        at.append(clamp_index(v, index.shape[d]))
    return inside, tuple(at)


def _scatter(cx: Converter, x: Any, dim: int, index: Any, source: Callable[[tuple[Expr, ...]], Expr],
             reduce: str | None, include_self: bool = True) -> Tensor:
    """out[i] = the last source position writing i (reduce None), or the reduction of
    every source written to i with x[i] (when include_self) by `reduce`."""
    t0 = cx.tensor(x, "input")
    t, idx = _one_element_rows(t0, f"{cx.name}_input"), _one_element_rows(cx.tensor(index, "index"), f"{cx.name}_index")
    axis = normalize_axis(int(dim), t.ndim, cx.name)
    if t0.ndim == 0:  # torch scatters a 0-d tensor as one of one element, and returns it 0-d
        out = _scatter_nd(cx, t, idx, axis, source, reduce, include_self)
        return te.compute((), lambda: out[0], name=f"{cx.name}_0d")
    return _scatter_nd(cx, t, idx, axis, source, reduce, include_self)


def _one_element_rows(t: Tensor, name: str) -> Tensor:
    """A 0-d tensor as the 1-D tensor of its one element (other tensors unchanged)."""
    return te.compute((1,), lambda _: t[()], name=name) if t.ndim == 0 else t


def _reads(src: Tensor) -> Callable[[tuple[Expr, ...]], Expr]:
    """The source element a scatter reads at an index position (a 0-d source has one)."""
    return (lambda _: src[()]) if src.ndim == 0 else (lambda at: src[at])


def _scatter_nd(cx: Converter, t: Tensor, idx: Tensor, axis: int, source: Callable[[tuple[Expr, ...]], Expr],
                reduce: str | None, include_self: bool) -> Tensor:

    def match(i: Sequence[Expr], k: Expr) -> tuple[Expr, tuple[Expr, ...]]:
        inside, at = _positions(t, idx, axis, i, k)
        target = clamp_index(idx[at].astype("int64"), t.shape[axis], wrap=True)
        return inside & (target == i[axis]), at

    extent = idx.shape[axis]
    if reduce is None:
        def last(*i: Expr) -> Expr:
            k = te.reduce_axis((0, extent), "k")
            hit, _ = match(i, k.var)
            return te.max(te.if_then_else(hit, k.var.astype("int64"), te.const(-1, "int64")), axis=k)

        writer = te.compute(t.shape, last, name=f"{cx.name}_writer")

        def element(*i: Expr) -> Expr:
            k = writer[i]
            _, at = _positions(t, idx, axis, i, clamp_index(k, extent))
            return te.if_then_else(k >= 0, source(at), t[i])

        return te.compute(t.shape, element, name=cx.name)
    return _scatter_reduce(cx, t, extent, match, source, reduce, include_self)


def _scatter_reduce(cx: Converter, t: Tensor, extent: Dim, match: Callable[..., tuple[Expr, tuple[Expr, ...]]],
                    source: Callable[[tuple[Expr, ...]], Expr], reduce: str, include_self: bool) -> Tensor:
    acc = accumulator_dtype(t.dtype, None)
    neutral: dict[str, Callable[[str], Expr]] = {
        "sum": lambda d: te.const(0, d), "mean": lambda d: te.const(0, d), "prod": lambda d: te.const(1, d),
        "amax": te.min_value, "amin": te.max_value,
    }
    if reduce not in neutral:
        raise unsupported(cx, f"scatter_reduce with reduce={reduce!r} is not supported")
    reducer = {"sum": te.sum, "mean": te.sum, "prod": te.prod, "amax": te.max, "amin": te.min}[reduce]
    if reduce in ("amax", "amin") and is_float(acc):
        neutral[reduce] = lambda d: te.const(float("-inf") if reduce == "amax" else float("inf"), d)

    def total(*i: Expr) -> Expr:
        k = te.reduce_axis((0, extent), "k")
        hit, at = match(i, k.var)
        return reducer(te.if_then_else(hit, source(at).astype(acc), neutral[reduce](acc)), axis=k)

    combined = te.compute(t.shape, total, name=f"{cx.name}_{reduce}")

    def count(*i: Expr) -> Expr:
        k = te.reduce_axis((0, extent), "k")
        hit, _ = match(i, k.var)
        return te.sum(te.if_then_else(hit, te.const(1, acc), te.const(0, acc)), axis=k)

    hits = te.compute(t.shape, count, name=f"{cx.name}_count")

    def element(*i: Expr) -> Expr:
        own, value = t[i].astype(acc), combined[i]
        merged = {"sum": lambda: own + value, "mean": lambda: own + value, "prod": lambda: own * value,
                  "amax": lambda: te.maximum(own, value), "amin": lambda: te.minimum(own, value)}[reduce]()
        if reduce == "mean":
            n = hits[i] + (1 if include_self else 0)
            mean = (merged if include_self else value) / te.maximum(n, te.const(1, acc))
            merged = (mean if is_float(acc) else (merged if include_self else value) // te.maximum(
                n, te.const(1, acc)))
        elif not include_self:
            merged = value
        return te.if_then_else(hits[i] > 0, merged, own).astype(t.dtype)

    return te.compute(t.shape, element, name=cx.name)


@aten("scatter.src")
def scatter_src(cx: Converter, x: Any, dim: int, index: Any, src: Any) -> Tensor:
    s = _tensor_in(cx, src, result_dtype(cx) or "float32", "src")
    return _scatter(cx, x, dim, index, _reads(s), None)


@aten("scatter.value")
def scatter_value(cx: Converter, x: Any, dim: int, index: Any, value: Any) -> Tensor:
    dtype = result_dtype(cx) or "float32"
    return _scatter(cx, x, dim, index, lambda at: te.const(value, dtype), None)


@aten("scatter_add.default")
def scatter_add(cx: Converter, x: Any, dim: int, index: Any, src: Any) -> Tensor:
    s = _tensor_in(cx, src, result_dtype(cx) or "float32", "src")
    return _scatter(cx, x, dim, index, _reads(s), "sum")


@aten("scatter_reduce.two")
def scatter_reduce(cx: Converter, x: Any, dim: int, index: Any, src: Any, reduce: str, *,
                   include_self: bool = True) -> Tensor:
    s = _tensor_in(cx, src, result_dtype(cx) or "float32", "src")
    return _scatter(cx, x, dim, index, _reads(s), str(reduce), bool(include_self))


def index_put(cx: Converter, x: Any, indices: Sequence[Any], values: Any, accumulate: bool = False) -> Tensor:
    """x[indices] = values (or += with accumulate) for integer index tensors, broadcast
    together to any shape; None indexes a whole dimension (`x[:, idx] = v`). As torch's
    advanced indexing, the index dimensions stand where the indexed dimensions were when
    they are adjacent, else first. Where several index positions name one element, the
    last (in row-major order) writes it, as torch's CPU kernel does."""
    t = cx.tensor(x, "input")
    items = [None if i is None else cx.tensor(i, f"indices[{k}]") for k, i in enumerate(indices)]
    indexed = [d for d, i in enumerate(items) if i is not None]
    tensors = [i for i in items if i is not None]
    if any(i.dtype == ops.MASK for i in tensors):
        if len(tensors) > 1:
            raise unsupported(cx, "index_put with a boolean mask beside other index tensors is not supported")
        return _index_put_mask(cx, t, indexed[0], tensors[0], values, accumulate)
    shape: tuple[Dim, ...] = tensors[0].shape
    for i in tensors[1:]:
        shape = ops.util.broadcast_shape(shape, i.shape, cx.name)
    v = _tensor_in(cx, values, t.dtype, "values")
    rest = [d for d in range(t.ndim) if d not in indexed]
    adjacent = indexed == list(range(indexed[0], indexed[-1] + 1))
    before = [d for d in rest if d < indexed[0]] if adjacent else []
    after = [d for d in rest if d not in before]
    vshape = (*(t.shape[d] for d in before), *shape, *(t.shape[d] for d in after))

    def matched(i: Sequence[Expr], ks: Sequence[Expr]) -> Expr:
        hit: Expr = te.const(True)
        for d in indexed:
            item = items[d]
            assert item is not None
            at = clamp_index(broadcast_read(item, shape, tuple(ks)).astype("int64"), t.shape[d], wrap=True)
            hit = hit & (at == i[d])
        return hit

    def value(ks: Sequence[Expr], i: Sequence[Expr]) -> Expr:
        return broadcast_read(v, vshape, (*(i[d] for d in before), *ks, *(i[d] for d in after)))

    def over_positions(term: Callable[[list[Expr]], Expr], reducer: Callable[..., Expr]) -> Expr:
        """`term` reduced over every index position (a 0-d index has one, no axes)."""
        axes = [te.reduce_axis((0, size), f"k{j}") for j, size in enumerate(shape)]
        return reducer(term([k.var for k in axes]), axis=tuple(axes)) if axes else term([])

    if accumulate:
        def total(*i: Expr) -> Expr:
            return over_positions(lambda ks: te.if_then_else(matched(i, ks), value(ks, i), te.const(0, t.dtype)),
                                  te.sum)

        added = te.compute(t.shape, total, name=f"{cx.name}_added")
        return te.compute(t.shape, lambda *i: t[i] + added[i], name=cx.name)

    strides = [product(shape[j + 1:]) for j in range(len(shape))]

    def flat(ks: Sequence[Expr]) -> Expr:
        zero: Expr = te.const(0, "int64")
        return functools.reduce(lambda a, b: a + b, (k.astype("int64") * s for k, s in zip(ks, strides, strict=True)),
                                zero)

    def last(*i: Expr) -> Expr:
        return over_positions(lambda ks: te.if_then_else(matched(i, ks), flat(ks), te.const(-1, "int64")), te.max)

    writer = te.compute(t.shape, last, name=f"{cx.name}_writer")

    def written(*i: Expr) -> Expr:
        w = te.maximum(writer[i], te.const(0, "int64"))
        ks = [(w // s) % size for s, size in zip(strides, shape, strict=True)]
        return te.if_then_else(writer[i] >= 0, value(ks, i), t[i])

    return te.compute(t.shape, written, name=cx.name)


def _running_count(cx: Converter, mask: Tensor) -> Tensor:
    """For each element of `mask`, how many are true up to it (row-major, inclusive)."""
    flat = ops.cumsum(ops.reshape(mask, (product(mask.shape),), name=f"{cx.name}_flat_mask"), 0, "int64",
                      name=f"{cx.name}_flat_count")
    return ops.reshape(flat, mask.shape, name=f"{cx.name}_count")


def _index_put_mask(cx: Converter, t: Tensor, first: int, mask: Tensor, values: Any, accumulate: bool) -> Tensor:
    """x[..., mask, ...] = values: the mask covers dimensions first.. of x, and the element
    at the n-th true position takes values' n-th row along the mask's one index dimension."""
    dims = range(first, first + mask.ndim)
    count = _running_count(cx, mask)
    v = _tensor_in(cx, values, t.dtype, "values")
    vshape = (*t.shape[:first], product(mask.shape), *t.shape[first + mask.ndim:])

    def element(*i: Expr) -> Expr:
        at = tuple(i[d] for d in dims)
        k = count[at] - 1
        value = broadcast_read(v, vshape, (*i[:first], k, *i[first + mask.ndim:]))
        own = t[i]
        return te.if_then_else(mask[at] != 0, own + value if accumulate else value, own)

    return te.compute(t.shape, element, name=cx.name)


@aten("masked_scatter.default")
def masked_scatter(cx: Converter, x: Any, mask: Any, source: Any) -> Tensor:
    """x where mask is false; where it is true, source's elements in order (row-major):
    the element at flat position p takes source's element numbered by the trues before p
    (a running count, `ops.cumsum`)."""
    t = cx.tensor(x, "input")
    m = ops.broadcast_to(cx.tensor(mask, "mask"), t.shape, name=f"{cx.name}_mask")
    count = _running_count(cx, m)
    given = _tensor_in(cx, source, t.dtype, "source")
    src = ops.reshape(given, (product(given.shape),), name=f"{cx.name}_flat_source")

    def element(*i: Expr) -> Expr:
        return te.if_then_else(m[i] != 0, src[clamp_index(count[i] - 1, src.shape[0])], t[i])

    return te.compute(t.shape, element, name=cx.name)


# ---------------------------------------------------------------------------
# Sorting
# ---------------------------------------------------------------------------


def _before(a: Expr, b: Expr, descending: bool) -> Expr:
    """Whether a sorts strictly before b (NaN after every number, as torch)."""
    if not is_float(a.dtype):
        return a > b if descending else a < b
    a_nan, b_nan = a != a, b != b
    if descending:
        return (a_nan & ~b_nan) | (a > b)
    return (~a_nan & b_nan) | (a < b)


def sort_along(cx: Converter, t: Tensor, axis: int, descending: bool) -> tuple[Tensor, Tensor]:
    """(values, int64 indices) of a stable sort along `axis`."""
    n = t.shape[axis]

    def rank(*i: Expr) -> Expr:
        j = te.reduce_axis((0, n), "j")
        other = t[(*i[:axis], j.var, *i[axis + 1:])]
        mine = t[i]
        first = _before(other, mine, descending) | (~_before(mine, other, descending) & (j.var < i[axis]))
        return te.sum(te.if_then_else(first, te.const(1, "int64"), te.const(0, "int64")), axis=j)

    ranks = te.compute(t.shape, rank, name=f"{cx.name}_rank")

    def placed(value: Callable[[tuple[Expr, ...], Expr], Expr], dtype: str, name: str) -> Tensor:
        def element(*i: Expr) -> Expr:
            j = te.reduce_axis((0, n), "j")
            at = (*i[:axis], j.var, *i[axis + 1:])
            return te.sum(te.if_then_else(ranks[at] == i[axis], value(at, j.var), te.const(0, dtype)), axis=j)

        return te.compute(t.shape, element, name=name)

    values = placed(lambda at, j: t[at], t.dtype, cx.name)
    indices = placed(lambda at, j: j.astype("int64"), "int64", f"{cx.name}_indices")
    return values, indices


@aten("sort.default", "sort.stable")
def sort(cx: Converter, x: Any, *args: Any, **kwargs: Any) -> tuple[Tensor, Tensor]:
    name = str(cx.node.target) if cx.node is not None else ""
    if name.endswith("stable"):
        dim = kwargs.get("dim", args[1] if len(args) > 1 else -1)
        descending = kwargs.get("descending", args[2] if len(args) > 2 else False)
    else:
        dim = kwargs.get("dim", args[0] if args else -1)
        descending = kwargs.get("descending", args[1] if len(args) > 1 else False)
    t = cx.tensor(x, "input")
    if t.ndim == 0:
        return t, ops.full((), 0, "int64", name=f"{cx.name}_indices")
    return sort_along(cx, t, normalize_axis(int(dim), t.ndim, cx.name), bool(descending))


@aten("topk.default")
def topk(cx: Converter, x: Any, k: int, dim: int = -1, largest: bool = True, sorted: bool = True
         ) -> tuple[Tensor, Tensor]:
    t = cx.tensor(x, "input")
    if t.ndim == 0:
        return t, ops.full((), 0, "int64", name=f"{cx.name}_indices")
    axis = normalize_axis(int(dim), t.ndim, cx.name)
    values, indices = sort_along(cx, t, axis, bool(largest))
    return (ops.strided_slice(values, axis, 0, int(k), name=f"{cx.name}_values"),
            ops.strided_slice(indices, axis, 0, int(k), name=f"{cx.name}_top"))


# ---------------------------------------------------------------------------
# Distances, sizes
# ---------------------------------------------------------------------------


def _p_norm_terms(d: Expr, p: float) -> Expr:
    a = te.abs(d)
    if p == 0:
        return te.if_then_else(a != 0.0, te.const(1.0, d.dtype), te.const(0.0, d.dtype))
    if p == 1:
        return a
    if p == 2:
        return d * d
    return te.power(a, te.const(float(p), d.dtype))


def _p_norm_root(s: Expr, p: float) -> Expr:
    if p in (0, 1):
        return s
    if p == 2:
        return te.sqrt(s)
    return te.power(s, te.const(1.0 / float(p), s.dtype))


@aten("_cdist_forward.default")
def cdist(cx: Converter, x1: Any, x2: Any, p: float, compute_mode: Any = None) -> Tensor:
    a, b = cx.tensor(x1, "x1"), cx.tensor(x2, "x2")
    m = a.shape[-1]
    batch = a.shape[:-2]
    k = te.reduce_axis((0, m), "k")
    inf = float(p) == float("inf")

    def element(*i: Expr) -> Expr:
        outer, r, c = i[:-2], i[-2], i[-1]
        d = a[(*outer, r, k.var)] - b[(*outer, c, k.var)]
        if inf:
            return te.max(te.abs(d), axis=k)
        return te.sum(_p_norm_terms(d, float(p)), axis=k)

    total = te.compute((*batch, a.shape[-2], b.shape[-2]), element, name=f"{cx.name}_sum")
    if inf:
        return total
    return te.compute(total.shape, lambda *i: _p_norm_root(total[i], float(p)), name=cx.name)


@aten("_pdist_forward.default")
def pdist(cx: Converter, x: Any, p: float = 2.0) -> Tensor:
    t = cx.tensor(x, "input")
    n = static(t.shape[0])
    if n is None:
        raise unsupported(cx, "pdist of a symbolic number of rows is not supported")
    rows, cols = np.triu_indices(n, 1)
    ri = cx.param(torch.from_numpy(rows.astype(np.int64)), f"{cx.name}_rows")
    ci = cx.param(torch.from_numpy(cols.astype(np.int64)), f"{cx.name}_cols")
    k = te.reduce_axis((0, t.shape[1]), "k")
    inf = float(p) == float("inf")

    def element(q: Expr) -> Expr:
        d = t[ri[q], k.var] - t[ci[q], k.var]
        return te.max(te.abs(d), axis=k) if inf else te.sum(_p_norm_terms(d, float(p)), axis=k)

    total = te.compute((len(rows),), element, name=f"{cx.name}_sum")
    if inf:
        return total
    return te.compute(total.shape, lambda q: _p_norm_root(total[q], float(p)), name=cx.name)


@aten("sym_numel.default")
def sym_numel(cx: Converter, x: Any) -> Dim:
    return product(tuple(x.shape))


@aten("sym_stride.int")
def sym_stride(cx: Converter, x: Any, dim: int) -> Dim:
    shape = tuple(x.shape)
    return product(shape[normalize_axis(int(dim), len(shape), cx.name) + 1:])


@aten("sym_storage_offset.default")
def sym_storage_offset(cx: Converter, x: Any) -> int:
    return 0


__all__ = ["REFUSED", "sort_along"]


@aten("_embedding_bag.default", "_embedding_bag_forward_only.default")
def embedding_bag(cx: Converter, weight: Any, indices: Any, offsets: Any, scale_grad_by_freq: bool = False,
                  mode: int = 0, sparse: bool = False, per_sample_weights: Any = None,
                  include_last_offset: bool = False, padding_idx: int = -1) -> tuple[Tensor, None, None, None]:
    """Sums (0), means (1) or maxima (2) of the rows each bag of 1-D indices names; a bag
    runs from its offset to the next (the last one to the end, unless include_last_offset)."""
    w, ids, offs = cx.tensor(weight, "weight"), cx.tensor(indices, "indices"), cx.tensor(offsets, "offsets")
    if ids.ndim != 1:
        raise unsupported(cx, "embedding_bag of 2-D indices is not supported (torch flattens them first)")
    n, bags = ids.shape[0], offs.shape[0] - (1 if include_last_offset else 0)
    acc = accumulator_dtype(w.dtype, None)
    psw = None if per_sample_weights is None else cx.tensor(per_sample_weights, "per_sample_weights")

    def members(b: Expr, k: Expr) -> Expr:
        start = offs[b].astype("int64")
        nxt = offs[clamp_index(b + 1, offs.shape[0])].astype("int64")
        end = te.if_then_else(b + 1 < offs.shape[0], nxt, te.const(0, "int64") + n)
        keep = (k >= start) & (k < end)
        if padding_idx is not None and padding_idx >= 0:
            keep = keep & (ids[k].astype("int64") != padding_idx)
        return keep

    def row(k: Expr, d: Expr) -> Expr:
        value = w[clamp_index(ids[k].astype("int64"), w.shape[0]), d].astype(acc)
        return value * psw[k].astype(acc) if psw is not None else value

    def reduce(b: Expr, d: Expr) -> Expr:
        k = te.reduce_axis((0, n), "k")
        if mode == 2:
            return te.max(te.if_then_else(members(b, k.var), row(k.var, d), te.const(float("-inf"), acc)), axis=k)
        return te.sum(te.if_then_else(members(b, k.var), row(k.var, d), te.const(0.0, acc)), axis=k)

    total = te.compute((bags, w.shape[1]), reduce, name=f"{cx.name}_reduce")

    def count(b: Expr) -> Expr:
        k = te.reduce_axis((0, n), "k")
        return te.sum(te.if_then_else(members(b, k.var), te.const(1.0, acc), te.const(0.0, acc)), axis=k)

    sizes = te.compute((bags,), count, name=f"{cx.name}_count")

    def finish(b: Expr, d: Expr) -> Expr:
        v: Expr = total[b, d]
        if mode == 1:
            v = v / te.maximum(sizes[b], 1.0)
        elif mode == 2:
            v = te.if_then_else(sizes[b] > 0.0, v, te.const(0.0, acc))
        return v.astype(w.dtype)

    return te.compute((bags, w.shape[1]), finish, name=cx.name), None, None, None


@aten("unfold.default")
def unfold(cx: Converter, x: Any, dimension: int, size: int, step: int) -> Tensor:
    """`x.unfold(dim, size, step)`: the windows of `size` along `dim`, every `step`, as a
    new last dimension (a view in torch)."""
    t = cx.tensor(x, "input")
    if t.ndim == 0:
        return ops.reshape(t, (1,), name=cx.name)
    axis = normalize_axis(int(dimension), t.ndim, cx.name)
    n = static(t.shape[axis])
    if n is None:
        raise unsupported(cx, "unfold of a symbolic dimension is not supported")
    count = (n - int(size)) // int(step) + 1
    shape = (*tuple(count if d == axis else s for d, s in enumerate(t.shape)), int(size))

    def element(*i: Expr) -> Expr:
        src = [i[d] for d in range(t.ndim)]
        src[axis] = i[axis] * int(step) + i[-1]
        return t[tuple(src)]

    return te.compute(shape, element, name=cx.name)


@aten("new_empty_strided.default")
def new_empty_strided(cx: Converter, x: Any, size: Sequence[Dim], stride: Sequence[Dim], **kwargs: Any) -> Tensor:
    return empty_strided(cx, size, stride)
