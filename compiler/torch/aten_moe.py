"""Converters of the ops a mixture of experts routes its tokens with: `aten.histc` (the
experts' token counts) and the grouped matmul of `transformers`' experts
(`transformers::grouped_mm_fallback`, which stands for torch's `_grouped_mm` under
export, and `_grouped_mm` itself).

Shapes stay static although the groups' sizes are data: each row of a grouped matmul
finds its group by counting the group ends at or before it (a reduction over the few
experts), and multiplies by that group's weight. A histogram bin counts the elements
between its two edges, the edges being torch's own (`torch.linspace`), so an element on
an edge lands in the bin torch puts it in.
"""

from __future__ import annotations

from typing import Any

import torch

from compiler import te
from compiler.ops.index import clamp_index
from compiler.ops.util import static
from compiler.te import Expr, Tensor
from compiler.torch.aten import OPS, aten, unsupported
from compiler.torch.graph import Converter


@aten("histc.default")
def histc(cx: Converter, x: Any, bins: int = 100, min: float = 0.0, max: float = 0.0) -> Tensor:  # the schema's names
    t = cx.tensor(x, "input")
    if not t.dtype.startswith("float"):
        raise unsupported(cx, f"histc of a {t.dtype} tensor (torch's CPU kernel takes floats only)")
    lo, hi, n = float(min), float(max), int(bins)
    if not lo < hi:
        raise unsupported(cx, f"histc with min {lo:g} >= max {hi:g} (a range taken from the data) is not supported")
    if n < 1:
        raise unsupported(cx, f"histc with {n} bins")
    edges = cx.tensor(torch.linspace(lo, hi, n + 1, dtype=getattr(torch, t.dtype)), "edges")

    def count(b: Expr) -> Expr:
        axes = [te.reduce_axis((0, d), f"r{k}") for k, d in enumerate(t.shape)]
        v = t[tuple(a.var for a in axes)] if axes else t[()]
        above = edges[b + 1] > v
        last = te.all(b == n - 1, v <= edges[n])  # the last bin holds its right edge (max)
        inside = te.all(edges[b] <= v, te.any(above, last))
        one = te.if_then_else(inside, te.const(1.0, t.dtype), te.const(0.0, t.dtype))
        return te.sum(one, axis=axes) if axes else one

    return te.compute((n,), count, name=cx.name)


def grouped_mm(cx: Converter, x: Any, weight: Any, offs: Any = None, *rest: Any, **kwargs: Any) -> Tensor:
    """Row s of `x` [S, K] times the weight [E, K, N] of its group: the first group whose
    end (`offs`, cumulative) is past s. Rows past the last end are zeros (as the fallback
    writes them)."""
    a, w = cx.tensor(x, "input"), cx.tensor(weight, "weight")
    if offs is None or a.ndim != 2 or w.ndim != 3 or any(v is not None for v in (*rest, *kwargs.values())):
        raise unsupported(cx, "only a grouped matmul of a 2-D input by 3-D weights with offsets, no bias or "
                              "output dtype, is supported")
    ends = cx.tensor(offs, "offsets")
    rows, groups = a.shape[0], static(w.shape[0])
    if groups is None:
        raise unsupported(cx, "a grouped matmul needs a static number of groups (the weights' first dimension)")

    def group_of(s: Expr) -> Expr:
        j = te.reduce_axis((0, groups), "j")
        at_or_before = ends[j.var].astype("int64") <= s.astype("int64")
        return te.sum(te.if_then_else(at_or_before, te.const(1, "int64"), te.const(0, "int64")), axis=j)

    group = te.compute((rows,), group_of, name=f"{cx.name}_group")

    def product(s: Expr, col: Expr) -> Expr:
        k = te.reduce_axis((0, a.shape[1]), "k")
        return te.sum(a[s, k.var] * w[clamp_index(group[s], groups), k.var, col], axis=k)

    raw = te.compute((rows, w.shape[2]), product, name=f"{cx.name}_rows")
    zero = te.const(0.0, raw.dtype)
    return te.compute(
        raw.shape, lambda s, col: te.if_then_else(group[s] < groups, raw[s, col], zero), name=cx.name
    )


OPS["transformers.grouped_mm_fallback.default"] = grouped_mm
OPS["aten._grouped_mm.default"] = grouped_mm
