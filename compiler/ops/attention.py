"""Scaled dot-product attention, as a composition of the library's stages:

```
kt     = k^T * scale                         [..., E, S]   (<name>_kt)
scores = batch_matmul(q, kt)                 [..., L, S]   (<name>_scores)
bias   = the mask as 0 / lowest, or causal   [.., L, S]    (<name>_bias, the mask's shape)
m      = max_j (scores + bias), 32 lanes     [..., L]      (<name>_max_lanes, <name>_max)
p      = exp(scores + bias - m)              [..., L, S]   (<name>_exp)
l      = sum_j p, 32 lanes                   [..., L]      (<name>_sum_lanes, <name>_sum)
out    = batch_matmul(p, v) / l              [..., L, Ev]  (<name>_pv in <name>'s tile)
```

Every stage vectorizes: the mask is added rather than selected in the score
loops, exp is the vector polynomial of lower-to-llvm, the row max and sum run on
32 lanes in the program's own order, and the normalisation is one division per
output element in the register tile of the last matmul.

Fused per block of query rows: every stage from the scores to the row sum is read
row for row by the output, so when the score matrix would not fit in L2 the
auto-scheduler computes them per block of the output's rows, at its parallel loop
(`auto_schedule._row_blocks`): a block's scores and exponentials stay in cache, the
whole [..., L, S] matrix never exists, and each thread runs whole blocks. This is
FlashAttention's tiling of the query rows, not its online softmax: a block holds
whole rows of S scores (Br x S floats, a quarter of L2), so very long key
sequences make small blocks rather than a rescaled running sum.

Causal attention skips the triangle above the diagonal in every stage that reads
it: the scores sum only where their 64 x 64 block is on or below the diagonal
(the blocks above are 0, masked by the bias), the row max and sum only over the
lane chunks that start at or before it, the product with V only k <= i; each is a
`likely` `where` that loop-partition cuts at the diagonal. In row blocks,
infer-bound reads the same `where`s: a block's exponentials and scores are
computed only up to the chunk of its last row (the lower triangle, by blocks).

Masked positions get the dtype's lowest finite value rather than -inf, so a row
whose every position is masked averages V uniformly instead of turning into
NaN (PyTorch returns NaN there); a float mask is added as given.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence

from compiler import te
from compiler.errors import ExprValueError
from compiler.ops.elementwise import truth
from compiler.ops.linalg import batch_matmul
from compiler.ops.util import accumulator_dtype, broadcast_read, broadcast_shape, lowest, static
from compiler.te import Dim, Expr, Tensor
from compiler.te.nodes import is_float


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
    # 16-bit q and k: k^T and the scores in float32 (as torch's CPU kernel keeps them;
    # rounded to bf16, a bf16 attention's output was 1% off eager's)
    acc = accumulator_dtype(q.dtype, None)
    kt = te.compute(
        (*k.shape[:-2], k.shape[-1], k.shape[-2]),
        lambda *i: k[(*i[:-2], i[-1], i[-2])].astype(acc) * te.const(float(scale), acc),
        name=f"{name}_kt",
    )
    skip = (lambda row, col, _k: te.likely(col // CAUSAL_BLOCK <= row // CAUSAL_BLOCK)) if is_causal else None
    scores = batch_matmul(q, kt, name=f"{name}_scores", out_dtype=acc, where=skip)
    shape = scores.shape if mask is None else broadcast_shape(scores.shape, mask.shape, name)
    bias = _mask_bias(mask, is_causal, shape, acc, name)

    def masked(i: Sequence[Expr]) -> Expr:
        """The score at `i` in `acc`, the mask added where it is used (a stage of its own
        would be one more pass over the score matrix)."""
        s = broadcast_read(scores, shape, i).astype(acc)
        return s if bias is None else s + broadcast_read(bias, shape, i).astype(acc)

    # causal: the chunks of lanes past the diagonal hold the lowest value (in the max) and
    # 0 (in the sum) only; loop-partition cuts them off (`likely`)
    row_max = _lane_reduce(masked, shape, te.max, te.maximum, f"{name}_max", is_causal)
    exps = te.compute(shape, lambda *i: te.exp(masked(i) - row_max[i[:-1]]), name=f"{name}_exp")
    row_sum = _lane_reduce(lambda i: exps[i], shape, te.sum, operator.add, f"{name}_sum", is_causal)
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


CAUSAL_BLOCK = 64
"""Causal scores skip the blocks of CAUSAL_BLOCK x CAUSAL_BLOCK wholly above the diagonal."""

LANES = 32
"""Partial results per row of the max and the sum: a row reduction in program order is a
chain of scalar ops (4 cycles each for an add); 32 interleaved partial results are two to
four vectors on any SIMD width, whose chains overlap (16, one AVX-512 vector, left the
row max waiting on one chain of NaN-propagating maxima), and the order stays the
program's, not the compiler's."""


def _lane_reduce(
    value: Callable[[tuple[Expr, ...]], Expr], shape: Sequence[Dim],
    reducer: Callable[..., Expr], combine: Callable[[Expr, Expr], Expr], name: str, causal: bool,
) -> Tensor:
    """`reducer` of `value(i)` over the last axis of `shape` (n long): `LANES` strided
    partial results over its whole chunks (stage `<name>_lanes`, vectorized along the
    lanes), combined with the n % LANES elements past them in `<name>`. Every read is in
    bounds without a guard (a guard on `chunk * LANES + lane < n` bounds two variables at
    once: infer-bound would realize x, and everything before it, rounded up to 16
    columns). `causal`: only the chunks that start at or before the row's diagonal (the
    same in every lane, so the guard stays out of the vectors)."""
    n = shape[-1]
    rows = tuple(shape[:-1])
    chunks = te.reduce_axis((0, n // LANES), "jo")

    def lane(*i: Expr) -> Expr:
        where = te.likely(chunks * LANES <= i[-2]) if causal else None
        return reducer(value((*i[:-1], chunks * LANES + i[-1])), axis=chunks, where=where)

    lanes = te.compute((*rows, LANES), lane, name=f"{name}_lanes")
    width = static(n)
    no_tail = width is not None and width % LANES == 0
    r = te.reduce_axis((0, LANES), "r")
    whole = te.compute(rows, lambda *i: reducer(lanes[(*i, r)], axis=r), name=name if no_tail else f"{name}_chunks")
    if no_tail:
        return whole
    t = te.reduce_axis((0, n % LANES), "t")
    rest = te.compute(rows, lambda *i: reducer(value((*i, n // LANES * LANES + t)), axis=t), name=f"{name}_tail")
    return te.compute(rows, lambda *i: combine(whole[i], rest[i]), name=name)


def _mask_bias(mask: Tensor | None, is_causal: bool, shape: Sequence[Dim], acc: str, name: str) -> Tensor | None:
    """What the mask adds to the scores: a float mask as it is; a boolean mask or the causal
    triangle as 0 where a position is kept and the lowest finite value where not (stage
    `<name>_bias`, the mask's shape: computed once, not once per head). Added, not selected:
    a select in the score loop would keep it from vectorizing."""
    if mask is not None and is_float(mask.dtype):
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
