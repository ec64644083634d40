"""Normalisations: inference batch norm and layer norm.

`layer_norm` is three stages: the sum of x, the sum of squared deviations
(two passes, numerically safe), and the normalised output; the statistics
accumulate in `acc_dtype` (default float32 for float16 data).
"""

from __future__ import annotations

from collections.abc import Sequence

from compiler import te
from compiler.errors import ExprValueError
from compiler.ops.util import accumulator_dtype, count_expr, normalize_axes, product
from compiler.te import Expr, Tensor


def batch_norm(
    x: Tensor,
    mean: Tensor,
    var: Tensor,
    gamma: Tensor | None = None,
    beta: Tensor | None = None,
    eps: float = 1e-5,
    axis: int = 1,
    name: str = "batch_norm",
) -> Tensor:
    """(x - mean) / sqrt(var + eps) * gamma + beta with the running statistics
    (inference), all 1-D along `axis`."""
    axis = axis % x.ndim

    def element(*i: Expr) -> Expr:
        c = i[axis]
        v = (x[i] - mean[c].astype(x.dtype)) / te.sqrt(var[c].astype(x.dtype) + eps)
        if gamma is not None:
            v = v * gamma[c].astype(x.dtype)
        if beta is not None:
            v = v + beta[c].astype(x.dtype)
        return v

    return te.compute(x.shape, element, name=name)


def layer_norm(
    x: Tensor,
    gamma: Tensor | None = None,
    beta: Tensor | None = None,
    axis: int | Sequence[int] = -1,
    eps: float = 1e-5,
    name: str = "layer_norm",
    acc_dtype: str | None = None,
) -> Tensor:
    """Normalise over the trailing `axis` dimensions (PyTorch's normalized_shape);
    gamma and beta have the shape of those dimensions."""
    axes = normalize_axes(axis, x.ndim, name)
    if list(axes) != list(range(x.ndim - len(axes), x.ndim)):
        raise ExprValueError(f"{name}: the normalised axes must be the trailing ones, got {axis!r}")
    acc = accumulator_dtype(x.dtype, acc_dtype)
    lead = x.ndim - len(axes)
    count = count_expr(product([x.shape[d] for d in axes]), acc)
    keep = tuple(x.shape[:lead])
    rvs = [te.reduce_axis((0, x.shape[d]), f"r{d}") for d in axes]

    s1 = te.compute(
        keep, lambda *i: te.sum(x[(*i, *rvs)].astype(acc), axis=tuple(rvs)), name=f"{name}_sum"
    )
    rvs2 = [te.reduce_axis((0, x.shape[d]), f"r{d}") for d in axes]

    def squares(*i: Expr) -> Expr:
        dev = x[(*i, *rvs2)].astype(acc) - s1[i] / count
        return te.sum(dev * dev, axis=tuple(rvs2))

    s2 = te.compute(keep, squares, name=f"{name}_sqsum")

    def element(*i: Expr) -> Expr:
        head, tail = i[:lead], i[lead:]
        v = (x[i].astype(acc) - s1[head] / count) / te.sqrt(s2[head] / count + eps)
        if gamma is not None:
            v = v * gamma[tail].astype(acc)
        if beta is not None:
            v = v + beta[tail].astype(acc)
        return v.astype(x.dtype)

    return te.compute(x.shape, element, name=name)
