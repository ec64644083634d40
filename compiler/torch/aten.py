"""ATen operators as compiler.ops calls: the table the importer dispatches on.

Each converter takes the Converter and the node's arguments (already
converted: te tensors, constant torch tensors, numbers, te dimensions) with
the defaults of the ATen schema, and returns the node's value. A converter
raises `UnsupportedOperatorError` for a variant it does not handle
(a transposed convolution, a 1-D one, a rounding division...).

float16 and bfloat16 reductions (convolutions, matrix products, pools, means,
sums, softmax, layer norm) accumulate in float32 and round once, as PyTorch does
on CPU: the default of `compiler.ops`. The normalizations are in aten_norm.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

import torch

from compiler import ops
from compiler.analysis.target import channel_block, host_target
from compiler.ops.util import normalize_axis, same_dim, static
from compiler.te import Dim, Tensor
from compiler.te.nodes import is_float
from compiler.torch.graph import (
    NCHW_OF_NHWC,
    Converter,
    Permuted,
    UnsupportedOperatorError,
    host_array,
    te_dtype,
)

Converter_ = Callable[..., Any]
Value = Tensor | Permuted
"""A converted tensor: te's, or a te tensor read through a permutation."""
OPS: dict[str, Converter_] = {}
IDENTITY_OPS = (
    "aten.alias.default",
    "aten.clone.default",
    "aten.contiguous.default",
    "aten.detach.default",
    "aten.lift_fresh_copy.default",
    "aten.dropout.default",
    "aten.feature_dropout.default",
)
"""Ops that return their first argument unchanged (in inference)."""

IGNORED_OPS = (
    "aten._assert_scalar.default",
    "aten._assert_tensor_metadata.default",
    "aten.sym_constrain_range_for_size.default",
    "aten.sym_constrain_range.default",
)
"""Checks torch.export adds; they compute nothing."""


_ConverterT = TypeVar("_ConverterT", bound=Converter_)


def aten(*names: str) -> Callable[[_ConverterT], _ConverterT]:
    """Register a converter under ATen op names; the function keeps its own signature."""

    def register(fn: _ConverterT) -> _ConverterT:
        for n in names:
            OPS[f"aten.{n}"] = fn
        return fn

    return register


def unsupported(cx: Converter, why: str) -> UnsupportedOperatorError:
    return UnsupportedOperatorError(why, cx.node)


def weight_block(channels: int, dtype: torch.dtype) -> int:
    """The output-channel block of a float weight for this host (`channel_block`: the
    register tile's width), in elements of its dtype."""
    return channel_block(channels, host_target(), 16 if dtype in (torch.float16, torch.bfloat16) else 32)


def _ints(v: int | Sequence[int], n: int = 2) -> tuple[int, ...]:
    if isinstance(v, int):
        return (v,) * n
    items = tuple(int(i) for i in v)
    return items * n if len(items) == 1 else items


def _dims(cx: Converter, dims: int | Sequence[int] | None, ndim: int) -> tuple[int, ...] | None:
    if dims is None or ndim == 0:  # a 0-d tensor reduces over its one (absent) dimension
        return None
    items = (dims,) if isinstance(dims, int) else tuple(dims)
    return tuple(normalize_axis(int(d), ndim, cx.name) for d in items) if items else None


# ---------------------------------------------------------------------------
# Convolution and normalisation
# ---------------------------------------------------------------------------


def nhwc(cx: Converter, x: Any) -> Tensor:
    """An NCHW operand in NHWC: the tensor under a `Permuted` NCHW view, else a transpose
    (a stage that moves elements only: the fusion schedule inlines it into its reader)."""
    if isinstance(x, Permuted) and x.perm == NCHW_OF_NHWC:
        return x.tensor
    return ops.transpose(cx.tensor(x, "input"), (0, 2, 3, 1), name=f"{cx.name}_nhwc")


def _channels_last(cx: Converter, x: Any, weight: Any) -> bool:
    """Whether a convolution computes in NHWC: `cx.channels_last`, a 4-D float input and
    a constant weight (repacked once, at import)."""
    shape = getattr(x, "shape", ())
    dtype = getattr(x, "dtype", "")
    return cx.channels_last and len(shape) == 4 and isinstance(weight, torch.Tensor) and is_float(str(dtype))


def conv2d_stage(
    cx: Converter, x: Any, weight: Any, bias: Any, stride: Any, padding: Any, dilation: Any, groups: int
) -> Value:
    channels_last = _channels_last(cx, x, weight)
    x = x if channels_last else cx.tensor(x, "input")
    if len(x.shape) != 4:
        raise unsupported(cx, f"only 2-D convolutions (4-D inputs) are supported, the input has {len(x.shape)} dimensions")
    w = weight if channels_last else cx.tensor(weight, "weight")
    if isinstance(padding, str):
        if padding == "valid":
            padding = 0
        else:  # "same" (stride 1): the extra element of an odd total goes after, as PyTorch does
            dil = _ints(dilation)
            totals = []
            for d, k in zip(dil, tuple(w.shape)[2:], strict=True):
                size = static(k)
                if size is None:
                    raise unsupported(cx, f"padding='same' needs a static kernel size, got {k}")
                totals.append(d * (size - 1))
            padding = (totals[0] // 2, totals[1] // 2, totals[0] - totals[0] // 2, totals[1] - totals[1] // 2)
    pads = padding if isinstance(padding, tuple) and len(padding) == 4 else _ints(padding)
    if channels_last:
        # the weight blocked by output channel, once: [K / kb, R, S, C, kb] with kb the
        # register tile's width for this host, so each vector of the tile is one load
        kb = weight_block(int(weight.shape[0]), weight.dtype)
        blocked = cx.blocked_param(
            weight, f"hwio/{kb}",
            lambda: ops.block_kernel_hwio(host_array(weight.permute(2, 3, 1, 0)), kb),
        )
        y = ops.conv2d_nhwc(nhwc(cx, x), blocked, _ints(stride), pads, _ints(dilation), int(groups), name=cx.name)
        if bias is not None:
            y = ops.bias_add(y, cx.tensor(bias, "bias"), axis=3, name=f"{cx.name}_bias")
        return Permuted(y, NCHW_OF_NHWC)
    assert isinstance(w, Tensor)
    y = ops.conv2d_nchw(x, w, _ints(stride), pads, _ints(dilation), int(groups), name=cx.name)
    if bias is None:
        return y
    return ops.bias_add(y, cx.tensor(bias, "bias"), axis=1, name=f"{cx.name}_bias")


@aten("conv2d.default", "conv2d.padding")
def conv2d(cx: Converter, x: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Value:
    if len(x.shape) == 3:  # one unbatched image: a batch of one
        batched = ops.expand_dims(cx.tensor(x, "input"), 0, name=f"{cx.name}_batched")
        y = cx.tensor(conv2d_stage(cx, batched, weight, bias, stride, padding, dilation, groups), "output")
        return ops.squeeze(y, 0, name=f"{cx.name}_unbatched")
    return conv2d_stage(cx, x, weight, bias, stride, padding, dilation, groups)


# ---------------------------------------------------------------------------
# Pooling
# ---------------------------------------------------------------------------


def _pool(cx: Converter, x: Any, pool: Callable[[Tensor, str], Tensor]) -> Value:
    """A 2-D pool of an NCHW value: in NHWC when x is an NHWC tensor seen as NCHW (the
    result too), else in NCHW."""
    if isinstance(x, Permuted) and x.perm == NCHW_OF_NHWC:
        return Permuted(pool(x.tensor, "NHWC"), NCHW_OF_NHWC)
    t = cx.tensor(x, "input")
    if t.ndim != 4:
        raise unsupported(cx, f"only 4-D (NCHW) pooling is supported, the input has {t.ndim} dimensions")
    return pool(t, "NCHW")


@aten("max_pool2d.default")
def max_pool2d(cx: Converter, x: Any, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False) -> Value:
    kernel = _ints(kernel_size)
    strides = _ints(stride) if stride else kernel
    return _pool(cx, x, lambda t, layout: ops.max_pool2d(
        t, kernel, strides, _ints(padding), _ints(dilation), ceil_mode, layout=layout, name=cx.name))


@aten("avg_pool2d.default")
def avg_pool2d(cx: Converter, x: Any, kernel_size: Any, stride: Any = (), padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: int | None = None) -> Value:
    kernel = _ints(kernel_size)
    strides = _ints(stride) if stride else kernel
    return _pool(cx, x, lambda t, layout: ops.avg_pool2d(
        t, kernel, strides, _ints(padding), ceil_mode, count_include_pad, divisor_override, layout=layout,
        name=cx.name))


@aten("adaptive_avg_pool2d.default", "_adaptive_avg_pool2d.default")
def adaptive_avg_pool2d(cx: Converter, x: Any, output_size: Any) -> Value:
    if len(x.shape) == 3:  # one unbatched image: a batch of one
        batched = ops.expand_dims(cx.tensor(x, "input"), 0, name=f"{cx.name}_batched")
        pooled = cx.tensor(adaptive_avg_pool2d(cx, batched, output_size), "output")
        return ops.squeeze(pooled, 0, name=f"{cx.name}_unbatched")
    sizes = _ints(output_size)
    return _pool(cx, x, lambda t, layout: ops.adaptive_avg_pool2d(t, sizes, layout=layout, name=cx.name))


# ---------------------------------------------------------------------------
# Matrix products
# ---------------------------------------------------------------------------


@aten("linear.default")
def linear(cx: Converter, x: Tensor, weight: Any, bias: Any = None) -> Tensor:
    x = cx.tensor(x, "input")
    if isinstance(weight, torch.Tensor) and weight.ndim == 2 and is_float(x.dtype):
        # blocked by output once, here: [N / nb, K, nb], nb the register tile's width
        nb = weight_block(int(weight.shape[0]), weight.dtype)
        blocked = cx.blocked_param(
            weight, f"dense/{nb}", lambda: ops.block_dense_weight(host_array(weight), nb)
        )
        y = ops.dense(x, blocked, name=cx.name)
    else:
        y = ops.dense(x, cx.tensor(weight, "weight"), name=cx.name)
    if bias is None:
        return y
    return ops.add(y, cx.tensor(bias, "bias"), name=f"{cx.name}_bias")


def _scaled(cx: Converter, t: Tensor | float, k: float, what: str) -> Tensor | float:
    if k == 1:
        return t
    return ops.multiply(t, k, name=f"{cx.name}_{what}") if isinstance(t, Tensor) else t * k


@aten("addmm.default")
def addmm(cx: Converter, bias: Any, a: Any, b: Any, beta: float = 1, alpha: float = 1) -> Tensor:
    p = ops.matmul(cx.tensor(a, "mat1"), cx.tensor(b, "mat2"), name=cx.name)
    p2 = _scaled(cx, p, alpha, "alpha")
    assert isinstance(p2, Tensor)
    if beta == 0:
        return p2
    return ops.add(p2, _scaled(cx, cx.operand(bias, "bias"), beta, "beta"), name=f"{cx.name}_bias")


@aten("mm.default")
def mm(cx: Converter, a: Any, b: Any) -> Tensor:
    return ops.matmul(cx.tensor(a, "self"), cx.tensor(b, "mat2"), name=cx.name)


@aten("bmm.default")
def bmm(cx: Converter, a: Any, b: Any) -> Tensor:
    return ops.batch_matmul(cx.tensor(a, "self"), cx.tensor(b, "mat2"), name=cx.name)


@aten("matmul.default")
def matmul(cx: Converter, a: Any, b: Any) -> Tensor:
    """torch.matmul: 1-D operands gain a dimension that the result drops again."""
    ta, tb = cx.tensor(a, "self"), cx.tensor(b, "other")
    if ta.ndim == 1:
        ta = ops.expand_dims(ta, 0, name=f"{cx.name}_lhs")
    if tb.ndim == 1:
        tb = ops.expand_dims(tb, 1, name=f"{cx.name}_rhs")
    out = ops.batch_matmul(ta, tb, name=cx.name)
    drop = [k for k, t in ((out.ndim - 2, a), (out.ndim - 1, b)) if cx.tensor(t).ndim == 1]
    return ops.squeeze(out, drop, name=f"{cx.name}_squeeze") if drop else out


# ---------------------------------------------------------------------------
# Elementwise
# ---------------------------------------------------------------------------



def pointwise(cx: Converter, x: Any, fn: Callable[[Tensor], Tensor]) -> Value:
    """fn applied elementwise, in the layout x is stored in (a permuted x stays permuted)."""
    if isinstance(x, Permuted):
        return Permuted(fn(x.tensor), x.perm)
    return fn(cx.tensor(x, "input"))


def _in_layout(cx: Converter, v: Any, perm: tuple[int, ...], inverse: tuple[int, ...], what: str) -> Any:
    """An operand of a permuted elementwise op, moved to the permuted tensor's layout
    (a constant is permuted once here, a computed tensor through an inlined transpose)."""
    if isinstance(v, Permuted) and v.perm == perm:
        return v.tensor
    operand = cx.operand(v, what)
    if not isinstance(operand, Tensor):
        return operand
    ndim = len(perm)
    if isinstance(v, torch.Tensor):
        full = v.reshape((1,) * (ndim - v.ndim) + tuple(v.shape))
        return cx.param(full.permute(inverse).contiguous(), f"{cx.name}_{what}")
    if operand.ndim < ndim:
        operand = ops.reshape(operand, (1,) * (ndim - operand.ndim) + operand.shape, name=f"{cx.name}_{what}_rank")
    return ops.transpose(operand, inverse, name=f"{cx.name}_{what}_layout")


def _unary(op: Callable[..., Tensor]) -> Converter_:
    def convert(cx: Converter, x: Any, *args: Any, **kwargs: Any) -> Value:
        return pointwise(cx, x, lambda t: op(t, *args, name=cx.name, **kwargs))

    return convert


_UNARY = {"relu": ops.relu, "sigmoid": ops.sigmoid, "tanh": ops.tanh, "silu": ops.silu, "hardswish": ops.hardswish,
          "hardsigmoid": ops.hardsigmoid, "exp": ops.exp, "log": ops.log, "sqrt": ops.sqrt, "rsqrt": ops.rsqrt,
          "neg": ops.negative, "abs": ops.abs, "erf": ops.erf}
OPS.update({f"aten.{name}.default": _unary(op) for name, op in _UNARY.items()})


@aten("leaky_relu.default")
def leaky_relu(cx: Converter, x: Any, negative_slope: float = 0.01) -> Value:
    return pointwise(cx, x, lambda t: ops.leaky_relu(t, float(negative_slope), name=cx.name))


@aten("gelu.default")
def gelu(cx: Converter, x: Any, approximate: str = "none") -> Value:
    return pointwise(cx, x, lambda t: ops.gelu(t, approximate, name=cx.name))


@aten("hardtanh.default")
def hardtanh(cx: Converter, x: Any, min_val: float = -1.0, max_val: float = 1.0) -> Value:
    return pointwise(cx, x, lambda t: ops.clip(t, float(min_val), float(max_val), name=cx.name))


@aten("clamp.default")
def clamp(cx: Converter, x: Any, min: float | None = None, max: float | None = None) -> Value:
    return pointwise(cx, x, lambda t: ops.clip(t, min, max, name=cx.name))


@aten("pow.Tensor_Scalar")
def pow_scalar(cx: Converter, x: Any, exponent: float) -> Value:
    return pointwise(cx, x, lambda t: ops.power(t, float(exponent), name=cx.name))


def result_dtype(cx: Converter) -> str | None:
    """The te dtype torch gives the node being converted (None if it is not a tensor)."""
    val = cx.node.meta.get("val") if cx.node is not None else None
    if isinstance(val, torch.Tensor):
        return te_dtype(val.dtype, cx.name)
    if isinstance(val, list | tuple) and val and isinstance(val[0], torch.Tensor):
        return te_dtype(val[0].dtype, cx.name)
    return None


def as_dtype(cx: Converter, v: Tensor | float | int, dtype: str | None, what: str) -> Tensor | float | int:
    """A tensor operand converted to `dtype` (numbers, and any operand when dtype is None, stay)."""
    if dtype is not None and isinstance(v, Tensor) and v.dtype != dtype:
        return ops.cast(v, dtype, name=f"{cx.name}_{what}_{dtype}")
    return v


def _binary(fn: Callable[..., Tensor], *, alpha: bool = False, reverse: bool = False) -> Converter_:
    def convert(cx: Converter, a: Any, b: Any, alpha_value: float = 1, **kwargs: Any) -> Value:
        alpha_value = kwargs.pop("alpha", alpha_value)
        if kwargs.get("rounding_mode") is not None:
            raise unsupported(cx, f"division with rounding_mode={kwargs['rounding_mode']!r} is not supported")
        layout = next((v for v in (a, b) if isinstance(v, Permuted)), None)
        if layout is not None:  # compute in the permuted operand's layout
            lhs = _in_layout(cx, a, layout.perm, layout.inverse, "self")
            rhs = _in_layout(cx, b, layout.perm, layout.inverse, "other")
        else:
            lhs, rhs = cx.operand(a, "self"), cx.operand(b, "other")
        target = result_dtype(cx)  # torch's promotion: int64 / int64 divides floats
        lhs, rhs = as_dtype(cx, lhs, target, "self"), as_dtype(cx, rhs, target, "other")
        if alpha and alpha_value != 1:
            rhs = _scaled(cx, rhs, float(alpha_value), "alpha")
        if reverse:
            lhs, rhs = rhs, lhs
        out = fn(lhs, rhs, name=cx.name)
        return Permuted(out, layout.perm) if layout is not None else out

    return convert


for _name, _fn in (("add", ops.add), ("sub", ops.subtract)):
    OPS[f"aten.{_name}.Tensor"] = OPS[f"aten.{_name}.Scalar"] = _binary(_fn, alpha=True)
OPS["aten.rsub.Scalar"] = OPS["aten.rsub.Tensor"] = _binary(ops.subtract, alpha=True, reverse=True)
for _name, _fn in (("mul", ops.multiply), ("div", ops.divide), ("maximum", ops.maximum), ("minimum", ops.minimum)):
    OPS[f"aten.{_name}.Tensor"] = _binary(_fn)
OPS["aten.mul.Scalar"] = _binary(ops.multiply)
OPS["aten.div.Scalar"] = _binary(ops.divide)
OPS["aten.div.Tensor_mode"] = _binary(ops.divide)


@aten("_to_copy.default")
def to_copy(cx: Converter, x: Any, dtype: torch.dtype | None = None, **kwargs: Any) -> Value:
    if isinstance(x, Permuted | Tensor) and (dtype is None or te_dtype(dtype, cx.name) == x.dtype):
        return x
    target = te_dtype(dtype, cx.name) if dtype is not None else None
    if dtype == torch.bool:  # nonzero, not a truncation
        return pointwise(cx, x, lambda t: ops.not_equal(t, 0, name=cx.name))
    return pointwise(cx, x, lambda t: t if target in (None, t.dtype) else ops.cast(t, target, name=cx.name))


@aten("to.dtype")
def to_dtype(cx: Converter, x: Any, dtype: torch.dtype, *args: Any, **kwargs: Any) -> Value:
    return to_copy(cx, x, dtype)


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------


def _reduce_dtype(cx: Converter, x: Any, dtype: torch.dtype | None) -> Any:
    """x in the reduction's `dtype=` (torch converts the input first), if one is given."""
    if dtype is None or te_dtype(dtype, cx.name) == x.dtype:
        return x
    return pointwise(cx, x, lambda t: ops.cast(t, te_dtype(dtype, cx.name), name=f"{cx.name}_{t.dtype}"))


def _reduce_in_layout(
    cx: Converter, x: Any, dim: Any, keepdim: bool, reduce: Callable[[Tensor, tuple[int, ...] | None, bool], Tensor]
) -> Value:
    """A reduction over logical dimensions `dim`, in the layout x is stored in: a permuted
    x reduces the dimensions they are stored as, and the result keeps what is left of
    the permutation."""
    if not isinstance(x, Permuted):
        t = cx.tensor(x, "input")
        return reduce(t, _dims(cx, dim, t.ndim), keepdim)
    dims = _dims(cx, dim, len(x.perm))
    stored = tuple(sorted(x.perm[d] for d in dims)) if dims is not None else None
    out = reduce(x.tensor, stored, keepdim)
    if keepdim:
        return Permuted(out, x.perm)
    kept = [p for d, p in enumerate(x.perm) if dims is not None and d not in dims]
    perm = tuple(sorted(kept).index(p) for p in kept)
    return out if perm == tuple(range(len(perm))) else Permuted(out, perm)


@aten("mean.dim", "mean.default")
def mean(cx: Converter, x: Any, dim: Any = None, keepdim: bool = False, dtype: torch.dtype | None = None) -> Value:
    x = _reduce_dtype(cx, x, dtype)
    return _reduce_in_layout(cx, x, dim, keepdim, lambda t, dims, keep: ops.mean(t, dims, keep, name=cx.name))


@aten("sum.dim_IntList", "sum.default")
def sum_(cx: Converter, x: Any, dim: Any = None, keepdim: bool = False, dtype: torch.dtype | None = None) -> Value:
    x = _reduce_dtype(cx, x, dtype)
    return _reduce_in_layout(cx, x, dim, keepdim, lambda t, dims, keep: ops.sum(t, dims, keep, name=cx.name))


@aten("amax.default")
def amax(cx: Converter, x: Any, dim: Any = (), keepdim: bool = False) -> Tensor:
    t = cx.tensor(x, "input")
    return ops.max(t, _dims(cx, dim, t.ndim), keepdim, name=cx.name)


@aten("amin.default")
def amin(cx: Converter, x: Any, dim: Any = (), keepdim: bool = False) -> Tensor:
    t = cx.tensor(x, "input")
    return ops.min(t, _dims(cx, dim, t.ndim), keepdim, name=cx.name)


@aten("softmax.int", "_softmax.default")
def softmax(cx: Converter, x: Any, dim: int, dtype_or_half_to_float: Any = None) -> Tensor:
    return _over_a_dim(cx, ops.softmax, _softmax_input(cx, x), int(dim))


def _over_a_dim(cx: Converter, op: Any, t: Tensor, dim: int) -> Tensor:
    """op(t, dim), a 0-d tensor taken as one element along dimension 0 (torch's dim 0 or -1)."""
    if t.ndim > 0:
        return cast(Tensor, op(t, dim, name=cx.name))
    one = ops.expand_dims(t, 0, name=f"{cx.name}_1d")
    return ops.squeeze(op(one, 0, name=f"{cx.name}_of_1d"), 0, name=cx.name)


def _softmax_input(cx: Converter, x: Any) -> Tensor:
    """x in the softmax's result dtype: a `dtype=` (BLOOM's float32 softmax of float16
    scores) or `half_to_float` converts the input first, as torch computes."""
    t = cx.tensor(x, "input")
    target = result_dtype(cx)
    return t if target in (None, t.dtype) else ops.cast(t, target, name=f"{cx.name}_{target}")


@aten("log_softmax.int", "_log_softmax.default")
def log_softmax(cx: Converter, x: Any, dim: int, dtype_or_half_to_float: Any = None) -> Tensor:
    return _over_a_dim(cx, ops.log_softmax, _softmax_input(cx, x), int(dim))


# ---------------------------------------------------------------------------
# Shapes
# ---------------------------------------------------------------------------


@aten("view.default", "reshape.default", "_unsafe_view.default")
def view(cx: Converter, x: Any, size: Sequence[Dim]) -> Tensor:
    t = cx.tensor(x, "input")
    shape = tuple(size)
    if any(isinstance(d, int) and d == -1 for d in shape):  # torch's size: seq * 48 // 16 is 3 there
        known = [cx.torch_size(k) if isinstance(d, int) and d == -1 else d for k, d in enumerate(shape)]
        shape = tuple(d if k is None else k for d, k in zip(shape, known, strict=True))
    if len(shape) == t.ndim and all(same_dim(a, b) for a, b in zip(shape, t.shape, strict=True)):
        return t
    return ops.reshape(t, shape, name=cx.name)


@aten("flatten.using_ints")
def flatten(cx: Converter, x: Any, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    t = cx.tensor(x, "input")
    if t.ndim == 0:
        return ops.reshape(t, (1,), name=cx.name)
    s, e = normalize_axis(start_dim, t.ndim, cx.name), normalize_axis(end_dim, t.ndim, cx.name)
    return t if s == e else ops.flatten(t, s, e, name=cx.name)


@aten("unsqueeze.default")
def unsqueeze(cx: Converter, x: Any, dim: int) -> Tensor:
    return ops.expand_dims(cx.tensor(x, "input"), int(dim), name=cx.name)


@aten("squeeze.dim", "squeeze.dims", "squeeze.default")
def squeeze(cx: Converter, x: Any, dim: Any = None) -> Tensor:
    t = cx.tensor(x, "input")
    if t.ndim == 0 or (isinstance(dim, list | tuple) and not dim):  # squeeze.dims of no dims
        return t
    out = ops.squeeze(t, _dims(cx, dim, t.ndim) if dim is not None else None, name=cx.name)
    return t if out.ndim == t.ndim else out


@aten("permute.default")
def permute(cx: Converter, x: Any, dims: Sequence[int]) -> Value:
    """A `Permuted` view (no stage): permutes compose, and cancel to the tensor itself."""
    base, inner = (x.tensor, x.perm) if isinstance(x, Permuted) else (cx.tensor(x, "input"), None)
    perm = tuple(normalize_axis(int(d), base.ndim, cx.name) for d in dims)
    if inner is not None:
        perm = tuple(inner[d] for d in perm)
    return base if perm == tuple(range(base.ndim)) else Permuted(base, perm)


@aten("transpose.int")
def transpose(cx: Converter, x: Any, dim0: int, dim1: int) -> Value:
    ndim = len(x.shape)
    perm = list(range(ndim))
    a, b = normalize_axis(dim0, ndim, cx.name), normalize_axis(dim1, ndim, cx.name)
    perm[a], perm[b] = perm[b], perm[a]
    return permute(cx, x, perm)


@aten("t.default", "numpy_T.default")
def t_(cx: Converter, x: Any) -> Value:
    return permute(cx, x, list(reversed(range(len(x.shape)))))


@aten("expand.default")
def expand(cx: Converter, x: Any, size: Sequence[Dim], implicit: bool = False) -> Tensor:
    t = cx.tensor(x, "input")
    offset = len(size) - t.ndim
    shape = tuple(t.shape[k - offset] if isinstance(d, int) and d == -1 else d for k, d in enumerate(size))
    if len(shape) == t.ndim and all(same_dim(a, b) for a, b in zip(shape, t.shape, strict=True)):
        return t
    return ops.broadcast_to(t, shape, name=cx.name)


@aten("cat.default", "concat.default")
def cat(cx: Converter, tensors: Sequence[Any], dim: int = 0) -> Tensor:
    ts = [cx.tensor(v, f"tensors[{k}]") for k, v in enumerate(tensors)]
    ts = [t for t in ts if not (t.ndim == 1 and static(t.shape[0]) == 0)]  # torch skips empty 1-D tensors
    return ops.concatenate(ts, int(dim), name=cx.name)


_END = 2**62


@aten("slice.Tensor")
def slice_(cx: Converter, x: Any, dim: int = 0, start: Any = None, end: Any = None, step: int = 1) -> Tensor:
    t = cx.tensor(x, "input")
    axis = normalize_axis(int(dim), t.ndim, cx.name)
    start = 0 if start is None else start
    if isinstance(end, int) and end >= _END:
        end = None
    if isinstance(start, int) and start == 0 and end is None and step == 1:
        return t
    size = cx.torch_size(axis)  # torch's length: it knows the range of a symbolic end
    symbolic = size is not None and static(size) is None
    return ops.strided_slice(t, axis, start, end, int(step), name=cx.name, length=size if symbolic else None)


@aten("split.Tensor", "split_with_sizes.default")
def split(cx: Converter, x: Any, split_size: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """Consecutive slices along `dim`: of `split_size` elements each, or of the given sizes."""
    t = cx.tensor(x, "input")
    axis = normalize_axis(int(dim), t.ndim, cx.name)
    if isinstance(split_size, int):
        n = static(t.shape[axis])
        if n is None:
            raise unsupported(cx, "split of a symbolic dimension into equal chunks is not supported")
        sizes = [min(split_size, n - k) for k in range(0, n, split_size)]
    else:
        sizes = list(split_size)
    parts: list[Tensor] = []
    start: Dim = 0
    for k, size in enumerate(sizes):
        parts.append(ops.strided_slice(t, axis, start, start + size, 1, name=f"{cx.name}_{k}"))
        start = start + size
    return tuple(parts)


@aten("select.int")
def select(cx: Converter, x: Any, dim: int, index: int) -> Tensor:
    t = cx.tensor(x, "input")
    return ops.take(t, int(index), normalize_axis(int(dim), t.ndim, cx.name), name=cx.name)


@aten("sym_size.int")
def sym_size(cx: Converter, x: Any, dim: int) -> Dim:
    shape = x.shape if isinstance(x, Permuted) else cx.tensor(x, "input").shape
    return shape[normalize_axis(int(dim), len(shape), cx.name)]


def supported_ops() -> list[str]:
    """The ATen overloads the importer lowers (besides identities and ignored checks)."""
    return sorted([*OPS, *IDENTITY_OPS])

