"""Converters of the ops a mixture of experts routes its tokens with: `aten.histc` (the
experts' token counts) and the grouped matmul of `transformers`' experts
(`transformers::grouped_mm_fallback`, which stands for torch's `_grouped_mm` under
export, and `_grouped_mm` itself).

Shapes stay static although the groups' sizes are data: each row of a grouped matmul
finds its group by counting the group ends at or before it (a reduction over the few
experts), and multiplies by that group's weight. A histogram bin counts the elements
whose bin, computed as torch's CPU kernel computes it (`(x - min) * bins / (max - min)`,
truncated, in the input's dtype), is that bin.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from compiler import ops, te
from compiler.ops.index import clamp_index
from compiler.ops.util import static
from compiler.te import Dim, Expr, Tensor
from compiler.te.nodes import is_float
from compiler.torch.aten import OPS, aten, unsupported, weight_block
from compiler.torch.graph import Converter, host_array


@aten("histc.default")
def histc(cx: Converter, x: Any, bins: int = 100, min: float = 0.0, max: float = 0.0) -> Tensor:  # the schema's names
    t = cx.tensor(x, "input")
    if not is_float(t.dtype):
        raise unsupported(cx, f"histc of a {t.dtype} tensor (torch's CPU kernel takes floats only)")
    lo, hi, n = float(min), float(max), int(bins)
    if not lo < hi:
        raise unsupported(cx, f"histc with min {lo:g} >= max {hi:g} (a range taken from the data) is not supported")
    if n < 1:
        raise unsupported(cx, f"histc with {n} bins")
    dtype = t.dtype
    low, high, scale = te.const(lo, dtype), te.const(hi, dtype), te.const(float(n), dtype)
    width = te.const(float(np.dtype(dtype).type(hi) - np.dtype(dtype).type(lo)), dtype)  # rounded as torch's

    def count(b: Expr) -> Expr:
        axes = [te.reduce_axis((0, d), f"r{k}") for k, d in enumerate(t.shape)]
        v = t[tuple(a.var for a in axes)] if axes else t[()]
        # torch's bin, in the input's dtype and its order of operations: a bin computed
        # otherwise (from edges, or in float64) differs for values on or near an edge
        position = clamp_index((v - low) * scale / width, n)  # truncated; max lands in the last bin
        inside = te.all(low <= v, v <= high)
        one = te.if_then_else(te.all(inside, position == b), te.const(1.0, dtype), te.const(0.0, dtype))
        return te.sum(one, axis=axes) if axes else one

    return te.compute((n,), count, name=cx.name)


def grouped_mm(cx: Converter, x: Any, weight: Any, offs: Any = None, *rest: Any, **kwargs: Any) -> Tensor:
    """Row s of `x` [S, K] times the weight [E, K, N] of its group: the first group whose
    end (`offs`, cumulative) is past s. Rows past the last end are zeros (as the fallback
    writes them)."""
    a = cx.tensor(x, "input")
    blocked = _blocked_by_column(cx, weight)
    if blocked is None:
        w = cx.tensor(weight, "weight")
        shape: tuple[Dim, ...] = tuple(w.shape)

        def weight_at(g: Expr, k: Expr, col: Expr) -> Expr:
            return w[g, k, col]
    else:
        wb, nb = blocked
        shape = (wb.shape[0], wb.shape[2], wb.shape[1] * nb)

        def weight_at(g: Expr, k: Expr, col: Expr) -> Expr:
            return wb[g, col // nb, k, col % nb]

    if offs is None or a.ndim != 2 or len(shape) != 3 or any(v is not None for v in (*rest, *kwargs.values())):
        raise unsupported(cx, "only a grouped matmul of a 2-D input by 3-D weights with offsets, no bias or "
                              "output dtype, is supported")
    ends = cx.tensor(offs, "offsets")
    rows, groups = a.shape[0], static(shape[0])
    if groups is None:
        raise unsupported(cx, "a grouped matmul needs a static number of groups (the weights' first dimension)")

    def group_of(s: Expr) -> Expr:
        j = te.reduce_axis((0, groups), "j")
        at_or_before = ends[j.var].astype("int64") <= s.astype("int64")
        return te.sum(te.if_then_else(at_or_before, te.const(1, "int64"), te.const(0, "int64")), axis=j)

    group = te.compute((rows,), group_of, name=f"{cx.name}_group")

    def product(s: Expr, col: Expr) -> Expr:
        k = te.reduce_axis((0, a.shape[1]), "k")
        return te.sum(a[s, k.var] * weight_at(clamp_index(group[s], groups), k.var, col), axis=k)

    raw = te.compute((rows, shape[2]), product, name=f"{cx.name}_rows")
    zero = te.const(0.0, raw.dtype)
    return te.compute(
        raw.shape, lambda s, col: te.if_then_else(group[s] < groups, raw[s, col], zero), name=cx.name
    )


def _blocked_by_column(cx: Converter, weight: Any) -> tuple[Tensor, int] | None:
    """Constant expert weights [E, K, N] as [E, N / nb, K, nb] (`ops.block_grouped_weight`:
    `linear`'s blocking, per expert), nb the register tile's width: a tile's column panel
    of one expert is then contiguous over the whole reduction. Unblocked, its K rows lay
    N elements apart, a page apart for Mixtral's 4096 columns, and the rows of a tile,
    each reading its own expert, streamed them from memory page by page (41-58 GFLOP/s
    against a linear's 220). None for weights computed at run time, or of another dtype
    or rank."""
    if not isinstance(weight, torch.Tensor) or weight.ndim != 3 or weight.dtype not in (torch.float32, torch.float16):
        return None
    nb = weight_block(int(weight.shape[2]), weight.dtype)
    blocked = cx.blocked_param(
        weight, f"experts/{nb}", lambda: ops.block_grouped_weight(host_array(weight), nb)
    )
    return blocked, nb


OPS["transformers.grouped_mm_fallback.default"] = grouped_mm
OPS["aten._grouped_mm.default"] = grouped_mm
