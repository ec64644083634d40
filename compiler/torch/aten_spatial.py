"""ATen converters of spatial ops beyond aten.py's 2-D convolutions and pools: 1-D, 3-D and
transposed convolutions, 3-D pools, max pools' indices, resizing (nearest, bilinear),
grid sampling and col2im (`F.fold`).

Each is written as a gather: an output element reads the input elements that make it
(a transposed convolution's input positions whose window covers the output, a
fold's patches that overlap the pixel), guarded where the position is outside.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import torch

from compiler import ops, te
from compiler.ops.index import clamp_index
from compiler.ops.util import accumulator_dtype, static
from compiler.te import Dim, Expr, IterVar, Tensor
from compiler.torch.aten import (
    Value,
    _ints,
    aten,
    conv2d_stage,
    max_pool2d,
    unsupported,
)
from compiler.torch.aten_math import arg_reducer, extreme_start
from compiler.torch.aten_norm import used_results
from compiler.torch.graph import Converter

# ---------------------------------------------------------------------------
# Convolutions: 1-D through 2-D, 3-D, transposed
# ---------------------------------------------------------------------------


def _as_2d(cx: Converter, v: Any, what: str) -> Any:
    if isinstance(v, torch.Tensor):
        return v.unsqueeze(2)
    return ops.expand_dims(cx.tensor(v, what), 2, name=f"{cx.name}_{what}_2d")


@aten("convolution.default")
def convolution(cx: Converter, x: Any, weight: Any, bias: Any, stride: Any, padding: Any, dilation: Any,
                transposed: bool, output_padding: Any, groups: int) -> Value:
    ndim = len(x.shape)
    if ndim not in (3, 4, 5):
        raise unsupported(cx, f"{ndim - 2}-D convolutions are not supported (1-D, 2-D and 3-D are)")
    if ndim == 3:  # a 1-D convolution is a 2-D one over a height of 1
        stride, dilation = (1, *_ints(stride, 1)), (1, *_ints(dilation, 1))
        padding, output_padding = (0, *_ints(padding, 1)), (0, *_ints(output_padding, 1))
        x4, w4 = _as_2d(cx, x, "input"), _as_2d(cx, weight, "weight")
        y = convolution(cx, x4, w4, bias, stride, padding, dilation, transposed, output_padding, groups)
        t = cx.tensor(y, "output")
        return ops.squeeze(t, 2, name=f"{cx.name}_1d")
    n = ndim - 2
    window = ConvWindow(_ints(stride, n), _ints(padding, n), _ints(dilation, n), int(groups))
    if transposed:
        y = conv_transpose(cx, cx.tensor(x, "input"), cx.tensor(weight, "weight"), window, _ints(output_padding, n))
    elif n == 3:
        y = conv_direct(cx, cx.tensor(x, "input"), cx.tensor(weight, "weight"), window)
    else:
        return conv2d_stage(cx, x, weight, bias, stride, padding, dilation, groups)
    return y if bias is None else ops.bias_add(y, cx.tensor(bias, "bias"), axis=1, name=f"{cx.name}_bias")


class ConvWindow:
    """A convolution's stride, padding, dilation (one per spatial dimension) and groups."""

    def __init__(self, stride: tuple[int, ...], padding: tuple[int, ...], dilation: tuple[int, ...], groups: int):
        self.stride, self.padding, self.dilation, self.groups = stride, padding, dilation, groups

    def kernel(self, cx: Converter, w: Tensor) -> tuple[int, int, list[int]]:
        """The weight's two channel sizes and its kernel, which must be static."""
        sizes = [static(d) for d in w.shape]
        if any(d is None for d in sizes):
            raise unsupported(cx, "a convolution needs a static weight shape")
        first, second, *kernel = (int(d or 0) for d in sizes)
        return first, second, kernel


def all_of(conditions: Sequence[Expr]) -> Expr:
    return functools.reduce(lambda a, b: a & b, conditions)


def in_range(positions: Sequence[Expr], sizes: Sequence[Any]) -> list[Expr]:
    return [c for p, size in zip(positions, sizes, strict=True) for c in (p >= 0, p < size)]


def conv_direct(cx: Converter, x: Tensor, w: Tensor, window: ConvWindow) -> Tensor:
    """A convolution (3-D) as one reduction over the input channels of the group and the
    kernel, the padding a guard (2-D ones have aten.py's tuned `conv2d_stage`)."""
    cout, cin_g, kernel = window.kernel(cx, w)
    cout_g, spatial = cout // window.groups, list(x.shape[2:])
    st, pad, dil = window.stride, window.padding, window.dilation
    outs = [(size + 2 * pad[d] - dil[d] * (kernel[d] - 1) - 1) // st[d] + 1 for d, size in enumerate(spatial)]
    rc = te.reduce_axis((0, cin_g), "rc")
    rk = [te.reduce_axis((0, k), f"rk{d}") for d, k in enumerate(kernel)]

    def element(b: Expr, o: Expr, *out: Expr) -> Expr:
        ci = (o // cout_g) * cin_g + rc.var
        src = [out[d] * st[d] - pad[d] + rk[d].var * dil[d] for d in range(len(kernel))]
        clamped = [clamp_index(p, size) for p, size in zip(src, spatial, strict=True)]
        value = x[(b, ci, *clamped)] * w[(o, rc.var, *(r.var for r in rk))]
        return te.sum(te.if_then_else(all_of(in_range(src, spatial)), value, te.const(0.0, x.dtype)), axis=(rc, *rk))

    return te.compute((x.shape[0], cout, *outs), element, name=cx.name)


def conv_transpose(cx: Converter, x: Tensor, w: Tensor, window: ConvWindow, output_padding: Sequence[Dim]) -> Tensor:
    """The gradient of a convolution as a gather: each output element sums the input
    elements whose window covers it (`(y + pad - k * dil)` divisible by the stride)."""
    cin, cout_g, kernel = window.kernel(cx, w)
    cin_g, spatial = cin // window.groups, list(x.shape[2:])
    st, pad, dil = window.stride, window.padding, window.dilation
    outs = [(size - 1) * st[d] - 2 * pad[d] + dil[d] * (kernel[d] - 1) + output_padding[d] + 1
            for d, size in enumerate(spatial)]
    rc = te.reduce_axis((0, cin_g), "rc")
    rk = [te.reduce_axis((0, k), f"rk{d}") for d, k in enumerate(kernel)]

    def element(b: Expr, o: Expr, *out: Expr) -> Expr:
        ci = (o // cout_g) * cin_g + rc.var
        taps = [out[d] + pad[d] - rk[d].var * dil[d] for d in range(len(kernel))]
        src = [t // st[d] for d, t in enumerate(taps)]
        ok = all_of(in_range(src, spatial) + [c for d, t in enumerate(taps) for c in (t >= 0, t % st[d] == 0)])
        clamped = [clamp_index(p, size) for p, size in zip(src, spatial, strict=True)]
        value = x[(b, ci, *clamped)] * w[(ci, o % cout_g, *(r.var for r in rk))]
        return te.sum(te.if_then_else(ok, value, te.const(0.0, x.dtype)), axis=(rc, *rk))

    return te.compute((x.shape[0], cout_g * window.groups, *outs), element, name=cx.name)


# ---------------------------------------------------------------------------
# Resizing
# ---------------------------------------------------------------------------


def _out_sizes(x: Tensor, output_size: Any, scales: Any) -> tuple[list[Dim], list[float]]:
    """The output's spatial sizes and torch's source-per-output scale for each."""
    spatial = list(x.shape[2:])
    if output_size is not None:
        sizes = list(output_size)
        factors = [float(static(i) or 1) / float(static(o) or 1) for i, o in zip(spatial, sizes, strict=True)]
        return sizes, factors
    sizes = [int(float(static(i) or 0) * float(s)) for i, s in zip(spatial, scales, strict=True)]
    return sizes, [1.0 / float(s) for s in scales]


@aten("upsample_nearest2d.vec")
def upsample_nearest(cx: Converter, x: Any, output_size: Any, scale_factors: Any) -> Tensor:
    t = cx.tensor(x, "input")
    sizes, factors = _out_sizes(t, output_size, scale_factors)

    def element(*i: Expr) -> Expr:
        src = [*i[:2]]
        for k, (v, f) in enumerate(zip(i[2:], factors, strict=True)):
            pos = te.floor(v.astype("float32") * f).astype("int64")
            src.append(clamp_index(pos, t.shape[2 + k]))
        return t[tuple(src)]

    return te.compute((*t.shape[:2], *sizes), element, name=cx.name)


@aten("upsample_bilinear2d.vec")
def upsample_bilinear2d(cx: Converter, x: Any, output_size: Any, align_corners: bool, scale_factors: Any) -> Tensor:
    t = cx.tensor(x, "input")
    sizes, factors = _out_sizes(t, output_size, scale_factors)
    acc = accumulator_dtype(t.dtype, None)

    def source(v: Expr, k: int) -> tuple[Expr, Expr, Expr]:
        n_in, n_out = static(t.shape[2 + k]), static(sizes[k])
        if align_corners:
            scale = (n_in - 1) / (n_out - 1) if n_in and n_out and n_out > 1 else 0.0
            pos = v.astype(acc) * scale
        else:
            pos = te.maximum((v.astype(acc) + 0.5) * factors[k] - 0.5, 0.0)
        low = te.floor(pos).astype("int64")
        lo = clamp_index(low, t.shape[2 + k])
        hi = clamp_index(low + 1, t.shape[2 + k])
        return lo, hi, pos - lo.astype(acc)

    def element(b: Expr, c: Expr, y: Expr, xx: Expr) -> Expr:
        y0, y1, fy = source(y, 0)
        x0, x1, fx = source(xx, 1)

        def at(p: Expr, q: Expr) -> Expr:
            return t[b, c, p, q].astype(acc)

        top = at(y0, x0) * (1.0 - fx) + at(y0, x1) * fx
        bottom = at(y1, x0) * (1.0 - fx) + at(y1, x1) * fx
        return (top * (1.0 - fy) + bottom * fy).astype(t.dtype)

    return te.compute((*t.shape[:2], *sizes), element, name=cx.name)


# ---------------------------------------------------------------------------
# Pools: 3-D, and the indices of max pools
# ---------------------------------------------------------------------------


def _pool_out(size: int, kernel: int, stride: int, pad: int, dilation: int, ceil_mode: bool) -> int:
    span = size + 2 * pad - dilation * (kernel - 1) - 1
    out = (span + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:  # the last window starts in the right pad
        out -= 1
    return out


def static_sizes(cx: Converter, dims: Sequence[Dim], what: str) -> list[int]:
    sizes = [static(d) for d in dims]
    if any(s is None for s in sizes):
        raise unsupported(cx, f"{what} of symbolic spatial sizes is not supported")
    return [int(s or 0) for s in sizes]


class Windows:
    """The windows of an n-D pool over x's last n dimensions."""

    def __init__(self, cx: Converter, x: Tensor, n: int, kernel: Any, stride: Any, padding: Any, dilation: Any,
                 ceil_mode: bool):
        self.x, self.n = x, n
        self.kernel = _ints(kernel, n)
        self.stride = _ints(stride, n) if stride else self.kernel
        self.pad, self.dilation = _ints(padding, n), _ints(dilation, n)
        self.sizes = static_sizes(cx, x.shape[-n:], "a pool")
        self.out = [_pool_out(s, k, st, p, d, ceil_mode) for s, k, st, p, d in
                    zip(self.sizes, self.kernel, self.stride, self.pad, self.dilation, strict=True)]
        self.shape = (*x.shape[:-n], *self.out)

    def axes(self) -> list[IterVar]:
        return [te.reduce_axis((0, k), f"r{d}") for d, k in enumerate(self.kernel)]

    def positions(self, i: Sequence[Expr], axes: Sequence[IterVar]) -> tuple[list[Expr], Expr]:
        """The input positions window i reads at the reduce axes, and whether all are inside."""
        pos: list[Expr] = []
        inside: Expr = te.const(True)
        for d in range(self.n):
            p = i[len(i) - self.n + d] * self.stride[d] - self.pad[d] + axes[d].var * self.dilation[d]
            pos.append(p)
            inside = inside & (p >= 0) & (p < self.sizes[d])
        return pos, inside

    def read(self, i: Sequence[Expr], pos: Sequence[Expr]) -> Expr:
        lead = list(i[: len(i) - self.n])
        return self.x[(*lead, *(clamp_index(p, s) for p, s in zip(pos, self.sizes, strict=True)))]

    def count(self, i: Sequence[Expr], include_pad: bool) -> Expr:
        """How many elements window i averages: the padding counts where `include_pad`
        (not beyond it, when ceil_mode lets a window reach past)."""
        count: Expr = te.const(1, "int64")
        for d in range(self.n):
            start = i[len(i) - self.n + d] * self.stride[d] - self.pad[d]
            limit = self.sizes[d] + (self.pad[d] if include_pad else 0)
            lo = start if include_pad else te.maximum(start, 0)
            count = count * (te.minimum(start + self.kernel[d], limit) - lo).astype("int64")
        return count

    def covering(self, p: Sequence[Expr], axes: Sequence[IterVar]) -> tuple[list[Expr], Expr]:
        """The windows whose tap at the reduce axes reads input position p (its last n
        indices), and whether such a window exists (the tap lands on a stride)."""
        outs: list[Expr] = []
        exists: Expr = te.const(True)
        for d in range(self.n):
            tap = p[len(p) - self.n + d] + self.pad[d] - axes[d].var * self.dilation[d]
            o = tap // self.stride[d]
            outs.append(clamp_index(o, self.out[d]))
            exists = exists & (tap >= 0) & (tap % self.stride[d] == 0) & (o < self.out[d])
        return outs, exists

    def flat(self, pos: Sequence[Expr]) -> Expr:
        """torch's index of a max: the position in the flattened spatial input."""
        index: Expr = te.const(0, "int64")
        for p, s in zip(pos, self.sizes, strict=True):
            index = index * s + p.astype("int64")
        return index


def _max_with_indices(cx: Converter, w: Windows) -> tuple[Tensor, Tensor]:
    argmax = arg_reducer(largest=True)
    low = extreme_start(w.x.dtype, largest=True)

    def element(*i: Expr) -> Any:
        axes = w.axes()
        pos, inside = w.positions(i, axes)
        return argmax((w.flat(pos), te.if_then_else(inside, w.read(i, pos), low)), axis=tuple(axes))

    index, value = te.compute(w.shape, element, name=cx.name)
    return value, index


@aten("max_pool2d_with_indices.default")
def max_pool2d_with_indices(cx: Converter, x: Any, kernel_size: Any, stride: Any = (), padding: Any = 0,
                            dilation: Any = 1, ceil_mode: bool = False) -> tuple[Value, Tensor | None]:
    """The pool, and its indices only when the graph reads them (a separate argmax)."""
    if 1 not in used_results(cx):
        return max_pool2d(cx, x, kernel_size, stride, padding, dilation, ceil_mode), None
    t = cx.tensor(x, "input")
    return _max_with_indices(cx, Windows(cx, t, 2, kernel_size, stride, padding, dilation, ceil_mode))


@aten("max_pool3d_with_indices.default")
def max_pool3d_with_indices(cx: Converter, x: Any, kernel_size: Any, stride: Any = (), padding: Any = 0,
                            dilation: Any = 1, ceil_mode: bool = False) -> tuple[Tensor, Tensor]:
    t = cx.tensor(x, "input")
    return _max_with_indices(cx, Windows(cx, t, 3, kernel_size, stride, padding, dilation, ceil_mode))


@aten("avg_pool3d.default")
def avg_pool3d(cx: Converter, x: Any, kernel_size: Any, stride: Any = (), padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    t = cx.tensor(x, "input")
    w = Windows(cx, t, 3, kernel_size, stride, padding, 1, ceil_mode)
    acc = accumulator_dtype(t.dtype, None)

    def total(*i: Expr) -> Expr:
        axes = w.axes()
        pos, inside = w.positions(i, axes)
        return te.sum(te.if_then_else(inside, w.read(i, pos).astype(acc), te.const(0.0, acc)), axis=tuple(axes))

    sums = te.compute(w.shape, total, name=f"{cx.name}_sum")

    def divisor(i: Sequence[Expr]) -> Expr:
        if divisor_override:
            return te.const(float(divisor_override), acc)
        return w.count(i, count_include_pad).astype(acc)

    return te.compute(w.shape, lambda *i: (sums[i] / divisor(i)).astype(t.dtype), name=cx.name)


class AdaptiveWindows:
    """The windows of an adaptive pool over x's last n dimensions: output k of a size-s
    dimension covers [k * s // o, ceil((k + 1) * s / o)), at most `widest` long."""

    def __init__(self, cx: Converter, x: Tensor, n: int, output_size: Any):
        self.x, self.n = x, n
        self.sizes = static_sizes(cx, x.shape[-n:], "an adaptive pool")
        self.outs = [int(o) if o is not None else s for o, s in zip(_ints(output_size, n), self.sizes, strict=True)]
        self.widest = [max(math.ceil((k + 1) * s / o) - (k * s) // o for k in range(o))
                       for s, o in zip(self.sizes, self.outs, strict=True)]
        self.shape = (*x.shape[:-n], *self.outs)

    def bounds(self, i: Sequence[Expr], d: int) -> tuple[Expr, Expr]:
        s, o, v = self.sizes[d], self.outs[d], i[len(i) - self.n + d]
        return (v * s) // o, (v * s + s + o - 1) // o

    def window(self, i: Sequence[Expr]) -> tuple[list[IterVar], list[Expr], Expr]:
        """The reduce axes, the (clamped) positions they read and whether they are inside."""
        axes = [te.reduce_axis((0, k), f"r{d}") for d, k in enumerate(self.widest)]
        pos: list[Expr] = []
        inside: Expr = te.const(True)
        for d in range(self.n):
            lo, hi = self.bounds(i, d)
            p = lo + axes[d].var
            pos.append(clamp_index(p, self.sizes[d]))
            inside = inside & (p < hi)
        return axes, pos, inside


@aten("_adaptive_avg_pool3d.default")
def adaptive_avg_pool3d(cx: Converter, x: Any, output_size: Any) -> Tensor:
    t = cx.tensor(x, "input")
    w = AdaptiveWindows(cx, t, 3, output_size)
    acc = accumulator_dtype(t.dtype, None)

    def element(*i: Expr) -> Expr:
        axes, pos, inside = w.window(i)
        value = te.if_then_else(inside, t[(*i[:-3], *pos)].astype(acc), te.const(0.0, acc))
        return te.sum(value, axis=tuple(axes))

    def mean(*i: Expr) -> Expr:
        count: Expr = te.const(1, "int64")
        for d in range(3):
            lo, hi = w.bounds(i, d)
            count = count * (hi - lo).astype("int64")
        return (sums[i] / count.astype(acc)).astype(t.dtype)

    sums = te.compute(w.shape, element, name=f"{cx.name}_sum")
    return te.compute(sums.shape, mean, name=cx.name)


# ---------------------------------------------------------------------------
# Grid sampling, col2im
# ---------------------------------------------------------------------------


@aten("grid_sampler_2d.default")
def grid_sampler_2d(cx: Converter, x: Any, grid: Any, interpolation_mode: int, padding_mode: int,
                    align_corners: bool) -> Tensor:
    """Bilinear (0) or nearest (1) sampling with zeros (0) or border (1) padding."""
    if interpolation_mode not in (0, 1) or padding_mode not in (0, 1):
        raise unsupported(cx, "grid sampling is supported bilinear or nearest, with zeros or border padding")
    t, g = cx.tensor(x, "input"), cx.tensor(grid, "grid")
    h, w = static_sizes(cx, t.shape[2:], "grid sampling")
    acc = accumulator_dtype(t.dtype, None)

    def unnormalize(c: Expr, size: int) -> Expr:
        c = c.astype(acc)
        pos = (c + 1.0) * 0.5 * (size - 1) if align_corners else ((c + 1.0) * size - 1.0) * 0.5
        return te.minimum(te.maximum(pos, 0.0), float(size - 1)) if padding_mode == 1 else pos

    def tap(b: Expr, c: Expr, py: Expr, px: Expr) -> Expr:
        inside = (py >= 0) & (py < h) & (px >= 0) & (px < w)
        value = t[b, c, clamp_index(py, h), clamp_index(px, w)].astype(acc)
        return te.if_then_else(inside, value, te.const(0.0, acc))

    def element(b: Expr, c: Expr, y: Expr, xx: Expr) -> Expr:
        fx, fy = unnormalize(g[b, y, xx, 0], w), unnormalize(g[b, y, xx, 1], h)
        if interpolation_mode == 1:
            return tap(b, c, te.round_even(fy).astype("int64"), te.round_even(fx).astype("int64")).astype(t.dtype)
        x0, y0 = te.floor(fx), te.floor(fy)
        ax, ay = fx - x0, fy - y0
        ix, iy = x0.astype("int64"), y0.astype("int64")
        top = tap(b, c, iy, ix) * (1.0 - ax) + tap(b, c, iy, ix + 1) * ax
        bottom = tap(b, c, iy + 1, ix) * (1.0 - ax) + tap(b, c, iy + 1, ix + 1) * ax
        return (top * (1.0 - ay) + bottom * ay).astype(t.dtype)

    return te.compute((t.shape[0], t.shape[1], g.shape[1], g.shape[2]), element, name=cx.name)


@aten("col2im.default")
def col2im(cx: Converter, x: Any, output_size: Any, kernel_size: Any, dilation: Any, padding: Any,
           stride: Any) -> Tensor:
    """F.fold: each pixel sums the patch elements that cover it."""
    t = cx.tensor(x, "input")
    batched = t.ndim == 3
    if not batched:
        t = ops.expand_dims(t, 0, name=f"{cx.name}_batched")
    (oh, ow), (kh, kw) = _ints(output_size), _ints(kernel_size)
    (dh, dw), (ph, pw), (sh, sw) = _ints(dilation), _ints(padding), _ints(stride)
    blocks_w = (ow + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    blocks_h = (oh + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    channels = (static(t.shape[1]) or 0) // (kh * kw)
    ry, rx = te.reduce_axis((0, kh), "ry"), te.reduce_axis((0, kw), "rx")

    def element(n: Expr, c: Expr, y: Expr, xx: Expr) -> Expr:
        ty, tx = y + ph - ry.var * dh, xx + pw - rx.var * dw
        by, bx = ty // sh, tx // sw
        ok = (ty >= 0) & (tx >= 0) & (ty % sh == 0) & (tx % sw == 0) & (by < blocks_h) & (bx < blocks_w)
        row = (c * kh + ry.var) * kw + rx.var
        col = clamp_index(by, blocks_h) * blocks_w + clamp_index(bx, blocks_w)
        return te.sum(te.if_then_else(ok, t[n, row, col], te.const(0.0, t.dtype)), axis=(ry, rx))

    out = te.compute((t.shape[0], channels, oh, ow), element, name=cx.name)
    return out if batched else ops.squeeze(out, 0, name=f"{cx.name}_unbatched")


__all__ = ["conv_direct", "conv_transpose"]


@aten("adaptive_max_pool2d.default")
def adaptive_max_pool2d(cx: Converter, x: Any, output_size: Any) -> tuple[Tensor, Tensor]:
    """The largest element of each adaptive window, and its index in the flattened plane."""
    t = cx.tensor(x, "input")
    w = AdaptiveWindows(cx, t, 2, output_size)
    argmax, low = arg_reducer(largest=True), extreme_start(t.dtype, largest=True)

    def element(*i: Expr) -> Any:
        axes, pos, inside = w.window(i)
        flat = pos[0].astype("int64") * w.sizes[1] + pos[1].astype("int64")
        return argmax((flat, te.if_then_else(inside, t[(*i[:-2], *pos)], low)), axis=tuple(axes))

    index, value = te.compute(w.shape, element, name=cx.name)
    return value, index
