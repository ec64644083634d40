"""Pooling: max, average (padding, ceil_mode, count_include_pad) and adaptive
average pooling, NCHW or NHWC, with PyTorch's output sizes and divisors.

Windows that reach outside the input read through a lazy guard inside the
reduction (no padded copy is allocated). An average pool is two stages,
`<name>_sum` and the scaling `<name>`: a 2x2 stride-2 sum is the stage
storage-rewrite can write over its dead input (seed 001). float16 pools sum
in float32: `<name>_sum` is then a register attached to `<name>` (rounded once,
`util.reduce_rounded`), and `<name>` the stage written over the input.
"""

from __future__ import annotations

from collections.abc import Sequence

from compiler import te
from compiler.errors import ExprValueError
from compiler.ops.util import (
    accumulator_dtype,
    ceil_div,
    count_expr,
    index_max,
    index_min,
    lowest,
    pair,
    reduce_rounded,
    static,
)
from compiler.te import Dim, Expr, IterVar, Tensor
from compiler.te.nodes import INDEX, as_expr


def _spatial(layout: str, name: str) -> tuple[int, int]:
    if layout == "NCHW":
        return 2, 3
    if layout == "NHWC":
        return 1, 2
    raise ExprValueError(f"{name}: layout must be NCHW or NHWC, got {layout!r}")


def pool_out_dim(size: Dim, kernel: int, stride: int, padding: int, dilation: int, ceil_mode: bool) -> Dim:
    """PyTorch's pooling output size (a window must start inside the input or the left padding)."""
    span = size + 2 * padding - (dilation * (kernel - 1) + 1)
    if not ceil_mode:
        out = span // stride + 1
    else:
        out = ceil_div(span, stride) + 1
        last_start_limit = (size + padding - 1) // stride + 1
        out = index_min(out, last_start_limit)
    s = static(out)
    return s if s is not None else out


def _needs_guard(size: Dim, out: Dim, kernel: int, stride: int, padding: int, dilation: int) -> bool:
    """Whether a window can reach outside [0, size)."""
    if padding > 0:
        return True
    n, o = static(size), static(out)
    if n is None or o is None:
        return True  # ceil_mode with a symbolic size; exact sizes need no guard (checked by callers)
    return (o - 1) * stride + dilation * (kernel - 1) >= n


def _windows(
    x: Tensor, kernel: tuple[int, int], stride: tuple[int, int], padding: tuple[int, int],
    dilation: tuple[int, int], ceil_mode: bool, layout: str, name: str,
) -> tuple[tuple[int, int], tuple[Dim, ...], tuple[bool, bool]]:
    hi, wi = _spatial(layout, name)
    shape = list(x.shape)
    guards = []
    for d, k, s, p, dl in zip((hi, wi), kernel, stride, padding, dilation, strict=True):
        if 2 * p > k:
            raise ExprValueError(f"{name}: padding {p} is more than half the kernel size {k}")
        out = pool_out_dim(x.shape[d], k, s, p, dl, ceil_mode)
        guards.append(_needs_guard(x.shape[d], out, k, s, p, dl) if (p or ceil_mode) else False)
        shape[d] = out
    return (hi, wi), tuple(shape), (guards[0], guards[1])


def _window_read(
    x: Tensor, i: Sequence[Expr], axes: tuple[int, int], r: tuple[IterVar, IterVar],
    stride: tuple[int, int], padding: tuple[int, int], dilation: tuple[int, int],
    guards: tuple[bool, bool], fill: float,
) -> Expr:
    src: list[Expr] = list(i)
    conds: list[Expr] = []
    for d, rv, s, p, dl, g in zip(axes, r, stride, padding, dilation, guards, strict=True):
        pos = i[d] * s + rv * dl - p if p else i[d] * s + rv * dl
        src[d] = pos
        if g:
            if p:
                conds.append(pos >= 0)
            conds.append(pos < x.shape[d])
    value = x[tuple(src)]
    if not conds:
        return value
    return te.if_then_else(te.likely(te.all(*conds)), value, te.const(fill, x.dtype))


def max_pool2d(
    x: Tensor,
    size: int | Sequence[int] = 2,
    stride: int | Sequence[int] | None = None,
    padding: int | Sequence[int] = 0,
    dilation: int | Sequence[int] = 1,
    ceil_mode: bool = False,
    layout: str = "NCHW",
    name: str = "max_pool",
) -> Tensor:
    """Max pooling (stride defaults to the window size); padding never wins the max."""
    kernel = pair(size, name)
    strides = kernel if stride is None or (not isinstance(stride, int) and len(stride) == 0) else pair(stride, name)
    pads, dils = pair(padding, name), pair(dilation, name)
    axes, shape, guards = _windows(x, kernel, strides, pads, dils, ceil_mode, layout, name)
    ry, rx = te.reduce_axis((0, kernel[0]), "ry"), te.reduce_axis((0, kernel[1]), "rx")
    fill = lowest(x.dtype)
    return te.compute(
        shape,
        lambda *i: te.max(_window_read(x, i, axes, (ry, rx), strides, pads, dils, guards, fill), axis=(ry, rx)),
        name=name,
    )


def avg_pool2d(
    x: Tensor,
    size: int | Sequence[int] = 2,
    stride: int | Sequence[int] | None = None,
    padding: int | Sequence[int] = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
    layout: str = "NCHW",
    name: str = "avg_pool",
    acc_dtype: str | None = None,
) -> Tensor:
    """Average pooling with PyTorch's divisors: a sum stage `<name>_sum`, then `<name>`
    divides it (by a constant when every window lies inside the input)."""
    kernel = pair(size, name)
    strides = kernel if stride is None or (not isinstance(stride, int) and len(stride) == 0) else pair(stride, name)
    pads = pair(padding, name)
    axes, shape, guards = _windows(x, kernel, strides, pads, (1, 1), ceil_mode, layout, name)
    ry, rx = te.reduce_axis((0, kernel[0]), "ry"), te.reduce_axis((0, kernel[1]), "rx")
    acc = accumulator_dtype(x.dtype, acc_dtype)

    def window_sum(*i: Expr) -> Expr:
        value = _window_read(x, i, axes, (ry, rx), strides, pads, (1, 1), guards, 0.0)
        return te.sum(value.astype(acc), axis=(ry, rx))

    if divisor_override is not None or not any(guards):
        scale = 1.0 / (divisor_override or kernel[0] * kernel[1])
        return reduce_rounded(shape, window_sum, x.dtype, name, finish=lambda v, i: v * scale, acc_name=f"{name}_sum")

    def divisor(i: Sequence[Expr]) -> Expr:
        total: Expr | None = None
        for d, k, s, p in zip(axes, kernel, strides, pads, strict=True):
            start = i[d] * s - p
            end = index_min(start + k, x.shape[d] + p)
            if count_include_pad:
                count = end - start
            else:
                count = as_expr(index_min(end, x.shape[d]) - index_max(start, 0), INDEX)
            total = count if total is None else total * count
        assert total is not None
        return total.astype(acc)

    return reduce_rounded(shape, window_sum, x.dtype, name, finish=lambda v, i: v / divisor(i), acc_name=f"{name}_sum")


def adaptive_avg_pool2d(
    x: Tensor,
    output_size: int | Sequence[int | None],
    layout: str = "NCHW",
    name: str = "adaptive_avg_pool",
    acc_dtype: str | None = None,
) -> Tensor:
    """PyTorch's adaptive average pooling: output cell i averages input rows
    floor(i * H / OH) .. ceil((i + 1) * H / OH) - 1 (`None` keeps a size)."""
    hi, wi = _spatial(layout, name)
    outs = (output_size, output_size) if isinstance(output_size, int) else tuple(output_size)
    sizes = [x.shape[d] if o is None else o for d, o in zip((hi, wi), outs, strict=True)]
    acc = accumulator_dtype(x.dtype, acc_dtype)
    shape = list(x.shape)
    shape[hi], shape[wi] = sizes[0], sizes[1]
    windows: list[tuple[Dim, bool]] = []  # (reduce extent, guarded)
    for d, o in zip((hi, wi), sizes, strict=True):
        n = static(x.shape[d])
        if static(o) == 1:
            windows.append((x.shape[d], False))
        elif n is not None and isinstance(o, int):
            spans = {((j + 1) * n + o - 1) // o - (j * n) // o for j in range(o)}
            windows.append((max(spans), len(spans) > 1))
        elif isinstance(o, int):
            windows.append((ceil_div(x.shape[d], o) + 1, True))
        else:
            windows.append((1, False))  # the output keeps the input size: identity along d
    ry, rx = te.reduce_axis((0, windows[0][0]), "ry"), te.reduce_axis((0, windows[1][0]), "rx")

    def bounds(i: Sequence[Expr], d: int, o: Dim) -> tuple[Expr | int, Expr]:
        if static(o) == 1:
            return 0, as_expr(x.shape[d], INDEX)
        return (i[d] * x.shape[d]) // o, ((i[d] + 1) * x.shape[d] + (o - 1)) // o

    def element(*i: Expr) -> Expr:
        src: list[Expr] = list(i)
        conds: list[Expr] = []
        for d, o, rv, (_, guarded) in zip((hi, wi), sizes, (ry, rx), windows, strict=True):
            start, end = bounds(i, d, o)
            src[d] = start + rv
            if guarded:
                conds.append(start + rv < end)
        value = x[tuple(src)].astype(acc)
        if conds:
            value = te.if_then_else(te.all(*conds), value, te.const(0.0, acc))
        return te.sum(value, axis=(ry, rx))

    def average(total: Expr, i: tuple[Expr, ...]) -> Expr:
        count: Expr | None = None
        for d, o in zip((hi, wi), sizes, strict=True):
            if static(o) == 1:
                c = count_expr(x.shape[d], acc)
            else:
                start, end = bounds(i, d, o)
                c = (end - start).astype(acc)
            count = c if count is None else count * c
        assert count is not None
        return total / count

    return reduce_rounded(tuple(shape), element, x.dtype, name, finish=average, acc_name=f"{name}_sum")


def global_avg_pool2d(x: Tensor, layout: str = "NCHW", name: str = "global_avg_pool", acc_dtype: str | None = None) -> Tensor:
    """The mean of each channel over its whole spatial extent (output size 1x1)."""
    return adaptive_avg_pool2d(x, 1, layout=layout, name=name, acc_dtype=acc_dtype)
