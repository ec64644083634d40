"""Converters of the quantized linears (`compiler.torch.quantize`'s custom ops): one te
reduction each, reading the packed weight and dequantizing it in the reduction's loop.

```
xdsl_tc.linear_int8(x, w int8 [N, K], scale [N], bias)
   acc[..., j] = sum_k x[..., k] * float(wb[j / nb, k, j % nb])      wb: int8 [N / nb, K, nb]
   y[..., j]   = acc[..., j] * scale[j] (+ bias[j])                  (the epilogue)
xdsl_tc.linear_int4(x, w uint8 [N, K / 2], scales [N, K / 32], bias)
   v(j, k) = (int32(wb[j / nb, k / 2, j % nb]) >> 4 * (k % 2)) & 15       wb: int8 [N / nb, K / 2, nb]
   y[..., j] = sum_g sb[j / nb, g / 4, j % nb]                             g: parts of 8 inputs
                 * (sum_{k in part g} x[..., k] * v(j, k)  -  8 * sum_{k in part g} x[..., k])
```

The weights are blocked by output as `linear`'s float ones are (`ops.block_dense_weight`:
the register tile's nb output lanes are contiguous for every k), and so are int4's group
scales; nothing else is copied. No stage holds a float weight: the dequantization is part
of the product's body, so the weight is read packed (1 or 1/2 byte an element) where the
auto-scheduler's register tile loads it. int8's scale is per output, so it multiplies the
sum once. int4's varies along k: each step of its reduction sums 8 inputs written out
(the two nibbles of a byte with constant shifts), which one scale multiplies, and the
offset 8 of the stored values is taken off once a step as 8 times the inputs' sum (the
same for every output: it stays out of the vector lanes). A decode-shaped int4 product
(1 x 2048 x 5632, one thread) takes about a third of the float one's time.

The packed int4 bytes are bound as int8 (the same bits): the nibbles come out of an
arithmetic shift and a mask of 15 whatever the sign.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from compiler import ops, te
from compiler.analysis.target import channel_block, host_target
from compiler.ops.util import HALF_FLOATS
from compiler.te import Expr, Tensor
from compiler.torch.aten import OPS
from compiler.torch.graph import Converter, UnsupportedOperatorError
from compiler.torch.quantize import GROUP, INT4_OFFSET


def _packed(cx: Converter, value: Any, what: str) -> torch.Tensor:
    """A quantized linear's weight or scales: constants of the module, or the op is refused."""
    if not isinstance(value, torch.Tensor) or value.ndim != 2:
        raise UnsupportedOperatorError(f"the {what} must be a 2-D constant of the module (a buffer)", cx.node)
    return value  # (the importer's constant itself: its id names it after the buffer)


def _blocked(cx: Converter, value: torch.Tensor, nb: int, suffix: str, *, as_int8: bool = False) -> Tensor:
    """`value` [N, C] (its bits as int8 if `as_int8`) as [N / nb, C, nb], a constant of the
    network named after the module's buffer."""
    return cx.blocked_param(
        value, f"dense/{nb}/{as_int8}",
        lambda: ops.block_dense_weight((value.view(torch.int8) if as_int8 else value).contiguous().numpy(), nb),
        suffix,
    )


def _float_input(cx: Converter, x: Any) -> Tensor:
    """The input in float32: a 16-bit float input (a bf16 model's) widened, exactly."""
    t = cx.tensor(x, "input")
    if t.dtype in HALF_FLOATS:
        return ops.cast(t, "float32", name=f"{cx.name}_wide")
    if t.dtype != "float32":
        raise UnsupportedOperatorError(f"a quantized linear's input must be a float, got {t.dtype}", cx.node)
    return t


def _float32(value: Any) -> Any:
    """A constant (scales, a bias) of a 16-bit float model in float32, what the product computes in."""
    return value.float() if isinstance(value, torch.Tensor) and value.dtype in (torch.float16, torch.bfloat16) else value


def _with_bias(cx: Converter, y: Tensor, bias: Any, dtype: str) -> Tensor:
    """y plus the bias, in the input's dtype `dtype` (rounded once, from float32)."""
    if bias is not None:
        y = ops.add(y, cx.tensor(_float32(bias), "bias"), name=f"{cx.name}_bias")
    return y if dtype == y.dtype else ops.cast(y, dtype, name=f"{cx.name}_{dtype}")


def linear_int8(cx: Converter, x: Any, weight: Any, scale: Any, bias: Any = None) -> Tensor:
    dtype = cx.tensor(x, "input").dtype
    t = _float_input(cx, x)
    w = _packed(cx, weight, "int8 weight")
    n, k_extent = (int(d) for d in w.shape)
    nb = channel_block(n, host_target(), 32)
    wb = _blocked(cx, w, nb, "weight")
    scales = cx.tensor(_float32(scale), "scale")
    k = te.reduce_axis((0, k_extent), "k")

    def term(*i: Expr) -> Expr:
        j = i[-1]
        return te.sum(t[(*i[:-1], k)] * wb[j // nb, k, j % nb].astype("float32"), axis=k)

    acc = te.compute((*t.shape[:-1], n), term, name=f"{cx.name}_acc")
    y = te.compute(acc.shape, lambda *i: acc[i] * scales[i[-1]], name=cx.name)
    return _with_bias(cx, y, bias, dtype)


TERMS = 8
"""Inputs a step of the int4 reduction sums (a part of a group: one scale multiplies
their sum). Measured on 1 x 2048 x 5632 and 32 x 2048 x 5632 products (with a balanced
sum of the terms, before `_chain_sum`): a whole group (32) decoded as fast and took
twice the 32-row time, its unrolled rows' terms spilling registers; 4 was slower at both."""


def nibble(byte: Expr, half: int) -> Expr:
    """The stored value (in [0, 15], as float32) in the low (half 0) or high (half 1)
    nibble of a byte, widened first: x86 has no 8-bit vector shifts."""
    wide = byte.astype("int32")
    shifted = te.shift_right(wide, te.const(4, "int32")) if half else wide
    return te.bitwise_and(shifted, te.const(15, "int32")).astype("float32")


def group_term(x_of: Callable[[Expr], Expr], byte_of: Callable[[Expr], Expr], g: Expr) -> Expr:
    """sum over the TERMS inputs of part g of a group of x * (q - 8), q the stored values:
    the products of the stored values, less 8 times the sum of the inputs (one per part
    and row, the same for every output: LLVM computes it once outside the vector lanes)."""
    first = g * TERMS
    products = [x_of(first + i) * nibble(byte_of(g * (TERMS // 2) + i // 2), i % 2) for i in range(TERMS)]
    inputs = [x_of(first + i) for i in range(TERMS)]
    return _chain_sum(products) - float(INT4_OFFSET) * _chain_sum(inputs)


def _chain_sum(terms: list[Expr]) -> Expr:
    """((t0 + t1) + t2) + ...: a sum of products is then a chain of multiply-adds (one
    instruction a term; a balanced tree takes a multiply and an add for half of them)."""
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    return total


def linear_int4(cx: Converter, x: Any, weight: Any, scales: Any, bias: Any = None) -> Tensor:
    dtype = cx.tensor(x, "input").dtype
    t = _float_input(cx, x)
    w = _packed(cx, weight, "packed int4 weight")
    s = _float32(_packed(cx, scales, "int4 scales"))
    n, k_extent = int(w.shape[0]), 2 * int(w.shape[1])
    if s.shape[1] * GROUP != k_extent:
        raise UnsupportedOperatorError(f"{s.shape[1]} int4 groups of {GROUP} do not cover {k_extent} inputs", cx.node)
    nb = channel_block(n, host_target(), 32)
    wb = _blocked(cx, w, nb, "weight", as_int8=True)
    sb = _blocked(cx, s, nb, "scales")
    g = te.reduce_axis((0, k_extent // TERMS), "g")  # a part of a group: its scale multiplies once

    def term(*i: Expr) -> Expr:
        j = i[-1]
        part = group_term(lambda k: t[(*i[:-1], k)], lambda k2: wb[j // nb, k2, j % nb], g)
        return te.sum(sb[j // nb, g // (GROUP // TERMS), j % nb] * part, axis=g)

    y = te.compute((*t.shape[:-1], n), term, name=cx.name)
    return _with_bias(cx, y, bias, dtype)


OPS["xdsl_tc.linear_int8.default"] = linear_int8
OPS["xdsl_tc.linear_int4.default"] = linear_int4

__all__ = ["group_term", "linear_int4", "linear_int8", "nibble"]
