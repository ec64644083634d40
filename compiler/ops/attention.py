"""Scaled dot-product attention, as a composition of the library's stages:

```
kt     = k^T * scale                         [..., E, S]   (<name>_kt)
scores = batch_matmul(q, kt)                 [..., L, S]   (<name>_scores)
bias   = the mask as 0 / lowest, or causal   [.., L, S]    (<name>_bias, the mask's shape)
m      = max_j (scores + bias)               [..., L]      (<name>_max)
p      = exp(scores + bias - m)              [..., L, S]   (<name>_exp)
l      = sum_j p, as 16 strided partial sums [..., L]      (<name>_sum_lanes, <name>_sum)
out    = batch_matmul(p, v) / l              [..., L, Ev]  (<name>_pv in <name>'s tile)
```

Every stage vectorizes: the mask is added rather than selected in the score
loops, exp is the vector polynomial of lower-to-llvm, the row sum runs on 16
lanes in the program's own order, and the normalisation is one division per
output element in the register tile of the last matmul.

Causal attention skips the triangle above the diagonal where a reduction
reads it: the row max and the product with V carry a `likely` `where` (k <= i),
and loop-partition cuts their loops at the diagonal. The scores matmul still
computes the whole square (a guard per element would stay in its vector loops
on the diagonal tiles).

What this is not (yet): FlashAttention's online softmax. The score matrix of a
call is materialized ([..., L, S] floats, three passes over it), so long
sequences are bound by memory traffic: at L = 2048, causal attention is at about
0.9x torch's kernel (bench/attention.py). Tiling the chain per block of query
rows, with the softmax rescaled per key block, needs a schedule that computes
several reductions at one consumer loop; the auto-scheduler does not make it.

Masked positions get the dtype's lowest finite value rather than -inf, so a row
whose every position is masked averages V uniformly instead of turning into
NaN (PyTorch returns NaN there); a float mask is added as given.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from compiler import te
from compiler.errors import ExprValueError
from compiler.ops.elementwise import truth
from compiler.ops.linalg import batch_matmul
from compiler.ops.util import accumulator_dtype, broadcast_read, broadcast_shape, lowest, static
from compiler.te import Dim, Expr, Tensor


def scaled_dot_product_attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    mask: Tensor | None = None,
    is_causal: bool = False,
    scale: float | None = None,
    name: str = "attention",
) -> Tensor:
    """softmax(q k^T * scale + mask) v, as PyTorch's `scaled_dot_product_attention` in
    inference (no dropout): q [..., L, E], k [..., S, E], v [..., S, Ev] -> [..., L, Ev],
    the batch dimensions broadcast. `scale` defaults to 1/sqrt(E). A `mask` broadcast to
    [..., L, S] is boolean (`MASK` int8: nonzero keeps a position) or float (added to the
    scores); `is_causal` keeps the positions j <= i (PyTorch's top-left aligned
    `tril`), and excludes a mask."""
    if q.ndim < 2 or k.ndim < 2 or v.ndim < 2:
        raise ExprValueError(f"{name}: q, k and v need at least two dimensions")
    if is_causal and mask is not None:
        raise ExprValueError(f"{name}: give a mask or is_causal, not both (as PyTorch)")
    e = static(q.shape[-1])
    if scale is None:
        if e is None:
            raise ExprValueError(f"{name}: the default scale needs a static head size, got {q.shape[-1]}")
        scale = 1.0 / math.sqrt(e)
    # k^T with the scale folded in, a stage of its own ([..., E, S]: the scores' vectors
    # run along S, contiguous in it; read transposed, k gave the matmul no vector axis,
    # GPT-2's scores ran at 6 GFLOP/s), scaled once per element instead of per score
    kt = te.compute(
        (*k.shape[:-2], k.shape[-1], k.shape[-2]),
        lambda *i: k[(*i[:-2], i[-1], i[-2])] * te.const(float(scale), k.dtype),
        name=f"{name}_kt",
    )
    scores = batch_matmul(q, kt, name=f"{name}_scores")
    shape = scores.shape if mask is None else broadcast_shape(scores.shape, mask.shape, name)
    acc = accumulator_dtype(scores.dtype, None)
    bias = _mask_bias(mask, is_causal, shape, acc, name)

    def masked(i: Sequence[Expr]) -> Expr:
        """The score at `i` in `acc`, the mask added where it is used (a stage of its own
        would be one more pass over the score matrix)."""
        s = broadcast_read(scores, shape, i).astype(acc)
        return s if bias is None else s + broadcast_read(bias, shape, i).astype(acc)

    row_shape = tuple(shape[:-1])
    j = te.reduce_axis((0, shape[-1]), "j")
    # causal: the positions past the diagonal are the lowest value, which cannot be the
    # maximum of a row that holds its diagonal; loop-partition cuts them off (`likely`)
    row_max = te.compute(
        row_shape,
        lambda *i: te.max(masked((*i, j)), axis=j, where=te.likely(j <= i[-1]) if is_causal else None),
        name=f"{name}_max",
    )
    exps = te.compute(shape, lambda *i: te.exp(masked(i) - row_max[i[:-1]]), name=f"{name}_exp")
    row_sum = _lane_sum(exps, f"{name}_sum")
    # causal: the terms past the diagonal are exp(lowest) = 0; `likely` lets loop-partition
    # cut the reduction there, so the triangle above it is never visited. The division by
    # the row sum comes after the product with V: once per output element, not per score
    below = (lambda row, _col, k: te.likely(k <= row)) if is_causal else None
    weighted = batch_matmul(exps, v, name=f"{name}_pv", out_dtype=acc, where=below)
    return te.compute(
        weighted.shape,
        lambda *i: (weighted[i] / row_sum[i[:-1]]).astype(q.dtype),
        name=name,
    )


SUM_LANES = 16
"""Partial sums per row of the exponentials: a row sum in program order is a chain of
scalar adds (4 cycles each); 16 interleaved partial sums are one or two vectors on any
SIMD width, and the order stays the program's, not the compiler's."""


def _lane_sum(x: Tensor, name: str) -> Tensor:
    """The sum of `x` over its last axis (n long): `SUM_LANES` strided partial sums over
    its whole chunks (stage `<name>_lanes`, vectorized along the lanes), added up with
    the n % SUM_LANES elements past them in `<name>`. Every read is in bounds without a
    guard (a guard on `chunk * 16 + lane < n` bounds two variables at once: infer-bound
    would realize x, and everything before it, rounded up to 16 columns)."""
    n = x.shape[-1]
    chunks = te.reduce_axis((0, n // SUM_LANES), "jo")
    lanes = te.compute(
        (*x.shape[:-1], SUM_LANES),
        lambda *i: te.sum(x[(*i[:-1], chunks * SUM_LANES + i[-1])], axis=chunks),
        name=f"{name}_lanes",
    )
    rows = tuple(x.shape[:-1])
    width = static(n)
    no_tail = width is not None and width % SUM_LANES == 0
    r = te.reduce_axis((0, SUM_LANES), "r")
    whole = te.compute(rows, lambda *i: te.sum(lanes[(*i, r)], axis=r), name=name if no_tail else f"{name}_chunks")
    if no_tail:
        return whole
    t = te.reduce_axis((0, n % SUM_LANES), "t")
    rest = te.compute(rows, lambda *i: te.sum(x[(*i, n // SUM_LANES * SUM_LANES + t)], axis=t), name=f"{name}_tail")
    return te.compute(rows, lambda *i: whole[i] + rest[i], name=name)


def _mask_bias(mask: Tensor | None, is_causal: bool, shape: Sequence[Dim], acc: str, name: str) -> Tensor | None:
    """What the mask adds to the scores: a float mask as it is; a boolean mask or the causal
    triangle as 0 where a position is kept and the lowest finite value where not (stage
    `<name>_bias`, the mask's shape: computed once, not once per head). Added, not selected:
    a select in the score loop would keep it from vectorizing."""
    if mask is not None and mask.dtype.startswith("float"):
        return mask
    zero, floor = te.const(0.0, acc), te.const(lowest(acc), acc)
    if is_causal:
        return te.compute(
            tuple(shape[-2:]), lambda i, j: te.if_then_else(j <= i, zero, floor), name=f"{name}_bias"
        )
    if mask is None:
        return None
    m = mask
    return te.compute(m.shape, lambda *i: te.if_then_else(truth(m[i]), zero, floor), name=f"{name}_bias")
