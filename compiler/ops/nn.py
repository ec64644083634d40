"""Neural-network operators as tensor expressions (TOPI's conv2d, pad, pool, ...).

Padding is a separate stage `pad_temp` whose element is a lazy
`if_then_else(inside, x[...], 0)`, exactly as TOPI writes it: that guard is
what bound inference must see through to avoid over-allocation (seed 000).
"""

from __future__ import annotations

from collections.abc import Sequence

from compiler import te
from compiler.te import Dim, Expr, Tensor


def _pair(v: int | Sequence[int]) -> tuple[int, int]:
    return (v, v) if isinstance(v, int) else (v[0], v[1])


def pad(
    x: Tensor,
    before: Sequence[int],
    after: Sequence[int] | None = None,
    value: float = 0.0,
    name: str = "pad_temp",
) -> Tensor:
    """Zero-pad every dimension by before[d] / after[d] elements."""
    after = before if after is None else after
    if len(before) != x.ndim or len(after) != x.ndim:
        raise ValueError(f"pad: {x.name} has {x.ndim} dimensions, pads given for {len(before)}")
    if all(b == 0 for b in before) and all(a == 0 for a in after):
        return x
    shape = tuple(d + b + a for d, b, a in zip(x.shape, before, after, strict=True))

    def element(*idx: Expr) -> Expr:
        conds: list[Expr] = []
        for i, d, b, a in zip(idx, x.shape, before, after, strict=True):
            if b > 0:
                conds.append(i >= b)
            if a > 0:
                conds.append(i < d + b)
        src = x[tuple(i - b for i, b in zip(idx, before, strict=True))]
        return te.if_then_else(te.likely(te.all(*conds)), src, te.const(value, x.dtype))

    return te.compute(shape, element, name=name)


def _out_dim(size: Dim, kernel: int, stride: int, pad_total: int, dilation: int) -> Dim:
    return (size + pad_total - ((kernel - 1) * dilation + 1)) // stride + 1


def conv2d_nchw(
    x: Tensor,
    w: Tensor,
    stride: int | Sequence[int] = 1,
    padding: int | Sequence[int] = 0,
    dilation: int | Sequence[int] = 1,
    name: str = "conv2d",
) -> Tensor:
    """x: [N, C, H, W], w: [K, C, R, S] -> [N, K, OH, OW]."""
    (sh, sw), (ph, pw), (dh, dw) = _pair(stride), _pair(padding), _pair(dilation)
    n, c, h, wd = x.shape
    k, _, r, s = w.shape
    if not isinstance(r, int) or not isinstance(s, int):
        raise ValueError("conv2d_nchw: the kernel size must be static")
    xp = pad(x, (0, 0, ph, pw), name=f"{name}_pad") if (ph or pw) else x
    oh, ow = _out_dim(h, r, sh, 2 * ph, dh), _out_dim(wd, s, sw, 2 * pw, dw)
    rc, ry, rx = te.reduce_axis((0, c), "rc"), te.reduce_axis((0, r), "ry"), te.reduce_axis((0, s), "rx")
    return te.compute(
        (n, k, oh, ow),
        lambda nn, ff, yy, xx: te.sum(
            xp[nn, rc, yy * sh + ry * dh, xx * sw + rx * dw] * w[ff, rc, ry, rx], axis=(rc, ry, rx)
        ),
        name=name,
    )


def conv2d_nhwc(
    x: Tensor,
    w: Tensor,
    stride: int | Sequence[int] = 1,
    padding: int | Sequence[int] = 0,
    name: str = "conv2d",
) -> Tensor:
    """x: [N, H, W, C], w: [R, S, C, K] -> [N, OH, OW, K]."""
    (sh, sw), (ph, pw) = _pair(stride), _pair(padding)
    n, h, wd, c = x.shape
    r, s, _, k = w.shape
    if not isinstance(r, int) or not isinstance(s, int):
        raise ValueError("conv2d_nhwc: the kernel size must be static")
    xp = pad(x, (0, ph, pw, 0), name=f"{name}_pad") if (ph or pw) else x
    oh, ow = _out_dim(h, r, sh, 2 * ph, 1), _out_dim(wd, s, sw, 2 * pw, 1)
    rc, ry, rx = te.reduce_axis((0, c), "rc"), te.reduce_axis((0, r), "ry"), te.reduce_axis((0, s), "rx")
    return te.compute(
        (n, oh, ow, k),
        lambda nn, yy, xx, ff: te.sum(
            xp[nn, yy * sh + ry, xx * sw + rx, rc] * w[ry, rx, rc, ff], axis=(ry, rx, rc)
        ),
        name=name,
    )


def relu(x: Tensor, name: str = "relu") -> Tensor:
    return te.compute(x.shape, lambda *i: te.maximum(x[i], te.const(0.0, x.dtype)), name=name)


def leaky_relu(x: Tensor, alpha: float = 0.1, name: str = "leaky_relu") -> Tensor:
    def element(*i: Expr) -> Expr:
        v = x[i]
        return te.if_then_else(v > 0.0, v, v * alpha)

    return te.compute(x.shape, element, name=name)


def add(a: Tensor, b: Tensor, name: str = "add") -> Tensor:
    if len(a.shape) != len(b.shape):
        raise ValueError(f"add: {a.name} and {b.name} have different ranks")
    return te.compute(a.shape, lambda *i: a[i] + b[i], name=name)


def bias_add(x: Tensor, bias: Tensor, axis: int = 1, name: str = "bias_add") -> Tensor:
    """x + bias broadcast along `axis` (1 for NCHW, 3 for NHWC)."""
    return te.compute(x.shape, lambda *i: x[i] + bias[i[axis]], name=name)


def matmul(a: Tensor, b: Tensor, name: str = "matmul") -> Tensor:
    """[M, K] x [K, N] -> [M, N]."""
    m, kk = a.shape
    _, n = b.shape
    k = te.reduce_axis((0, kk), "k")
    return te.compute((m, n), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name=name)


def avg_pool2d(
    x: Tensor, size: int | Sequence[int] = 2, stride: int | Sequence[int] = 2, layout: str = "NCHW",
    name: str = "avg_pool",
) -> Tensor:
    """Average pooling without padding, NCHW or NHWC."""
    (kh, kw), (sh, sw) = _pair(size), _pair(stride)
    hi, wi = (2, 3) if layout == "NCHW" else (1, 2)
    shape = list(x.shape)
    shape[hi] = (shape[hi] - kh) // sh + 1
    shape[wi] = (shape[wi] - kw) // sw + 1
    ry, rx = te.reduce_axis((0, kh), "ry"), te.reduce_axis((0, kw), "rx")
    pooled = te.compute(
        tuple(shape),
        lambda *i: te.sum(
            x[tuple(
                i[d] * sh + ry if d == hi else i[d] * sw + rx if d == wi else i[d]
                for d in range(len(i))
            )],
            axis=(ry, rx),
        ),
        name=f"{name}_sum",
    )
    scale = 1.0 / (kh * kw)
    return te.compute(tuple(shape), lambda *i: pooled[i] * scale, name=name)
