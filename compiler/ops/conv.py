"""2-D convolutions in NCHW and NHWC: stride, padding, dilation, groups
(depthwise when groups equals the channel count), as TOPI's `conv2d_nchw`.

Padding is a separate stage `<name>_pad` (see `ops.pad`), the form seed 000's
guard-aware bound inference works on. float16 convolutions accumulate in
float32 (`<name>_acc`, one register per output element) and round once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from compiler import te
from compiler.errors import ExprValueError
from compiler.ops.shape import pad, transpose
from compiler.ops.util import (
    FLOAT_BITS,
    padding4,
    pair,
    product_dtypes,
    product_term,
    reduce_rounded,
    static,
)
from compiler.te import Dim, Expr, Tensor

if TYPE_CHECKING:
    import numpy as np


def conv_out_dim(size: Dim, kernel: int, stride: int, pad_total: int, dilation: int) -> Dim:
    out = (size + pad_total - ((kernel - 1) * dilation + 1)) // stride + 1
    if isinstance(out, int):
        return out
    known = static(out)
    return known if known is not None else out


def _kernel(w: Tensor, axes: tuple[int, int], name: str) -> tuple[int, int]:
    r, s = w.shape[axes[0]], w.shape[axes[1]]
    if not isinstance(r, int) or not isinstance(s, int):
        raise ExprValueError(f"{name}: the kernel size must be static, got {w.shape}")
    return r, s


def _groups(c: Dim, k: Dim, wc: Dim, groups: int, name: str) -> tuple[int, int]:
    """(input channels, output channels) per group."""
    if groups < 1:
        raise ExprValueError(f"{name}: groups must be positive, got {groups}")
    if groups == 1:
        return 0, 0
    kk, cc, wcc = static(k), static(c), static(wc)
    if kk is None or wcc is None:
        raise ExprValueError(f"{name}: a grouped convolution needs static channel counts")
    if kk % groups or (cc is not None and cc != wcc * groups):
        raise ExprValueError(f"{name}: {c} input and {k} output channels do not split into {groups} groups of {wc}")
    return wcc, kk // groups


def conv2d_nchw(
    x: Tensor,
    w: Tensor,
    stride: int | Sequence[int] = 1,
    padding: int | Sequence[int] = 0,
    dilation: int | Sequence[int] = 1,
    groups: int = 1,
    name: str = "conv2d",
    out_dtype: str | None = None,
    acc_dtype: str | None = None,
) -> Tensor:
    """x: [N, C, H, W], w: [K, C / groups, R, S] -> [N, K, OH, OW].

    `padding` is an int, (h, w) or (top, left, bottom, right); `out_dtype` is the
    output type (the input's by default), `acc_dtype` the accumulation type (default: an
    `out_dtype` other than the input's, else float32 for float16 inputs: stage
    `<name>_acc`, rounded once by `<name>`, see `util.reduce_rounded`)."""
    (sh, sw), (dh, dw) = pair(stride, f"{name} stride"), pair(dilation, f"{name} dilation")
    pt, pl, pb, pr = padding4(padding)
    n, c, h, wd = x.shape
    k, wc, _, _ = w.shape
    r, s = _kernel(w, (2, 3), name)
    cg, kg = _groups(c, k, wc, groups, name)
    xp = pad(x, (0, 0, pt, pl), (0, 0, pb, pr), name=f"{name}_pad") if (pt or pl or pb or pr) else x
    oh, ow = conv_out_dim(h, r, sh, pt + pb, dh), conv_out_dim(wd, s, sw, pl + pr, dw)
    rc, ry, rx = te.reduce_axis((0, wc), "rc"), te.reduce_axis((0, r), "ry"), te.reduce_axis((0, s), "rx")

    out, acc = product_dtypes(x.dtype, out_dtype, acc_dtype)

    def element(nn: Expr, ff: Expr, yy: Expr, xx: Expr) -> Expr:
        channel = rc if groups == 1 else ff // kg * cg + rc
        v = xp[nn, channel, yy * sh + ry * dh, xx * sw + rx * dw]
        return te.sum(product_term(v, w[ff, rc, ry, rx], acc), axis=(rc, ry, rx))

    y = reduce_rounded((n, k, oh, ow), element, out, name)
    if groups == 1:
        y.op.fast_form = te.FastForm((x, w), lambda x, w: _conv2d_nchw_in_nhwc(
            x, w, (sh, sw), (pt, pl, pb, pr), (dh, dw), name, out_dtype, acc_dtype))
    return y


def _output_block(k: int, dtype: str) -> int | None:
    """The output-channel block of the blocked NHWC form of a float convolution with `k`
    output channels: a multiple of the host's vector (`channel_block`), else None."""
    from compiler.analysis.target import channel_block, host_target

    bits = FLOAT_BITS.get(dtype)
    if bits is None:
        return None
    target = host_target()
    block = channel_block(k, target, bits)
    return block if block % target.lanes(bits) == 0 else None


def _conv2d_nchw_in_nhwc(
    x: Tensor, w: Tensor, stride: tuple[int, int], padding: tuple[int, int, int, int],
    dilation: tuple[int, int], name: str, out_dtype: str | None, acc_dtype: str | None,
) -> Tensor | None:
    """`conv2d_nchw`'s fast form (what `build` compiles without a schedule): the input in
    NHWC, the weight blocked by output channel (as `from_torch` computes a network's
    convolutions, the weight repacked on every call here), `conv2d_nhwc`, and the result
    back in NCHW. As written, NCHW vectorizes along a row of output pixels (seven wide
    in ResNet's last layers; a stride apart with a stride) and reads the weight a stride
    apart: 0.2-0.6x PyTorch on ResNet's layers, where this form runs at 0.7-1.0x. None
    (the stage as written) when the output channels are no multiple of the host's vector
    (asked here, at build time: a program served by the cache never reads the host)."""
    n, c, h, wd = x.shape
    k, wc = w.shape[:2]
    r, s = _kernel(w, (2, 3), name)
    kk = static(k)
    if kk is None or (kb := _output_block(kk, x.dtype)) is None:
        return None
    if (r, s) == (1, 1) and not any(padding) and stride != (1, 1):
        # a strided 1x1 kernel reads every stride-th pixel: the NHWC copy holds only those
        oh, ow = conv_out_dim(h, 1, stride[0], 0, 1), conv_out_dim(wd, 1, stride[1], 0, 1)
        xn = te.compute((n, oh, ow, c), lambda b, i, j, ch: x[b, ch, i * stride[0], j * stride[1]],
                        name=f"{name}_nhwc_input")
        stride = (1, 1)
    else:
        xn = transpose(x, (0, 2, 3, 1), name=f"{name}_nhwc_input")
    # the weight's rows of C * R * S taps transposed in blocks of kb rows (the stage the
    # auto-scheduler tiles as a transpose), seen as [K / kb, R, S, C, kb] (inlined)
    taps = wc * r * s
    flat = te.compute((kk // kb, taps, kb), lambda b, q, lane: w[b * kb + lane, q // (r * s), q // s % r, q % s],
                      name=f"{name}_blocked_weight")
    wb = te.compute((kk // kb, r, s, wc, kb), lambda b, i, j, ch, lane: flat[b, (ch * r + i) * s + j, lane],
                    name=f"{name}_blocked_weight_hwio")
    y = conv2d_nhwc(xn, wb, stride, padding, dilation, 1, f"{name}_nhwc", out_dtype, acc_dtype)
    return transpose(y, (0, 3, 1, 2), name=name)


def conv2d_nhwc(
    x: Tensor,
    w: Tensor,
    stride: int | Sequence[int] = 1,
    padding: int | Sequence[int] = 0,
    dilation: int | Sequence[int] = 1,
    groups: int = 1,
    name: str = "conv2d",
    out_dtype: str | None = None,
    acc_dtype: str | None = None,
) -> Tensor:
    """x: [N, H, W, C], w: [R, S, C / groups, K] -> [N, OH, OW, K] (dtypes as `conv2d_nchw`).

    `w` may also be blocked by output channel, [K / kb, R, S, C / groups, kb]
    (`block_kernel_hwio`): a vector of kb output channels is then contiguous over the
    whole reduction, where [R, S, C, K]'s rows lie K elements apart (2048 channels:
    8 KiB, every row in the same few cache sets)."""
    (sh, sw), (dh, dw) = pair(stride, f"{name} stride"), pair(dilation, f"{name} dilation")
    pt, pl, pb, pr = padding4(padding)
    n, h, wd, c = x.shape
    if w.ndim == 5:
        blocks, _, _, wc, kb = w.shape
        k = blocks * kb
        r, s = _kernel(w, (1, 2), name)
    else:
        _, _, wc, k = w.shape
        kb = None
        r, s = _kernel(w, (0, 1), name)
    cg, kg = _groups(c, k, wc, groups, name)
    xp = pad(x, (0, pt, pl, 0), (0, pb, pr, 0), name=f"{name}_pad") if (pt or pl or pb or pr) else x
    oh, ow = conv_out_dim(h, r, sh, pt + pb, dh), conv_out_dim(wd, s, sw, pl + pr, dw)
    rc, ry, rx = te.reduce_axis((0, wc), "rc"), te.reduce_axis((0, r), "ry"), te.reduce_axis((0, s), "rx")

    out, acc = product_dtypes(x.dtype, out_dtype, acc_dtype)

    def element(nn: Expr, yy: Expr, xx: Expr, ff: Expr) -> Expr:
        channel = rc if groups == 1 else ff // kg * cg + rc
        v = xp[nn, yy * sh + ry * dh, xx * sw + rx * dw, channel]
        weight = w[ry, rx, rc, ff] if kb is None else w[ff // kb, ry, rx, rc, ff % kb]
        return te.sum(product_term(v, weight, acc), axis=(ry, rx, rc))

    return reduce_rounded((n, oh, ow, k), element, out, name)


def block_kernel_hwio(w: np.ndarray, kb: int) -> np.ndarray:
    """An [R, S, C, K] kernel as [K / kb, R, S, C, kb] (`conv2d_nhwc`'s blocked weight)."""
    import numpy as np  # not at import: compiler.ops loads without NumPy's start-up

    r, s, c, k = w.shape
    if kb < 1 or k % kb:
        raise ExprValueError(f"block_kernel_hwio: {k} output channels are not blocks of {kb}")
    return np.ascontiguousarray(w.reshape(r, s, c, k // kb, kb).transpose(3, 0, 1, 2, 4))


def depthwise_conv2d_nchw(
    x: Tensor,
    w: Tensor,
    stride: int | Sequence[int] = 1,
    padding: int | Sequence[int] = 0,
    dilation: int | Sequence[int] = 1,
    name: str = "depthwise_conv2d",
    out_dtype: str | None = None,
    acc_dtype: str | None = None,
) -> Tensor:
    """x: [N, C, H, W], w: [C * M, 1, R, S]: a convolution with one group per input channel."""
    c = static(x.shape[1])
    if c is None:
        raise ExprValueError(f"{name}: a depthwise convolution needs a static channel count")
    return conv2d_nchw(x, w, stride, padding, dilation, groups=c, name=name, out_dtype=out_dtype, acc_dtype=acc_dtype)
