"""ATen converters of the Core ATen opset's backward ops that torch's decompositions
keep: the gradients of convolutions and pools, as they stand in a training graph (an
`aot_autograd` backward, or a module that calls them). The embedding's and the layer
and group norms' backward ops decompose (`decompose.py`) to ops converted elsewhere.

Each gradient is a gather, like the forward ops of `aten_spatial`: an element of the
input's gradient sums the output gradients of the windows that read it (a pool's, a
convolution's taps), found from the tap offsets (`Windows.covering`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from compiler import ops, te
from compiler.ops.index import clamp_index
from compiler.te import Expr, Tensor
from compiler.torch.aten import _ints, aten, unsupported
from compiler.torch.aten_spatial import (
    AdaptiveWindows,
    ConvWindow,
    Windows,
    all_of,
    conv_transpose,
    in_range,
    static_sizes,
)
from compiler.torch.graph import Converter

# ---------------------------------------------------------------------------
# Convolutions
# ---------------------------------------------------------------------------


@aten("convolution_backward.default")
def convolution_backward(cx: Converter, grad: Any, x: Any, weight: Any, bias_sizes: Any, stride: Any, padding: Any,
                         dilation: Any, transposed: bool, output_padding: Any, groups: int,
                         output_mask: Sequence[bool]) -> tuple[Tensor | None, ...]:
    """(grad_input, grad_weight, grad_bias) of a convolution, each where output_mask asks."""
    if transposed:
        raise unsupported(cx, "the backward of a transposed convolution is not supported")
    g, t, w = cx.tensor(grad, "grad_output"), cx.tensor(x, "input"), cx.tensor(weight, "weight")
    n = t.ndim - 2
    window = ConvWindow(_ints(stride, n), _ints(padding, n), _ints(dilation, n), int(groups))
    grad_input = _conv_grad_input(cx, g, t, w, window) if output_mask[0] else None
    grad_weight = _conv_grad_weight(cx, g, t, w, window) if output_mask[1] else None
    grad_bias = None
    if output_mask[2]:
        grad_bias = ops.sum(g, (0, *range(2, g.ndim)), False, name=f"{cx.name}_grad_bias")
    return grad_input, grad_weight, grad_bias


def _conv_grad_input(cx: Converter, g: Tensor, t: Tensor, w: Tensor, window: ConvWindow) -> Tensor:
    """The transposed convolution of the output gradient, at the input's size (the
    output padding makes up the rows a stride skipped)."""
    _, _, kernel = window.kernel(cx, w)
    extra = []
    for d, k in enumerate(kernel):
        reached = (g.shape[2 + d] - 1) * window.stride[d] - 2 * window.padding[d] + window.dilation[d] * (k - 1) + 1
        extra.append(t.shape[2 + d] - reached)
    return conv_transpose(cx, g, w, window, tuple(extra))


def _conv_grad_weight(cx: Converter, g: Tensor, t: Tensor, w: Tensor, window: ConvWindow) -> Tensor:
    """grad_weight[o, c, k] = sum over the batch and the output positions q of
    grad[b, o, q] * x[b, channel c of o's group, q * stride - pad + k * dilation]."""
    cout, cin_g, kernel = window.kernel(cx, w)
    cout_g, spatial, outs = cout // window.groups, list(t.shape[2:]), list(g.shape[2:])
    rb = te.reduce_axis((0, g.shape[0]), "rb")
    rq = [te.reduce_axis((0, size), f"rq{d}") for d, size in enumerate(outs)]

    def element(o: Expr, c: Expr, *k: Expr) -> Expr:
        src = [rq[d].var * window.stride[d] - window.padding[d] + k[d] * window.dilation[d] for d in range(len(k))]
        inside = all_of(in_range(src, spatial))
        clamped = [clamp_index(p, size) for p, size in zip(src, spatial, strict=True)]
        value = g[(rb.var, o, *(r.var for r in rq))] * t[(rb.var, (o // cout_g) * cin_g + c, *clamped)]
        return te.sum(te.if_then_else(inside, value, te.const(0.0, g.dtype)), axis=(rb, *rq))

    return te.compute((cout, cin_g, *kernel), element, name=f"{cx.name}_grad_weight")


# ---------------------------------------------------------------------------
# Pools
# ---------------------------------------------------------------------------


@aten("avg_pool2d_backward.default")
def avg_pool2d_backward(cx: Converter, grad: Any, x: Any, kernel_size: Any, stride: Any, padding: Any,
                        ceil_mode: bool, count_include_pad: bool, divisor_override: int | None) -> Tensor:
    """Each input element gets the output gradients of the windows that average it, each
    over its window's divisor."""
    g, t = cx.tensor(grad, "grad_output"), cx.tensor(x, "input")
    w = Windows(cx, t, 2, kernel_size, stride, padding, 1, ceil_mode)

    def element(*p: Expr) -> Expr:
        axes = w.axes()
        outs, exists = w.covering(p, axes)
        q = (*p[:-2], *outs)
        divisor = (te.const(float(divisor_override), g.dtype) if divisor_override
                   else w.count(q, count_include_pad).astype(g.dtype))
        return te.sum(te.if_then_else(exists, g[q] / divisor, te.const(0.0, g.dtype)), axis=tuple(axes))

    return te.compute(t.shape, element, name=cx.name)


@aten("max_pool2d_with_indices_backward.default")
def max_pool2d_with_indices_backward(cx: Converter, grad: Any, x: Any, kernel_size: Any, stride: Any, padding: Any,
                                     dilation: Any, ceil_mode: bool, indices: Any) -> Tensor:
    """Each input element gets the output gradients of the windows whose max it was."""
    g, t, idx = cx.tensor(grad, "grad_output"), cx.tensor(x, "input"), cx.tensor(indices, "indices")
    w = Windows(cx, t, 2, kernel_size, stride, padding, dilation, ceil_mode)

    def element(*p: Expr) -> Expr:
        axes = w.axes()
        outs, exists = w.covering(p, axes)
        q = (*p[:-2], *outs)
        chosen = exists & (idx[q].astype("int64") == w.flat(p[-2:]))
        return te.sum(te.if_then_else(chosen, g[q], te.const(0.0, g.dtype)), axis=tuple(axes))

    return te.compute(t.shape, element, name=cx.name)


@aten("_adaptive_avg_pool2d_backward.default")
def adaptive_avg_pool2d_backward(cx: Converter, grad: Any, x: Any) -> Tensor:
    """Each input element gets the output gradients of the adaptive windows that hold it,
    each over its window's area. The windows holding input position p along a dimension
    are the outputs from p * o // s to ((p + 1) * o - 1) // s (at most `widest` of them)."""
    g, t = cx.tensor(grad, "grad_output"), cx.tensor(x, "input")
    w = AdaptiveWindows(cx, t, 2, static_sizes(cx, g.shape[-2:], "an adaptive pool's gradient"))
    spans = [max(((p + 1) * o - 1) // s - (p * o) // s + 1 for p in range(s)) for s, o in zip(w.sizes, w.outs, strict=True)]

    def element(*p: Expr) -> Expr:
        axes = [te.reduce_axis((0, k), f"r{d}") for d, k in enumerate(spans)]
        first = [(p[len(p) - 2 + d] * o) // s for d, (s, o) in enumerate(zip(w.sizes, w.outs, strict=True))]
        outs = [f + a.var for f, a in zip(first, axes, strict=True)]
        q = (*p[:-2], *(clamp_index(v, o) for v, o in zip(outs, w.outs, strict=True)))
        holds: Expr = te.const(True)
        area: Expr = te.const(1, "int64")
        for d in range(2):
            lo, hi = w.bounds(q, d)
            holds = holds & (outs[d] < w.outs[d]) & (lo <= p[len(p) - 2 + d]) & (p[len(p) - 2 + d] < hi)
            area = area * (hi - lo).astype("int64")
        return te.sum(te.if_then_else(holds, g[q] / area.astype(g.dtype), te.const(0.0, g.dtype)), axis=tuple(axes))

    return te.compute(t.shape, element, name=cx.name)


__all__ = ["adaptive_avg_pool2d_backward", "avg_pool2d_backward", "convolution_backward",
           "max_pool2d_with_indices_backward"]
