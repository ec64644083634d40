"""ATen converters of the Core ATen opset's math: elementwise functions, rounding,
remainders, tests (isnan, isinf), and reductions (any, prod, var, argmax, max.dim...).

With torch's decompositions (decompose.py), these are what composite ops reach:
`std` is `var` then `sqrt`, `softplus` is `log1p(exp(x))`, `floor_divide` is a
division with a rounding mode. Registering happens on import (`compiler.torch`
imports this module). A result's dtype is torch's (`node.meta["val"]`): an integer
tensor given to a float function (`sin` of int64) is converted to float first.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch

from compiler import ops, te
from compiler.ops.util import in_float32, normalize_axis, product, static
from compiler.te import Expr, Tensor
from compiler.te.nodes import is_float
from compiler.te.reducers import CommReducer
from compiler.torch.aten import (
    OPS,
    Value,
    _dims,
    _reduce_in_layout,
    as_dtype,
    aten,
    pointwise,
    result_dtype,
    unsupported,
)
from compiler.torch.graph import Converter, Permuted

_INF = float("inf")


def _in_result_dtype(cx: Converter, x: Any) -> Any:
    """x converted to the node's result dtype (torch promotes an integer input of a
    float function to the default float type)."""
    target = result_dtype(cx)
    if target is None or getattr(x, "dtype", target) == target:
        return x
    t = cx.tensor(x, "input")
    return ops.cast(t, target, name=f"{cx.name}_{target}")


def _float_unary(fn: Callable[[Expr], Expr]) -> Callable[..., Value]:
    """A float function elementwise (float16 computed in float32), in x's layout."""

    def convert(cx: Converter, x: Any) -> Value:
        x = _in_result_dtype(cx, x)
        return pointwise(cx, x, lambda t: ops.elementwise(t, lambda v: in_float32(fn, v), cx.name))

    return convert


def _expm1(u: Expr) -> Expr:
    """exp(u) - 1 without cancellation near 0 (Kahan: (e - 1) * u / log(e))."""
    e = te.exp(u)
    ratio = (e - 1.0) * u / te.log(e)
    return te.if_then_else(e == 1.0, u, te.if_then_else(te.abs(u) < 0.5, ratio, e - 1.0))


def _log1p(u: Expr) -> Expr:
    """log(1 + u) without cancellation near 0 (Goldberg: log(w) * u / (w - 1), w = 1 + u)."""
    w = 1.0 + u
    return te.if_then_else(w == 1.0, u, te.log(w) * (u / (w - 1.0)))


def _asinh(u: Expr) -> Expr:
    a = te.abs(u)
    big = te.log(a) + math.log(2.0)  # where a * a would overflow
    small = _log1p(a + a * a / (1.0 + te.sqrt(1.0 + a * a)))
    v = te.if_then_else(a > 1e18, big, small)
    return te.if_then_else(u < 0.0, -v, v)


def _acosh(u: Expr) -> Expr:
    big = te.log(u) + math.log(2.0)
    return te.if_then_else(u > 1e18, big, te.log(u + te.sqrt((u - 1.0) * (u + 1.0))))


def _atanh(u: Expr) -> Expr:
    return 0.5 * _log1p(2.0 * u / (1.0 - u))


def _sinh(u: Expr) -> Expr:
    """sinh with expm1's accuracy near 0 (libm's sinh through LLVM above)."""
    return te.if_then_else(te.abs(u) < 0.5, 0.5 * (_expm1(u) - _expm1(-u)), te.sinh(u))


_FLOAT_FUNCTIONS: dict[str, Callable[[Expr], Expr]] = {
    "sin": te.sin,
    "cos": te.cos,
    "tan": te.tan,
    "asin": te.asin,
    "acos": te.acos,
    "atan": te.atan,
    "sinh": _sinh,
    "cosh": te.cosh,
    "asinh": _asinh,
    "acosh": _acosh,
    "atanh": _atanh,
    "expm1": _expm1,
    "log1p": _log1p,
    "log2": te.log2,
    "log10": te.log10,
    "exp2": lambda u: te.power(2.0, u),
}
for _name, _fn in _FLOAT_FUNCTIONS.items():
    OPS[f"aten.{_name}.default"] = _float_unary(_fn)


def _rounding(fn: Callable[[Expr], Expr]) -> Callable[..., Value]:
    """floor, ceil, round, trunc: the identity on integers."""

    def convert(cx: Converter, x: Any) -> Value:
        if not is_float(x.dtype):
            return cx.tensor(x, "input") if not isinstance(x, Permuted) else x
        return pointwise(cx, x, lambda t: ops.elementwise(t, lambda v: in_float32(fn, v), cx.name))

    return convert


for _name, _fn in (("floor", te.floor), ("ceil", te.ceil), ("round", te.round_even), ("trunc", te.trunc)):
    OPS[f"aten.{_name}.default"] = _rounding(_fn)


@aten("sign.default")
def sign(cx: Converter, x: Any) -> Value:
    def f(v: Expr) -> Expr:
        one, zero = te.const(1, v.dtype), te.const(0, v.dtype)
        s = te.if_then_else(v > zero, one, te.if_then_else(v < zero, -one, zero))
        return te.if_then_else(v != v, v, s) if is_float(v.dtype) else s  # NaN stays NaN

    return pointwise(cx, x, lambda t: ops.elementwise(t, f, cx.name))


@aten("isnan.default")
def isnan(cx: Converter, x: Any) -> Value:
    return pointwise(cx, x, lambda t: ops.elementwise(t, lambda v: (v != v).astype(ops.MASK), cx.name, ops.MASK))


@aten("isinf.default")
def isinf(cx: Converter, x: Any) -> Value:
    def f(v: Expr) -> Expr:
        return (te.abs(v) == _INF).astype(ops.MASK) if is_float(v.dtype) else te.const(0, ops.MASK)

    return pointwise(cx, x, lambda t: ops.elementwise(t, f, cx.name, ops.MASK))


@aten("elu.default")
def elu(cx: Converter, x: Any, alpha: float = 1.0, scale: float = 1.0, input_scale: float = 1.0) -> Value:
    def f(u: Expr) -> Expr:
        return te.if_then_else(u > 0.0, u * float(scale), _expm1(u * float(input_scale)) * float(alpha * scale))

    return pointwise(cx, x, lambda t: ops.elementwise(t, lambda v: in_float32(f, v), cx.name))


# ---------------------------------------------------------------------------
# Binary: atan2, remainders, rounding divisions, clamp by tensors
# ---------------------------------------------------------------------------


def _broadcast_in(cx: Converter, a: Any, b: Any, fn: Callable[[Expr, Expr], Expr], dtype: str | None = None) -> Tensor:
    """fn of a and b broadcast together, both converted to the node's result dtype."""
    target = dtype or result_dtype(cx) or "float32"
    lhs = as_dtype(cx, cx.operand(a, "self"), target, "self")
    rhs = as_dtype(cx, cx.operand(b, "other"), target, "other")
    if not isinstance(lhs, Tensor) and not isinstance(rhs, Tensor):
        lhs = ops.full((), lhs, target, name=f"{cx.name}_self")
    return ops.broadcast_binary(lhs, rhs, lambda u, v: fn(u.astype(target), v.astype(target)), cx.name)


def _fmod(u: Expr, v: Expr) -> Expr:
    if is_float(u.dtype):
        return in_float32(te.fmod, u, v)
    r = u % v  # floor modulo: move it to the dividend's sign
    return te.if_then_else((r != 0) & ((r < 0) != (u < 0)), r - v, r)


def _remainder(u: Expr, v: Expr) -> Expr:
    if not is_float(u.dtype):
        return u % v
    r = _fmod(u, v)
    return te.if_then_else((r != 0.0) & ((r < 0.0) != (v < 0.0)), r + v, r)


@aten("atan2.default")
def atan2(cx: Converter, a: Any, b: Any) -> Tensor:
    return _broadcast_in(cx, a, b, lambda u, v: in_float32(te.atan2, u, v))


@aten("fmod.Tensor", "fmod.Scalar")
def fmod(cx: Converter, a: Any, b: Any) -> Tensor:
    return _broadcast_in(cx, a, b, _fmod)


@aten("remainder.Tensor", "remainder.Scalar")
def remainder(cx: Converter, a: Any, b: Any) -> Tensor:
    return _broadcast_in(cx, a, b, _remainder)


def _divide_rounded(u: Expr, v: Expr, mode: str | None) -> Expr:
    if not is_float(u.dtype):
        if mode == "floor":
            return u // v
        q = u // v  # trunc: round the floor quotient toward zero
        return te.if_then_else((u % v != 0) & ((u < 0) != (v < 0)), q + 1, q)
    quotient = u / v
    if mode == "floor":
        return te.floor(quotient)
    if mode == "trunc":
        return te.trunc(quotient)
    return quotient


@aten("div.Tensor_mode", "div.Scalar_mode")
def div_mode(cx: Converter, a: Any, b: Any, *, rounding_mode: str | None = None) -> Value:
    if rounding_mode is None:
        quotient: Value = OPS["aten.div.Tensor"](cx, a, b)
        return quotient
    return _broadcast_in(cx, a, b, lambda u, v: in_float32(lambda p, q: _divide_rounded(p, q, rounding_mode), u, v)
                         if is_float(u.dtype) else _divide_rounded(u, v, rounding_mode))


OPS["aten.maximum.default"] = OPS["aten.maximum.Tensor"]
OPS["aten.minimum.default"] = OPS["aten.minimum.Tensor"]
OPS["aten.div.Scalar_mode"] = div_mode


@aten("clamp.Tensor")
def clamp_tensor(cx: Converter, x: Any, min: Any = None, max: Any = None) -> Value:
    out = x
    if min is not None:
        out = _broadcast_in(cx, out, min, te.maximum)
    if max is not None:
        out = _broadcast_in(cx, out, max, te.minimum)
    return out if out is not x else cx.tensor(x, "input")


def _logical(fn: Callable[[Expr, Expr], Expr]) -> Callable[..., Tensor]:
    def convert(cx: Converter, a: Any, b: Any) -> Tensor:
        def f(u: Expr, v: Expr) -> Expr:
            return fn(u.astype("bool"), v.astype("bool")).astype(ops.MASK)

        lhs, rhs = cx.operand(a, "self"), cx.operand(b, "other")
        if not isinstance(lhs, Tensor) and not isinstance(rhs, Tensor):
            lhs = ops.full((), lhs, ops.MASK, name=f"{cx.name}_self")
        return ops.broadcast_binary(lhs, rhs, f, cx.name)

    return convert


OPS["aten.logical_and.default"] = _logical(lambda u, v: u & v)
OPS["aten.logical_or.default"] = _logical(lambda u, v: u | v)
OPS["aten.logical_xor.default"] = _logical(lambda u, v: u != v)


def _bitwise(int_fn: Callable[[Expr, Expr], Expr], bool_fn: Callable[[Expr, Expr], Expr]) -> Callable[..., Tensor]:
    """A bitwise op: of masks as booleans, of integers bit by bit."""
    logical = _logical(bool_fn)

    def convert(cx: Converter, a: Any, b: Any) -> Tensor:
        if result_dtype(cx) == ops.MASK:
            return logical(cx, a, b)
        return _broadcast_in(cx, a, b, int_fn)

    return convert


for _name, _int_fn, _bool_fn in (
    ("bitwise_and", te.bitwise_and, lambda u, v: u & v),
    ("bitwise_or", te.bitwise_or, lambda u, v: u | v),
    ("bitwise_xor", te.bitwise_xor, lambda u, v: u != v),
):
    OPS[f"aten.{_name}.Scalar"] = OPS[f"aten.{_name}.Tensor"] = _bitwise(_int_fn, _bool_fn)
OPS["aten.__and__.Tensor"], OPS["aten.__or__.Tensor"] = OPS["aten.bitwise_and.Tensor"], OPS["aten.bitwise_or.Tensor"]


@aten("bitwise_not.default")
def bitwise_not(cx: Converter, x: Any) -> Value:
    t = cx.tensor(x, "self")
    if t.dtype == ops.MASK and result_dtype(cx) == ops.MASK:
        return ops.logical_not(t, name=cx.name)
    return ops.elementwise(t, lambda v: te.bitwise_xor(v, te.const(-1, v.dtype)), cx.name)


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------


@aten("any.default", "any.dim", "any.dims")
def any_(cx: Converter, x: Any, dim: Any = None, keepdim: bool = False) -> Value:
    def reduce(t: Tensor, dims: tuple[int, ...] | None, keep: bool) -> Tensor:
        nonzero = ops.not_equal(t, 0, name=f"{cx.name}_nonzero")
        return ops.max(nonzero, dims, keep, name=cx.name)

    return _reduce_in_layout(cx, x, dim, keepdim, reduce)


@aten("prod.default", "prod.dim_int")
def prod(cx: Converter, x: Any, dim: Any = None, keepdim: bool = False, dtype: torch.dtype | None = None) -> Tensor:
    t = as_dtype(cx, cx.tensor(x, "input"), result_dtype(cx), "input")
    assert isinstance(t, Tensor)
    dims = _dims(cx, dim, t.ndim)
    axes = dims if dims is not None else tuple(range(t.ndim))
    if not axes:
        return te.compute(t.shape, lambda *i: t[i], name=cx.name)
    rvs = {d: te.reduce_axis((0, t.shape[d]), f"r{d}") for d in axes}
    shape = tuple(1 if d in rvs else n for d, n in enumerate(t.shape) if keepdim or d not in rvs)

    def element(*idx: Expr) -> Expr:
        it = iter(idx)
        src: list[Expr] = []
        for d in range(t.ndim):
            if d in rvs:
                src.append(rvs[d])
                if keepdim:
                    next(it)
            else:
                src.append(next(it))
        return te.prod(t[tuple(src)], axis=tuple(rvs.values()))

    return te.compute(shape, element, name=cx.name)


def _variance(cx: Converter, x: Any, dim: Any, correction: float, keepdim: bool) -> Tensor:
    t = cx.tensor(x, "input")
    dims = _dims(cx, dim, t.ndim)
    axes = dims if dims is not None else tuple(range(t.ndim))
    mean = ops.mean(t, axes, True, name=f"{cx.name}_mean")
    centered = ops.subtract(t, mean, name=f"{cx.name}_centered")
    squares = ops.multiply(centered, centered, name=f"{cx.name}_squares")
    total = ops.sum(squares, axes, keepdim, name=f"{cx.name}_sum")
    count = product([t.shape[d] for d in axes])
    n = static(count)
    if n is None:
        remaining = te.const(0, "int64") + (count - int(correction))
        denominator = te.compute((), lambda: te.maximum(remaining.astype("float32"), 0.0), name=f"{cx.name}_count")
        return ops.divide(total, denominator, name=cx.name)
    return ops.divide(total, max(n - correction, 0) or 0.0, name=cx.name)


@aten("var.correction")
def var_correction(cx: Converter, x: Any, dim: Any = None, *, correction: float | None = None,
                   keepdim: bool = False) -> Tensor:
    return _variance(cx, x, dim, 1.0 if correction is None else float(correction), keepdim)


@aten("var.dim")
def var_dim(cx: Converter, x: Any, dim: Any = None, unbiased: bool = True, keepdim: bool = False) -> Tensor:
    return _variance(cx, x, dim, 1.0 if unbiased else 0.0, keepdim)


def extreme_start(dtype: str, largest: bool) -> Expr:
    """The start of a max (min) search: -inf (+inf) for floats, the lowest (highest) integer."""
    if is_float(dtype):
        return te.const(-_INF if largest else _INF, dtype)
    return te.min_value(dtype) if largest else te.max_value(dtype)


def arg_reducer(largest: bool, last: bool = False) -> CommReducer:
    """(index, value) of the largest (smallest) value, its first occurrence (argmax, max.dim,
    pools' indices) or its last (`last`: cummax); NaN counts as the largest and the smallest,
    as torch's."""

    def combine(acc: tuple[Expr, Expr], new: tuple[Expr, Expr]) -> tuple[Expr, Expr]:
        (i, v), (j, w) = acc, new
        if last:
            take = ((w >= v) if largest else (w <= v)) | (w != w)
        else:
            take = ((w > v) if largest else (w < v)) | ((w != w) & (v == v))
        return te.if_then_else(take, j, i), te.if_then_else(take, w, v)

    def identity(index_dtype: str, value_dtype: str) -> tuple[Expr, Expr]:
        return te.const(0, index_dtype), extreme_start(value_dtype, largest)

    return te.comm_reducer(combine, identity, name=("cum" if last else "arg") + ("max" if largest else "min"))


def arg_reduce(cx: Converter, t: Tensor, axis: int, keepdim: bool, largest: bool) -> tuple[Tensor, Tensor]:
    """(values, int64 indices) of the largest (smallest) element along `axis`."""
    reducer = arg_reducer(largest)
    k = te.reduce_axis((0, t.shape[axis]), "k")
    shape = tuple(1 if d == axis else n for d, n in enumerate(t.shape) if keepdim or d != axis)

    def element(*idx: Expr) -> Any:
        src = list(idx)
        if keepdim:
            src[axis] = k
        else:
            src.insert(axis, k)
        return reducer((k.var.astype("int64"), t[tuple(src)]), axis=k)

    index, value = te.compute(shape, element, name=cx.name)
    return value, index


def _arg(largest: bool) -> Callable[..., Tensor]:
    def convert(cx: Converter, x: Any, dim: int | None = None, keepdim: bool = False) -> Tensor:
        t = cx.tensor(x, "input")
        if dim is None:
            flat = ops.reshape(t, (product(t.shape),), name=f"{cx.name}_flat") if t.ndim != 1 else t
            _, index = arg_reduce(cx, flat, 0, False, largest)
            return ops.reshape(index, (1,) * t.ndim, name=f"{cx.name}_kept") if keepdim and t.ndim else index
        if t.ndim == 0:
            return ops.full((), 0, "int64", name=cx.name)
        return arg_reduce(cx, t, normalize_axis(int(dim), t.ndim, cx.name), keepdim, largest)[1]

    return convert


OPS["aten.argmax.default"] = _arg(True)
OPS["aten.argmin.default"] = _arg(False)


def _max_min_dim(largest: bool) -> Callable[..., tuple[Tensor, Tensor]]:
    def convert(cx: Converter, x: Any, dim: int, keepdim: bool = False) -> tuple[Tensor, Tensor]:
        t = cx.tensor(x, "input")
        if t.ndim == 0:
            return t, ops.full((), 0, "int64", name=f"{cx.name}_index")
        return arg_reduce(cx, t, normalize_axis(int(dim), t.ndim, cx.name), keepdim, largest)

    return convert


OPS["aten.max.dim"] = _max_min_dim(True)
OPS["aten.min.dim"] = _max_min_dim(False)


def _all_reduce(kind: str) -> Callable[..., Tensor]:
    def convert(cx: Converter, x: Any) -> Tensor:
        t = cx.tensor(x, "input")
        return (ops.max if kind == "max" else ops.min)(t, None, False, name=cx.name)

    return convert


OPS["aten.max.default"] = _all_reduce("max")
OPS["aten.min.default"] = _all_reduce("min")




# ---------------------------------------------------------------------------
# Ops torch's table leaves whole that are not Core ATen
# ---------------------------------------------------------------------------


@aten("copysign.Tensor", "copysign.Scalar")
def copysign(cx: Converter, a: Any, b: Any) -> Tensor:
    def f(u: Expr, v: Expr) -> Expr:
        negative = (v < 0.0) | ((v == 0.0) & (1.0 / v < 0.0))  # -0.0 is negative too
        return te.if_then_else(negative, -te.abs(u), te.abs(u))

    return _broadcast_in(cx, a, b, lambda u, v: in_float32(f, u, v))


def _nan_ignoring(pick: Callable[[Expr, Expr], Expr]) -> Callable[[Expr, Expr], Expr]:
    def f(u: Expr, v: Expr) -> Expr:
        if not is_float(u.dtype):
            return pick(u, v)
        return te.if_then_else(u != u, v, te.if_then_else(v != v, u, pick(u, v)))

    return f


@aten("fmax.default")
def fmax(cx: Converter, a: Any, b: Any) -> Tensor:
    return _broadcast_in(cx, a, b, _nan_ignoring(te.maximum))


@aten("fmin.default")
def fmin(cx: Converter, a: Any, b: Any) -> Tensor:
    return _broadcast_in(cx, a, b, _nan_ignoring(te.minimum))


@aten("var_mean.correction")
def var_mean(cx: Converter, x: Any, dim: Any = None, *, correction: float | None = None,
             keepdim: bool = False) -> tuple[Tensor, Tensor]:
    t = cx.tensor(x, "input")
    dims = _dims(cx, dim, t.ndim)
    variance = _variance(cx, t, dim, 1.0 if correction is None else float(correction), keepdim)
    return variance, ops.mean(t, dims, keepdim, name=f"{cx.name}_mean")


def _cumulative_product(cx: Converter, x: Any, dim: int) -> Tensor:
    """The running product along `dim`: each element reduces its own prefix."""
    t = as_dtype(cx, cx.tensor(x, "input"), result_dtype(cx), "input")
    assert isinstance(t, Tensor)
    if t.ndim == 0:
        return te.compute((), lambda: t[()], name=cx.name)
    axis = normalize_axis(int(dim), t.ndim, cx.name)

    def element(*i: Expr) -> Expr:
        k = te.reduce_axis((0, t.shape[axis]), "k")
        src = tuple(k if d == axis else v for d, v in enumerate(i))
        return te.prod(t[src], axis=k, where=k <= i[axis])

    return te.compute(t.shape, element, name=cx.name)


@aten("cumprod.default")
def cumprod(cx: Converter, x: Any, dim: int, dtype: torch.dtype | None = None) -> Tensor:
    return _cumulative_product(cx, x, dim)


def _cumulative_arg(largest: bool) -> Callable[..., tuple[Tensor, Tensor]]:
    """cummax / cummin: the running extreme and the index of its last occurrence."""

    def convert(cx: Converter, x: Any, dim: int) -> tuple[Tensor, Tensor]:
        t = cx.tensor(x, "input")
        if t.ndim == 0:
            return t, ops.full((), 0, "int64", name=f"{cx.name}_index")
        axis = normalize_axis(int(dim), t.ndim, cx.name)

        reducer = arg_reducer(largest, last=True)

        def element(*i: Expr) -> Any:
            k = te.reduce_axis((0, t.shape[axis]), "k")
            src = tuple(k if d == axis else v for d, v in enumerate(i))
            return reducer((k.var.astype("int64"), t[src]), axis=k, where=k <= i[axis])

        index, value = te.compute(t.shape, element, name=cx.name)
        return value, index

    return convert


OPS["aten.cummax.default"] = _cumulative_arg(True)
OPS["aten.cummin.default"] = _cumulative_arg(False)


@aten("searchsorted.Tensor", "searchsorted.Scalar")
def searchsorted(cx: Converter, sorted_sequence: Any, values: Any, *, out_int32: bool = False, right: bool = False,
                 side: str | None = None, sorter: Any = None) -> Tensor:
    """The insertion point of each value: how many of its row's sorted elements come before it."""
    if sorter is not None:
        raise unsupported(cx, "searchsorted with a sorter is not supported")
    seq = cx.tensor(sorted_sequence, "sorted_sequence")
    v = cx.operand(values, "values")
    vt = v if isinstance(v, Tensor) else ops.full((), v, seq.dtype, name=f"{cx.name}_value")
    after = right or side == "right"
    dtype = "int32" if out_int32 else "int64"
    n = seq.shape[-1]

    def element(*i: Expr) -> Expr:
        k = te.reduce_axis((0, n), "k")
        row = (*i[:-1], k.var) if seq.ndim > 1 else (k.var,)
        value = vt[i].astype(seq.dtype)
        before = seq[row] <= value if after else seq[row] < value
        return te.sum(te.if_then_else(before, te.const(1, dtype), te.const(0, dtype)), axis=k)

    return te.compute(vt.shape, element, name=cx.name)


@aten("linalg_vector_norm.default")
def linalg_vector_norm(cx: Converter, x: Any, ord: float = 2, dim: Any = None, keepdim: bool = False, *,
                       dtype: torch.dtype | None = None) -> Value:
    """The p-norm over `dim` (all when None): (sum |x|^p)^(1/p); inf and -inf the largest and
    smallest |x|, 0 the count of nonzeros (ConvNeXt V2's GRN, SigLIP's normalization)."""
    p = float(ord)
    t = as_dtype(cx, cx.tensor(x, "input"), result_dtype(cx), "input")
    assert isinstance(t, Tensor)
    magnitude = ops.abs(t, name=f"{cx.name}_abs")
    if p in (float("inf"), float("-inf")):
        extreme = ops.max if p > 0 else ops.min
        return _reduce_in_layout(cx, magnitude, dim, keepdim, lambda u, dims, keep: extreme(u, dims, keep, name=cx.name))
    if p == 0:
        terms = ops.cast(ops.not_equal(t, 0, name=f"{cx.name}_nonzero"), t.dtype, name=f"{cx.name}_count")
    elif p == 1:
        terms = magnitude
    elif p == 2:
        terms = ops.multiply(t, t, name=f"{cx.name}_squares")
    else:
        terms = ops.power(magnitude, p, name=f"{cx.name}_powers")
    total = _reduce_in_layout(cx, terms, dim, keepdim, lambda u, dims, keep: ops.sum(u, dims, keep, name=f"{cx.name}_sum"))
    assert isinstance(total, Tensor)
    if p in (0, 1):
        return total
    if p == 2:
        return ops.sqrt(total, name=cx.name)
    return ops.power(total, 1.0 / p, name=cx.name)


__all__ = ["arg_reduce", "arg_reducer", "extreme_start"]
