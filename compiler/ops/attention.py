"""Scaled dot-product attention, as a composition of the library's stages:

```
kt     = k^T * scale                        [..., E, S]   (stage <name>_kt)
scores = batch_matmul(q, kt)                [..., L, S]   (stage <name>_scores)
biased = scores + mask | where(mask, scores, lowest) | causal guard   (<name>_masked)
probs  = softmax(biased, -1)                (<name>_softmax*: max, sum of exps, normalise)
out    = batch_matmul(probs, v)             [..., L, Ev]
```

The whole L x S score matrix is materialized (three passes over it: scores, max
and exp-sum, normalise); a fused online-softmax stage (FlashAttention) is not
written yet.

Masked positions get the dtype's lowest finite value rather than -inf, so a row
whose every position is masked averages V uniformly instead of turning into
NaN (PyTorch returns NaN there); a float mask is added as given.
"""

from __future__ import annotations

import math

from compiler import te
from compiler.errors import ExprValueError
from compiler.ops.elementwise import truth
from compiler.ops.linalg import batch_matmul
from compiler.ops.reduce import softmax
from compiler.ops.util import broadcast_read, broadcast_shape, lowest, static
from compiler.te import Expr, Tensor


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
    dtype = scores.dtype
    floor = te.const(lowest(dtype), dtype)

    def element(*i: Expr) -> Expr:
        s = broadcast_read(scores, shape, i)
        if is_causal:
            return te.if_then_else(i[-1] <= i[-2], s, floor)
        if mask is None:
            return s
        m = broadcast_read(mask, shape, i)
        if m.dtype.startswith("float"):
            return s + m.astype(dtype)
        return te.if_then_else(truth(m), s, floor)

    masked = te.compute(shape, element, name=f"{name}_masked")
    probs = softmax(masked, -1, name=f"{name}_softmax")
    return batch_matmul(probs, v, name=name)
