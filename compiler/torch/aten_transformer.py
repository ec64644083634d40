"""ATen converters for what transformers export to, beside `aten.py`'s CNN set:
integer and boolean tensors, comparisons and selection, tensor creation,
indexing (embedding, gather, index), cumulative sums, padding modes,
attention and a few shape ops.

Registering happens on import (`compiler.torch` imports this module). Boolean
tensors are int8 masks holding 0 or 1 (`ops.MASK`); a result's dtype is
torch's (`node.meta["val"]`): operands are converted to it first, as torch's
type promotion does, so `int64 + float` adds floats and `int64 / int64`
divides them.

WARNING: indices are clamped into range rather than checked (see
`compiler.ops.index`): a token id outside the vocabulary reads the nearest row
where torch raises.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import fx

from compiler import ops, te
from compiler.ops.util import in_float32, normalize_axis, static
from compiler.te import Dim, Expr, Tensor
from compiler.te.nodes import is_float
from compiler.torch.aten import OPS, Value, as_dtype, aten, pointwise, result_dtype, unsupported
from compiler.torch.graph import Converter, Permuted, te_dtype

Operand = Tensor | float | int


def _example(cx: Converter, a: object) -> torch.Tensor | int | float | bool:
    """An argument's example value (a tensor's fake tensor, a SymInt's hint)."""
    val = a.meta.get("val") if isinstance(a, fx.Node) else a
    if isinstance(val, torch.SymInt | torch.SymFloat | torch.SymBool):
        val = val.node.hint
    if not isinstance(val, torch.Tensor | int | float | bool):
        raise unsupported(cx, f"an operand is a {type(val).__name__}, expected a tensor or a number")
    return val


def common_dtype(cx: Converter) -> str:
    """torch's promoted dtype of the node's first two arguments (a comparison's operands)."""
    assert cx.node is not None
    a, b = (_example(cx, v) for v in cx.node.args[:2])
    if not isinstance(a, torch.Tensor):  # result_type takes a tensor first
        a, b = b, a
    assert isinstance(a, torch.Tensor)
    return te_dtype(torch.result_type(a, b), cx.name)


def _operands(cx: Converter, a: Any, b: Any, dtype: str) -> tuple[Operand, Operand]:
    lhs, rhs = cx.operand(a, "self"), cx.operand(b, "other")
    return as_dtype(cx, lhs, dtype, "self"), as_dtype(cx, rhs, dtype, "other")


def _tensor_in(cx: Converter, v: Any, dtype: str, what: str) -> Tensor:
    t = as_dtype(cx, cx.tensor(v, what), dtype, what)
    assert isinstance(t, Tensor)
    return t


# ---------------------------------------------------------------------------
# Comparisons, logic, selection
# ---------------------------------------------------------------------------


def _comparison(fn: Callable[..., Tensor]) -> Callable[..., Tensor]:
    def convert(cx: Converter, a: Any, b: Any) -> Tensor:
        lhs, rhs = _operands(cx, a, b, common_dtype(cx))
        return fn(lhs, rhs, name=cx.name)

    return convert


for _op, _fn in (
    ("eq", ops.equal), ("ne", ops.not_equal), ("lt", ops.less), ("le", ops.less_equal), ("gt", ops.greater),
    ("ge", ops.greater_equal),
):
    OPS[f"aten.{_op}.Tensor"] = OPS[f"aten.{_op}.Scalar"] = _comparison(_fn)


@aten("logical_not.default")
def logical_not(cx: Converter, x: Any) -> Tensor:
    return ops.logical_not(cx.tensor(x, "self"), name=cx.name)


@aten("where.self", "where.ScalarSelf", "where.ScalarOther", "where.Scalar")
def where(cx: Converter, cond: Any, a: Any, b: Any) -> Tensor:
    dtype = result_dtype(cx) or "float32"
    lhs = as_dtype(cx, cx.operand(a, "self"), dtype, "self")
    rhs = as_dtype(cx, cx.operand(b, "other"), dtype, "other")
    if not isinstance(lhs, Tensor) and not isinstance(rhs, Tensor):
        lhs = ops.full((), lhs, dtype, name=f"{cx.name}_self")
    return ops.where(cx.tensor(cond, "condition"), lhs, rhs, name=cx.name)


@aten("masked_fill.Scalar", "masked_fill.Tensor")
def masked_fill(cx: Converter, x: Any, mask: Any, value: Any) -> Tensor:
    t = cx.tensor(x, "self")
    fill = cx.operand(value, "value")
    return ops.where(cx.tensor(mask, "mask"), as_dtype(cx, fill, t.dtype, "value"), t, name=cx.name)


# ---------------------------------------------------------------------------
# Creation
# ---------------------------------------------------------------------------


def _fill(cx: Converter, size: Sequence[Dim], value: Any) -> Tensor:
    dtype = result_dtype(cx) or "float32"
    fill = cx.operand(value, "fill_value")
    if isinstance(fill, Tensor):
        return ops.broadcast_to(_tensor_in(cx, fill, dtype, "fill_value"), tuple(size), name=cx.name)
    return ops.full(tuple(size), bool(fill) if dtype == ops.MASK else fill, dtype, name=cx.name)


@aten("full.default")
def full(cx: Converter, size: Sequence[Dim], fill_value: Any, **kwargs: Any) -> Tensor:
    return _fill(cx, size, fill_value)


@aten("zeros.default", "empty.memory_format")
def zeros(cx: Converter, size: Sequence[Dim], **kwargs: Any) -> Tensor:
    return _fill(cx, size, 0)


@aten("ones.default")
def ones(cx: Converter, size: Sequence[Dim], **kwargs: Any) -> Tensor:
    return _fill(cx, size, 1)


@aten("scalar_tensor.default")
def scalar_tensor(cx: Converter, value: Any, **kwargs: Any) -> Tensor:
    return _fill(cx, (), value)


def _shape_of(cx: Converter, x: Any) -> tuple[Dim, ...]:
    return tuple(x.shape) if isinstance(x, Permuted | Tensor | torch.Tensor) else tuple(cx.tensor(x, "self").shape)


@aten("full_like.default")
def full_like(cx: Converter, x: Any, fill_value: Any, **kwargs: Any) -> Tensor:
    return _fill(cx, _shape_of(cx, x), fill_value)


@aten("zeros_like.default", "empty_like.default")
def zeros_like(cx: Converter, x: Any, **kwargs: Any) -> Tensor:
    return _fill(cx, _shape_of(cx, x), 0)


@aten("ones_like.default")
def ones_like(cx: Converter, x: Any, **kwargs: Any) -> Tensor:
    return _fill(cx, _shape_of(cx, x), 1)


@aten("new_full.default")
def new_full(cx: Converter, x: Any, size: Sequence[Dim], fill_value: Any, **kwargs: Any) -> Tensor:
    return _fill(cx, size, fill_value)


@aten("new_zeros.default", "new_empty.default")
def new_zeros(cx: Converter, x: Any, size: Sequence[Dim], **kwargs: Any) -> Tensor:
    return _fill(cx, size, 0)


@aten("new_ones.default")
def new_ones(cx: Converter, x: Any, size: Sequence[Dim], **kwargs: Any) -> Tensor:
    return _fill(cx, size, 1)


@aten("arange.default", "arange.start", "arange.start_step")
def arange(cx: Converter, *args: Any, **kwargs: Any) -> Tensor:
    numbers = list(args)
    start, end, step = (0, numbers[0], 1) if len(numbers) == 1 else (*numbers[:2], numbers[2] if len(numbers) > 2 else 1)
    dtype = result_dtype(cx) or "int64"
    return ops.arange(start, end, step, dtype, name=cx.name)


# ---------------------------------------------------------------------------
# Indexing
# ---------------------------------------------------------------------------


@aten("embedding.default")
def embedding(cx: Converter, weight: Any, indices: Any, padding_idx: int = -1, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    return ops.embedding(cx.tensor(weight, "weight"), cx.tensor(indices, "indices"), name=cx.name)


@aten("gather.default")
def gather(cx: Converter, x: Any, dim: int, index: Any, sparse_grad: bool = False) -> Tensor:
    return ops.gather(cx.tensor(x, "self"), int(dim), cx.tensor(index, "index"), name=cx.name)


@aten("index_select.default")
def index_select(cx: Converter, x: Any, dim: int, index: Any) -> Tensor:
    t, i = cx.tensor(x, "self"), cx.tensor(index, "index")
    if t.ndim == 0:  # a 0-d tensor indexed at 0
        return te.compute((), lambda: t[()], name=cx.name)
    if i.ndim == 0:
        i = ops.reshape(i, (1,), name=f"{cx.name}_index")
    return ops.index_select(t, int(dim), i, name=cx.name)


@aten("index.Tensor")
def index(cx: Converter, x: Any, indices: Sequence[Any]) -> Tensor:
    items = [None if i is None else cx.tensor(i, f"indices[{k}]") for k, i in enumerate(indices)]
    if any(t is not None and t.dtype == ops.MASK and _is_bool(cx, k) for k, t in enumerate(items)):
        raise unsupported(cx, "indexing with a boolean mask (a data-dependent shape) is not supported")
    return ops.advanced_index(cx.tensor(x, "self"), items, name=cx.name)


def _is_bool(cx: Converter, k: int) -> bool:
    assert cx.node is not None
    items = cx.node.args[1]
    assert isinstance(items, list | tuple)
    node = items[k]
    val = node.meta.get("val") if isinstance(node, fx.Node) else None
    return isinstance(val, torch.Tensor) and val.dtype == torch.bool


@aten("cumsum.default")
def cumsum(cx: Converter, x: Any, dim: int, dtype: torch.dtype | None = None) -> Tensor:
    out = result_dtype(cx)
    t = _tensor_in(cx, x, out, "self") if out is not None else cx.tensor(x, "self")
    return ops.cumsum(t, int(dim), name=cx.name)


@aten("diff.default")
def diff(cx: Converter, x: Any, n: int = 1, dim: int = -1, prepend: Any = None, append: Any = None) -> Tensor:
    """x[1:] - x[:-1] along `dim`, `n` times, after joining prepend and append (bools: !=)."""
    t = cx.tensor(x, "self")
    axis = normalize_axis(int(dim), t.ndim, cx.name)
    parts = [cx.tensor(v, what) for v, what in ((prepend, "prepend"), (t, "self"), (append, "append")) if v is not None]
    if len(parts) > 1:
        t = ops.concatenate(parts, axis, name=f"{cx.name}_joined")
    for k in range(int(n)):
        hi = ops.strided_slice(t, axis, 1, None, name=f"{cx.name}_hi{k}")
        lo = ops.strided_slice(t, axis, 0, -1, name=f"{cx.name}_lo{k}")
        is_last = k == int(n) - 1
        name = cx.name if is_last else f"{cx.name}_{k}"
        t = ops.not_equal(hi, lo, name=name) if t.dtype == ops.MASK else ops.subtract(hi, lo, name=name)
    return t


# ---------------------------------------------------------------------------
# Padding
# ---------------------------------------------------------------------------


def pad_stage(cx: Converter, x: Tensor, pads: Sequence[int], mode: str, value: float) -> Tensor:
    """torch's pad list (last dimension first, before/after pairs; negative values crop)."""
    if len(pads) % 2 or len(pads) // 2 > x.ndim:
        raise unsupported(cx, f"pad: {len(pads)} pad values for {x.ndim} dimensions")
    before, after = [0] * x.ndim, [0] * x.ndim
    for k in range(len(pads) // 2):
        before[x.ndim - 1 - k], after[x.ndim - 1 - k] = int(pads[2 * k]), int(pads[2 * k + 1])
    for d in range(x.ndim):  # a negative pad crops
        if before[d] < 0 or after[d] < 0:
            end = after[d] if after[d] < 0 else None
            x = ops.strided_slice(x, d, max(0, -before[d]), end, name=f"{cx.name}_crop{d}")
            before[d], after[d] = max(0, before[d]), max(0, after[d])
    return ops.pad(x, before, after, value, name=cx.name, mode=mode)


@aten("pad.default")
def pad(cx: Converter, x: Any, pad: Sequence[int], mode: str = "constant", value: float | None = None) -> Tensor:
    return pad_stage(cx, cx.tensor(x, "input"), pad, mode, 0.0 if value is None else float(value))


@aten("constant_pad_nd.default")
def constant_pad_nd(cx: Converter, x: Any, pad: Sequence[int], value: float = 0) -> Tensor:
    return pad_stage(cx, cx.tensor(x, "input"), pad, "constant", float(value))


def _mode_pad(mode: str) -> Callable[..., Tensor]:
    def convert(cx: Converter, x: Any, padding: Sequence[int]) -> Tensor:
        return pad_stage(cx, cx.tensor(x, "input"), padding, mode, 0.0)

    return convert


for _d in (1, 2, 3):
    OPS[f"aten.reflection_pad{_d}d.default"] = _mode_pad("reflect")
    OPS[f"aten.replication_pad{_d}d.default"] = _mode_pad("replicate")


# ---------------------------------------------------------------------------
# Attention and batched products
# ---------------------------------------------------------------------------


@aten("scaled_dot_product_attention.default")
def scaled_dot_product_attention(
    cx: Converter, q: Any, k: Any, v: Any, attn_mask: Any = None, dropout_p: float = 0.0, is_causal: bool = False,
    *, scale: float | None = None, enable_gqa: bool = False,
) -> Tensor:
    if dropout_p != 0:
        raise unsupported(cx, f"attention with dropout_p={dropout_p} is not supported (inference: 0)")
    if enable_gqa:
        raise unsupported(cx, "attention with enable_gqa=True is not supported")
    mask = None if attn_mask is None else cx.tensor(attn_mask, "attn_mask")
    tq, tk, tv = cx.tensor(q, "query"), cx.tensor(k, "key"), cx.tensor(v, "value")
    if mask is not None and is_float(mask.dtype) and mask.dtype != tq.dtype:
        mask = ops.cast(mask, tq.dtype, name=f"{cx.name}_mask_{tq.dtype}")
    return ops.scaled_dot_product_attention(tq, tk, tv, mask, bool(is_causal), scale, name=cx.name)


@aten("baddbmm.default")
def baddbmm(cx: Converter, bias: Any, a: Any, b: Any, *, beta: float = 1, alpha: float = 1) -> Tensor:
    """beta * bias + alpha * (a @ b), batched."""
    p = ops.batch_matmul(cx.tensor(a, "batch1"), cx.tensor(b, "batch2"), name=cx.name)
    if alpha != 1:
        p = ops.multiply(p, float(alpha), name=f"{cx.name}_alpha")
    if beta == 0:
        return p
    c = cx.operand(bias, "self")
    if beta != 1:
        c = ops.multiply(c, float(beta), name=f"{cx.name}_beta") if isinstance(c, Tensor) else c * beta
    return ops.add(p, c, name=f"{cx.name}_bias")


# ---------------------------------------------------------------------------
# Elementwise and shapes
# ---------------------------------------------------------------------------


def _power(a: Expr, b: Expr) -> Expr:
    return in_float32(te.power, a, b)


@aten("pow.Tensor_Tensor")
def pow_tensor(cx: Converter, x: Any, exponent: Any) -> Tensor:
    dtype = result_dtype(cx) or "float32"
    if not is_float(dtype):
        raise unsupported(cx, f"pow of {dtype} tensors is not supported (float only)")
    lhs, rhs = _operands(cx, x, exponent, dtype)
    return ops.broadcast_binary(lhs, rhs, _power, name=cx.name)


@aten("pow.Scalar")
def pow_scalar_base(cx: Converter, base: float, exponent: Any) -> Tensor:
    dtype = result_dtype(cx) or "float32"
    if not is_float(dtype):
        raise unsupported(cx, f"pow of {dtype} tensors is not supported (float only)")
    return ops.broadcast_binary(float(base), _tensor_in(cx, exponent, dtype, "exponent"), _power, name=cx.name)


@aten("reciprocal.default")
def reciprocal(cx: Converter, x: Any) -> Value:
    return pointwise(cx, x, lambda t: ops.reciprocal(t, name=cx.name))


@aten("clamp_min.default")
def clamp_min(cx: Converter, x: Any, min: float) -> Value:
    return pointwise(cx, x, lambda t: ops.clip(t, float(min), None, name=cx.name))


@aten("clamp_max.default")
def clamp_max(cx: Converter, x: Any, max: float) -> Value:
    return pointwise(cx, x, lambda t: ops.clip(t, None, float(max), name=cx.name))


@aten("repeat.default")
def repeat(cx: Converter, x: Any, repeats: Sequence[int]) -> Tensor:
    return ops.repeat(cx.tensor(x, "self"), [int(r) for r in repeats], name=cx.name)


@aten("unbind.int")
def unbind(cx: Converter, x: Any, dim: int = 0) -> tuple[Tensor, ...]:
    t = cx.tensor(x, "self")
    axis = normalize_axis(int(dim), t.ndim, cx.name)
    n = static(t.shape[axis])
    if n is None:
        raise unsupported(cx, "unbind of a symbolic dimension is not supported")
    return tuple(ops.take(t, k, axis, name=f"{cx.name}_{k}") for k in range(n))


@aten("chunk.default")
def chunk(cx: Converter, x: Any, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    t = cx.tensor(x, "self")
    axis = normalize_axis(int(dim), t.ndim, cx.name)
    n = static(t.shape[axis])
    if n is None:
        raise unsupported(cx, "chunk of a symbolic dimension is not supported")
    size = -(-n // int(chunks))
    return tuple(
        ops.strided_slice(t, axis, s, min(s + size, n), name=f"{cx.name}_{k}") for k, s in enumerate(range(0, n, size))
    )
