"""Reductions over axes (sum, mean, max, min) and softmax / log_softmax.

A reduction is one stage whose body is the whole `te.sum`/`te.max` (the te
rule); a mean divides in a second stage. `acc_dtype` accumulates in a wider
type (float32 for float16 data) and rounds once at the end.
"""

from __future__ import annotations

from collections.abc import Sequence

from compiler import te
from compiler.ops.util import count_expr, normalize_axes, normalize_axis, product
from compiler.te import Dim, Expr, IterVar, Tensor


def _reduce(
    x: Tensor, axis: int | Sequence[int] | None, keepdims: bool, kind: str, name: str,
    dtype: str,
) -> Tensor:
    axes = normalize_axes(axis, x.ndim, name)
    shape: list[Dim] = []
    for d, n in enumerate(x.shape):
        if d not in axes:
            shape.append(n)
        elif keepdims:
            shape.append(1)
    rvs: dict[int, IterVar] = {d: te.reduce_axis((0, x.shape[d]), f"r{d}") for d in axes}
    reducer = {"sum": te.sum, "max": te.max, "min": te.min}[kind]

    def element(*idx: Expr) -> Expr:
        src: list[Expr] = []
        k = 0
        for d in range(x.ndim):
            if d in rvs:
                src.append(rvs[d])
                k += 1 if keepdims else 0
            else:
                src.append(idx[k])
                k += 1
        return reducer(x[tuple(src)].astype(dtype), axis=tuple(rvs.values()))

    if not rvs:  # nothing to reduce: a copy
        return te.compute(tuple(shape), lambda *i: x[i].astype(dtype), name=name)
    return te.compute(tuple(shape), element, name=name)


def sum(
    x: Tensor, axis: int | Sequence[int] | None = None, keepdims: bool = False, name: str = "sum",
    acc_dtype: str | None = None,
) -> Tensor:
    """The sum over `axis` (all axes when None), accumulated in `acc_dtype` (default: float32 for float16)."""
    acc = acc_dtype or x.dtype
    total = _reduce(x, axis, keepdims, "sum", name if acc == x.dtype else f"{name}_acc", acc)
    if acc == x.dtype:
        return total
    return te.compute(total.shape, lambda *i: total[i].astype(x.dtype), name=name)


def mean(
    x: Tensor, axis: int | Sequence[int] | None = None, keepdims: bool = False, name: str = "mean",
    acc_dtype: str | None = None,
) -> Tensor:
    """The mean over `axis` (all axes when None), accumulated in `acc_dtype` (default: float32 for float16)."""
    acc = acc_dtype or x.dtype
    axes = normalize_axes(axis, x.ndim, name)
    total = _reduce(x, axes, keepdims, "sum", f"{name}_sum", acc)
    count = count_expr(product([x.shape[d] for d in axes]), acc)
    return te.compute(total.shape, lambda *i: (total[i] / count).astype(x.dtype), name=name)


def max(x: Tensor, axis: int | Sequence[int] | None = None, keepdims: bool = False, name: str = "max") -> Tensor:
    """The largest element over `axis` (all axes when None); `keepdims` keeps them as size 1."""
    return _reduce(x, axis, keepdims, "max", name, x.dtype)


def min(x: Tensor, axis: int | Sequence[int] | None = None, keepdims: bool = False, name: str = "min") -> Tensor:
    """The smallest element over `axis` (all axes when None); `keepdims` keeps them as size 1."""
    return _reduce(x, axis, keepdims, "min", name, x.dtype)


def _keep(i: Sequence[Expr], axis: int) -> tuple[Expr | int, ...]:
    return tuple(0 if d == axis else v for d, v in enumerate(i))


def softmax(x: Tensor, axis: int = -1, name: str = "softmax", acc_dtype: str | None = None) -> Tensor:
    """exp(x - max) / sum(exp(x - max)) along `axis`: stages `<name>_max`, `<name>_exp`,
    `<name>_sum` and `<name>`."""
    axis = normalize_axis(axis, x.ndim, name)
    acc = acc_dtype or x.dtype
    m = _reduce(x, axis, True, "max", f"{name}_max", x.dtype)
    e = te.compute(
        x.shape, lambda *i: te.exp((x[i] - m[_keep(i, axis)]).astype(acc)), name=f"{name}_exp"
    )
    s = _reduce(e, axis, True, "sum", f"{name}_sum", acc)
    return te.compute(x.shape, lambda *i: (e[i] / s[_keep(i, axis)]).astype(x.dtype), name=name)


def log_softmax(x: Tensor, axis: int = -1, name: str = "log_softmax", acc_dtype: str | None = None) -> Tensor:
    """x - max - log(sum(exp(x - max))) along `axis`."""
    axis = normalize_axis(axis, x.ndim, name)
    acc = acc_dtype or x.dtype
    m = _reduce(x, axis, True, "max", f"{name}_max", x.dtype)
    rv = te.reduce_axis((0, x.shape[axis]), "r")
    keep_shape = tuple(1 if d == axis else n for d, n in enumerate(x.shape))

    def total(*i: Expr) -> Expr:
        src = tuple(rv if d == axis else v for d, v in enumerate(i))
        return te.sum(te.exp((x[src] - m[i]).astype(acc)), axis=rv)

    s2 = te.compute(keep_shape, total, name=f"{name}_sum")
    return te.compute(
        x.shape,
        lambda *i: ((x[i] - m[_keep(i, axis)]).astype(acc) - te.log(s2[_keep(i, axis)])).astype(x.dtype),
        name=name,
    )
