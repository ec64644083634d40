"""Reductions over axes (sum, mean, max, min) and softmax / log_softmax.

A reduction is one stage whose body is the whole `te.sum`/`te.max` (the te
rule); a mean divides in a second stage. Sums accumulate in `acc_dtype`
(default float32 for float16 data, as PyTorch on CPU) and round once at the
end, the accumulator attached to the rounding stage (`util.reduce_rounded`);
max and min are exact in any type.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from compiler import te
from compiler.ops.util import (
    accumulator_dtype,
    count_expr,
    normalize_axes,
    normalize_axis,
    product,
    reduce_rounded,
)
from compiler.te import Dim, Expr, IterVar, Tensor


def _reduction(
    x: Tensor, axis: int | Sequence[int] | None, keepdims: bool, kind: str, name: str, dtype: str
) -> tuple[tuple[Dim, ...], Callable[..., Expr] | None]:
    """(shape, body) of a reduction of x's elements cast to `dtype`; body None: no axis."""
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

    return tuple(shape), element if rvs else None


def _reduce(
    x: Tensor, axis: int | Sequence[int] | None, keepdims: bool, kind: str, name: str, dtype: str
) -> Tensor:
    shape, element = _reduction(x, axis, keepdims, kind, name, dtype)
    if element is None:  # nothing to reduce: a copy
        return te.compute(shape, lambda *i: x[i].astype(dtype), name=name)
    return te.compute(shape, element, name=name)


def sum(
    x: Tensor, axis: int | Sequence[int] | None = None, keepdims: bool = False, name: str = "sum",
    acc_dtype: str | None = None,
) -> Tensor:
    """The sum over `axis` (all axes when None), accumulated in `acc_dtype` (default: float32
    for float16) in stage `<name>_acc` and rounded once (`util.reduce_rounded`)."""
    acc = accumulator_dtype(x.dtype, acc_dtype)
    shape, element = _reduction(x, axis, keepdims, "sum", name, acc)
    if element is None:
        return te.compute(shape, lambda *i: x[i], name=name)
    return reduce_rounded(shape, element, x.dtype, name)


def mean(
    x: Tensor, axis: int | Sequence[int] | None = None, keepdims: bool = False, name: str = "mean",
    acc_dtype: str | None = None,
) -> Tensor:
    """The mean over `axis` (all axes when None), accumulated in `acc_dtype` (default: float32
    for float16) in stage `<name>_sum`; `<name>` divides and rounds once."""
    acc = accumulator_dtype(x.dtype, acc_dtype)
    axes = normalize_axes(axis, x.ndim, name)
    shape, element = _reduction(x, axes, keepdims, "sum", f"{name}_sum", acc)
    count = count_expr(product([x.shape[d] for d in axes]), acc)
    if element is None:
        return te.compute(shape, lambda *i: x[i], name=name)
    return reduce_rounded(shape, element, x.dtype, name, finish=lambda v, i: v / count, acc_name=f"{name}_sum")


def max(x: Tensor, axis: int | Sequence[int] | None = None, keepdims: bool = False, name: str = "max") -> Tensor:
    """The largest element over `axis` (all axes when None); `keepdims` keeps them as size 1."""
    return _reduce(x, axis, keepdims, "max", name, x.dtype)


def min(x: Tensor, axis: int | Sequence[int] | None = None, keepdims: bool = False, name: str = "min") -> Tensor:
    """The smallest element over `axis` (all axes when None); `keepdims` keeps them as size 1."""
    return _reduce(x, axis, keepdims, "min", name, x.dtype)


def _keep(i: Sequence[Expr], axis: int) -> tuple[Expr | int, ...]:
    return tuple(0 if d == axis else v for d, v in enumerate(i))


def softmax(x: Tensor, axis: int = -1, name: str = "softmax", acc_dtype: str | None = None) -> Tensor:
    """exp(x - max) / sum(exp(x - max)) along `axis`: stages `<name>_max`, `<name>_sum` (in
    `acc_dtype`, default float32 for float16) and `<name>`, which computes exp again rather
    than keep a full-size buffer of it."""
    axis = normalize_axis(axis, x.ndim, name)
    acc = accumulator_dtype(x.dtype, acc_dtype)
    m = _reduce(x, axis, True, "max", f"{name}_max", x.dtype)

    def shifted(i: Sequence[Expr], src: Sequence[Expr]) -> Expr:
        return te.exp(x[tuple(src)].astype(acc) - m[_keep(i, axis)].astype(acc))

    s = _exp_sum(x, axis, acc, shifted, f"{name}_sum")
    return te.compute(x.shape, lambda *i: (shifted(i, i) / s[_keep(i, axis)]).astype(x.dtype), name=name)


def log_softmax(x: Tensor, axis: int = -1, name: str = "log_softmax", acc_dtype: str | None = None) -> Tensor:
    """x - max - log(sum(exp(x - max))) along `axis` (the sum in `acc_dtype`, default float32 for float16)."""
    axis = normalize_axis(axis, x.ndim, name)
    acc = accumulator_dtype(x.dtype, acc_dtype)
    m = _reduce(x, axis, True, "max", f"{name}_max", x.dtype)

    def shifted(i: Sequence[Expr], src: Sequence[Expr]) -> Expr:
        return x[tuple(src)].astype(acc) - m[_keep(i, axis)].astype(acc)

    s = _exp_sum(x, axis, acc, lambda i, src: te.exp(shifted(i, src)), f"{name}_sum")
    return te.compute(
        x.shape, lambda *i: (shifted(i, i) - te.log(s[_keep(i, axis)])).astype(x.dtype), name=name
    )


def _exp_sum(x: Tensor, axis: int, acc: str, term: Callable[[Sequence[Expr], Sequence[Expr]], Expr], name: str) -> Tensor:
    """sum over `axis` of term(i, x's index), kept as a size-1 dimension, in `acc`."""
    rv = te.reduce_axis((0, x.shape[axis]), "r")
    keep_shape = tuple(1 if d == axis else n for d, n in enumerate(x.shape))

    def total(*i: Expr) -> Expr:
        return te.sum(term(i, tuple(rv if d == axis else v for d, v in enumerate(i))), axis=rv)

    return te.compute(keep_shape, total, name=name)
