"""Shape operators: pad, reshape, transpose, concatenate, slices, broadcasts.

They move elements without arithmetic (TVM's injective operators): each is
one stage whose element reads one element of its input, so bound inference
sees exact index maps and the PyTorch frontend inlines them into their
consumers (a permute, a view or a slice then costs no buffer).
"""

from __future__ import annotations

from collections.abc import Sequence

from compiler import te
from compiler.errors import ExprValueError
from compiler.ops.util import (
    index_max,
    index_min,
    normalize_axis,
    product,
    same_dim,
    simplify_dim,
    static,
)
from compiler.te import Dim, Expr, Tensor

PAD_MODES = ("constant", "reflect", "replicate", "circular")


def pad(
    x: Tensor,
    before: Sequence[int],
    after: Sequence[int] | None = None,
    value: float = 0.0,
    name: str = "pad_temp",
    mode: str = "constant",
) -> Tensor:
    """Pad every dimension by before[d] / after[d] elements of `value` (`mode="constant"`),
    or of x's own elements: mirrored without repeating the edge (`"reflect"`), the edge
    repeated (`"replicate"`, NumPy's "edge") or wrapped around (`"circular"`, "wrap").

    The constant element is a lazy `if_then_else(inside, x[...], value)`, exactly as TOPI
    writes it: that guard is what bound inference sees through to avoid over-allocation
    (seed 000). The other modes read x at a clamped or mirrored index (min/max arithmetic),
    every element of the padded tensor from one element of x.
    """
    after = before if after is None else after
    if len(before) != x.ndim or len(after) != x.ndim:
        raise ExprValueError(f"pad: {x.name} has {x.ndim} dimensions, pads given for {len(before)}")
    if mode not in PAD_MODES:
        raise ExprValueError(f"pad: mode must be one of {', '.join(PAD_MODES)}, got {mode!r}")
    if all(b == 0 for b in before) and all(a == 0 for a in after):
        return x
    shape = tuple(d + b + a for d, b, a in zip(x.shape, before, after, strict=True))
    if mode != "constant":
        return _pad_from_edges(x, before, after, shape, mode, name)

    def element(*idx: Expr) -> Expr:
        conds: list[Expr] = []
        for i, d, b, a in zip(idx, x.shape, before, after, strict=True):
            if b > 0:
                conds.append(i >= b)
            if a > 0:
                conds.append(i < d + b)
        src = x[tuple(i - b for i, b in zip(idx, before, strict=True))]
        return te.if_then_else(te.likely(te.all(*conds)), src, te.const(value, x.dtype))

    return te.compute(shape, element, name=name)


def _pad_from_edges(
    x: Tensor, before: Sequence[int], after: Sequence[int], shape: Sequence[Dim], mode: str, name: str
) -> Tensor:
    for d, b, a in zip(x.shape, before, after, strict=True):
        n = static(d)
        if n is None or mode == "replicate" or max(b, a) == 0:
            continue
        if max(b, a) > (n - 1 if mode == "reflect" else n):  # a reflection does not repeat the edge
            least = max(b, a) + 1 if mode == "reflect" else max(b, a)
            raise ExprValueError(f"pad: {mode} padding of {max(b, a)} needs a dimension of at least {least}, got {n}")

    def source(i: Expr, d: Dim, b: int, a: int) -> Expr | int:
        if b == 0 and a == 0:
            return i
        src = i - b
        last = d - 1
        if mode == "replicate":
            return index_min(index_max(src, 0), last)
        if mode == "circular":
            return (src + d) % d
        folded = te.maximum(src, -src)  # reflect: |src|, then mirrored at the far edge
        return last - te.maximum(last - folded, folded - last)

    def element(*idx: Expr) -> Expr:
        return x[tuple(source(i, d, b, a) for i, d, b, a in zip(idx, x.shape, before, after, strict=True))]

    return te.compute(tuple(shape), element, name=name)


def repeat(x: Tensor, repeats: Sequence[int], name: str = "repeat") -> Tensor:
    """x tiled `repeats[d]` times along each dimension (PyTorch's `repeat`, NumPy's `tile`);
    extra leading repeats add dimensions."""
    if len(repeats) < x.ndim:
        raise ExprValueError(f"{name}: {len(repeats)} repeats for {x.ndim} dimensions")
    offset = len(repeats) - x.ndim
    dims: list[Dim] = [*([1] * offset), *x.shape]
    shape = tuple(simplify_dim(d * r) for d, r in zip(dims, repeats, strict=True))

    def element(*i: Expr) -> Expr:
        return x[tuple(i[k + offset] if repeats[k + offset] == 1 else i[k + offset] % d for k, d in enumerate(x.shape))]

    return te.compute(shape, element, name=name)


def transpose(x: Tensor, axes: Sequence[int] | None = None, name: str = "transpose") -> Tensor:
    """Permute the dimensions: out.shape[d] = x.shape[axes[d]] (reversed when `axes` is None)."""
    perm = tuple(reversed(range(x.ndim))) if axes is None else tuple(normalize_axis(a, x.ndim, name) for a in axes)
    if sorted(perm) != list(range(x.ndim)):
        raise ExprValueError(f"{name}: {tuple(axes or ())} is not a permutation of {x.ndim} dimensions")

    def element(*idx: Expr) -> Expr:
        src: list[Expr] = [idx[0]] * x.ndim
        for d, p in enumerate(perm):
            src[p] = idx[d]
        return x[tuple(src)]

    return te.compute(tuple(x.shape[p] for p in perm), element, name=name)


def _resolve_shape(x: Tensor, newshape: Sequence[Dim], name: str) -> tuple[Dim, ...]:
    dims = list(newshape)
    holes = [k for k, d in enumerate(dims) if isinstance(d, int) and d == -1]
    if len(holes) > 1:
        raise ExprValueError(f"{name}: more than one -1 in {tuple(newshape)}")
    if holes:
        known = product([d for k, d in enumerate(dims) if k != holes[0]])
        dims[holes[0]] = simplify_dim(product(x.shape) // known)
    total_in, total_out = product(x.shape), product(dims)
    if static(total_in) is not None and static(total_out) is not None and static(total_in) != static(total_out):
        raise ExprValueError(f"{name}: cannot reshape {x.shape} ({total_in} elements) to {tuple(dims)}")
    return tuple(simplify_dim(d) for d in dims)


def _groups(src: Sequence[Dim], dst: Sequence[Dim]) -> list[tuple[list[int], list[int]]] | None:
    """Split two shapes of the same size into consecutive groups of equal products
    (size-1 dimensions left out), or None when no split is found."""
    si = [k for k, d in enumerate(src) if static(d) != 1]
    di = [k for k, d in enumerate(dst) if static(d) != 1]
    groups: list[tuple[list[int], list[int]]] = []
    a = b = 0
    while a < len(si) and b < len(di):
        found = None
        for ea in range(a + 1, len(si) + 1):
            for eb in range(b + 1, len(di) + 1):
                if same_dim(product([src[k] for k in si[a:ea]]), product([dst[k] for k in di[b:eb]])):
                    found = (ea, eb)
                    break
            if found:
                break
        if found is None:
            return None
        groups.append((si[a : found[0]], di[b : found[1]]))
        a, b = found
    if a != len(si) or b != len(di):
        return None
    return groups


def reshape(x: Tensor, newshape: Sequence[Dim], name: str = "reshape") -> Tensor:
    """Row-major reshape (NumPy's, one -1 allowed). Dimensions are matched in groups of
    equal size, so merging (flatten), splitting and inserting 1s read with simple indices."""
    shape = _resolve_shape(x, newshape, name)
    groups = _groups(x.shape, shape)
    if groups is None:  # one group over everything: a flat index
        groups = [
            ([k for k, d in enumerate(x.shape) if static(d) != 1], [k for k, d in enumerate(shape) if static(d) != 1])
        ]

    def element(*idx: Expr) -> Expr:
        src: list[Expr | int] = [0] * x.ndim
        for ins, outs in groups:
            if len(ins) == 1 and len(outs) == 1:
                src[ins[0]] = idx[outs[0]]
                continue
            flat: Expr | int = 0
            for o in outs:
                flat = idx[o] if isinstance(flat, int) else flat * shape[o] + idx[o]
            for pos, k in enumerate(reversed(ins)):
                if pos == len(ins) - 1:
                    src[k] = flat
                else:
                    src[k] = flat % x.shape[k]
                    flat = flat // x.shape[k]
        return x[tuple(src)]

    return te.compute(shape, element, name=name)


def flatten(x: Tensor, start: int = 1, end: int = -1, name: str = "flatten") -> Tensor:
    """Merge dimensions start..end (inclusive) into one."""
    s, e = normalize_axis(start, x.ndim, name), normalize_axis(end, x.ndim, name)
    return reshape(x, (*x.shape[:s], product(x.shape[s : e + 1]), *x.shape[e + 1 :]), name=name)


def expand_dims(x: Tensor, axis: int, name: str = "expand_dims") -> Tensor:
    """`x` with a new dimension of size 1 at `axis` (a view: no copy once inlined)."""
    axis = normalize_axis(axis, x.ndim + 1, name)
    return reshape(x, (*x.shape[:axis], 1, *x.shape[axis:]), name=name)


def squeeze(x: Tensor, axis: int | Sequence[int] | None = None, name: str = "squeeze") -> Tensor:
    """Drop size-1 dimensions (all of them, or those among `axis` that have size 1)."""
    if axis is None:
        axes = {k for k, d in enumerate(x.shape) if static(d) == 1}
    else:
        items = (axis,) if isinstance(axis, int) else tuple(axis)
        axes = {normalize_axis(a, x.ndim, name) for a in items if static(x.shape[a]) == 1}
    return reshape(x, tuple(d for k, d in enumerate(x.shape) if k not in axes), name=name)


def broadcast_to(x: Tensor, shape: Sequence[Dim], name: str = "broadcast_to") -> Tensor:
    """Repeat size-1 dimensions (and add leading ones) up to `shape`."""
    shape = tuple(shape)
    offset = len(shape) - x.ndim
    if offset < 0:
        raise ExprValueError(f"{name}: cannot broadcast {x.shape} to the lower rank {shape}")
    for k, d in enumerate(x.shape):
        if static(d) != 1 and not same_dim(d, shape[k + offset]):
            raise ExprValueError(f"{name}: cannot broadcast {x.shape} to {shape}")
    return te.compute(
        shape, lambda *i: x[tuple(0 if static(d) == 1 else i[k + offset] for k, d in enumerate(x.shape))], name=name
    )


def concatenate(xs: Sequence[Tensor], axis: int = 0, name: str = "concatenate") -> Tensor:
    """Join tensors along `axis` (lazy selects: each element reads one input)."""
    if not xs:
        raise ExprValueError(f"{name}: nothing to concatenate")
    ndim = xs[0].ndim
    axis = normalize_axis(axis, ndim, name)
    for x in xs[1:]:
        if x.ndim != ndim:
            raise ExprValueError(f"{name}: {x.name} has {x.ndim} dimensions, {xs[0].name} has {ndim}")
    if len(xs) == 1:
        return te.compute(xs[0].shape, lambda *i: xs[0][i], name=name)
    starts: list[Dim] = [0]
    for x in xs:
        starts.append(simplify_dim(starts[-1] + x.shape[axis]))
    shape = tuple(starts[-1] if d == axis else xs[0].shape[d] for d in range(ndim))
    dtype = xs[0].dtype

    def element(*idx: Expr) -> Expr:
        def read(k: int) -> Expr:
            src = tuple(i - starts[k] if d == axis and not (isinstance(starts[k], int) and starts[k] == 0) else i
                        for d, i in enumerate(idx))
            return xs[k][src].astype(dtype)

        value = read(len(xs) - 1)
        for k in range(len(xs) - 2, -1, -1):
            value = te.if_then_else(idx[axis] < starts[k + 1], read(k), value)
        return value

    return te.compute(shape, element, name=name)


def strided_slice(
    x: Tensor, axis: int, begin: int | Dim = 0, end: int | Dim | None = None, step: int = 1,
    name: str = "strided_slice", length: Dim | None = None,
) -> Tensor:
    """x[..., begin:end:step, ...] along one axis, with Python's rules for negative and
    out-of-range bounds (`end=None` is the end of the axis). `length` is the result's
    length when the caller knows it better than the clamped bounds say (a symbolic end
    known to be in range: `x[:, :seq]` of a longer buffer has `seq` elements)."""
    axis = normalize_axis(axis, x.ndim, name)
    if step < 1:
        raise ExprValueError(f"{name}: the step must be positive, got {step}")
    size = x.shape[axis]
    n = static(size)

    def clamp(v: int | Dim | None, default: Dim) -> Dim:
        if v is None:
            return default
        if isinstance(v, int):
            if n is not None:
                return max(0, min(v + n if v < 0 else v, n))
            return index_max(size + v, 0) if v < 0 else index_min(v, size)
        return index_min(v, size)

    b, e = clamp(begin, 0), clamp(end, size)
    if length is not None:
        pass
    elif isinstance(b, int) and isinstance(e, int):
        length = max(0, (e - b + step - 1) // step)
    else:
        length = simplify_dim(index_max((e - b + (step - 1)) // step, 0))
    shape = tuple(length if d == axis else x.shape[d] for d in range(x.ndim))
    return te.compute(
        shape,
        lambda *i: x[tuple(b + i[d] * step if d == axis else i[d] for d in range(x.ndim))],
        name=name,
    )


def take(x: Tensor, index: int, axis: int, name: str = "take") -> Tensor:
    """x[..., index, ...]: one position along `axis`, which is dropped (PyTorch's select)."""
    axis = normalize_axis(axis, x.ndim, name)
    n = static(x.shape[axis])
    pos: Dim = index if index >= 0 else (x.shape[axis] + index if n is None else n + index)
    shape = tuple(d for k, d in enumerate(x.shape) if k != axis)
    return te.compute(shape, lambda *i: x[(*i[:axis], pos, *i[axis:])], name=name)
