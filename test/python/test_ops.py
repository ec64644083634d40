"""The operator library (compiler.ops) against NumPy, op by op, in float32 and
float16, with static and symbolic shapes."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pytest

import compiler
from compiler import ops, te

RNG = np.random.default_rng(7)


def rand(*shape: int, dtype: str = "float32", low: float = -1.0, high: float = 1.0) -> np.ndarray:
    return RNG.uniform(low, high, shape).astype(dtype)


def check(
    inputs: Sequence[tuple[te.Tensor, np.ndarray]],
    outputs: Sequence[tuple[te.Tensor, np.ndarray]],
    rtol: float = 1e-5,
    atol: float = 1e-5,
) -> None:
    """Build one function with every output, run it, compare each output with its reference."""
    f = compiler.build([t for t, _ in inputs] + [t for t, _ in outputs])
    results = [np.full(ref.shape, np.nan, t.dtype) for t, ref in outputs]
    f(*[a for _, a in inputs], *results)
    for (t, ref), got in zip(outputs, results, strict=True):
        np.testing.assert_allclose(
            got.astype(np.float64), ref.astype(np.float64), rtol=rtol, atol=atol, err_msg=f"op {t.name}"
        )


def erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf)(x.astype(np.float64))


# ---------------------------------------------------------------------------
# Elementwise
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_activations(dtype: str) -> None:
    n = te.var("n")
    X = te.placeholder((n, 16), dtype, name="X")
    x = rand(5, 16, dtype=dtype, low=-4, high=4)
    xd = x.astype(np.float64)
    sig = 1 / (1 + np.exp(-xd))
    outputs = [
        (ops.relu(X), np.maximum(xd, 0)),
        (ops.leaky_relu(X, 0.01), np.where(xd > 0, xd, 0.01 * xd)),
        (ops.sigmoid(X), sig),
        (ops.tanh(X), np.tanh(xd)),
        (ops.silu(X), xd * sig),
        (ops.gelu(X), 0.5 * xd * (1 + erf(xd / math.sqrt(2)))),
        (ops.gelu(X, approximate="tanh", name="gelu_tanh"),
         0.5 * xd * (1 + np.tanh(math.sqrt(2 / math.pi) * (xd + 0.044715 * xd**3)))),
        (ops.erf(X), erf(xd)),
        (ops.clip(X, 0.0, 6.0), np.clip(xd, 0, 6)),
        (ops.hardsigmoid(X), np.clip(xd + 3, 0, 6) / 6),
        (ops.hardswish(X), xd * np.clip(xd + 3, 0, 6) / 6),
        (ops.exp(X), np.exp(xd)),
        (ops.negative(X), -xd),
        (ops.abs(X), np.abs(xd)),
        (ops.power(X, 2), xd**2),
        (ops.cast(X, "float64"), xd),
    ]
    tol = 1e-5 if dtype == "float32" else 2e-3
    check([(X, x)], outputs, rtol=tol, atol=tol)


def test_sqrt_rsqrt_log() -> None:
    X = te.placeholder((4, 8), name="X")
    x = rand(4, 8, low=0.1, high=3.0)
    check([(X, x)], [(ops.sqrt(X), np.sqrt(x)), (ops.rsqrt(X), 1 / np.sqrt(x)), (ops.log(X), np.log(x))])


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_broadcasting_arithmetic(dtype: str) -> None:
    n = te.var("n")
    A = te.placeholder((n, 3, 4), dtype, name="A")
    B = te.placeholder((3, 1), dtype, name="B")
    C = te.placeholder((1, 1, 4), dtype, name="C")
    a, b, c = rand(2, 3, 4, dtype=dtype), rand(3, 1, dtype=dtype, low=0.5), rand(1, 1, 4, dtype=dtype)
    ad, bd, cd = (v.astype(np.float64) for v in (a, b, c))
    outputs = [
        (ops.add(A, B), ad + bd),
        (ops.subtract(B, A), bd - ad),
        (ops.multiply(A, C), ad * cd),
        (ops.divide(A, B), ad / bd),
        (ops.maximum(A, C), np.maximum(ad, cd)),
        (ops.minimum(C, A), np.minimum(cd, ad)),
        (ops.add(A, 2.5, name="add_scalar"), ad + 2.5),
        (ops.subtract(1.0, A, name="rsub_scalar"), 1.0 - ad),
        (ops.multiply(B, C, name="outer"), bd * cd),
    ]
    tol = 1e-6 if dtype == "float32" else 4e-3
    check([(A, a), (B, b), (C, c)], outputs, rtol=tol, atol=tol)


def test_mixed_precision_promotes() -> None:
    A = te.placeholder((4,), "float16", name="A")
    B = te.placeholder((4,), "float32", name="B")
    S = ops.add(A, B)
    assert S.dtype == "float32"
    a, b = rand(4, dtype="float16"), rand(4)
    check([(A, a), (B, b)], [(S, a.astype(np.float32) + b)])


def test_bias_add_scale_shift_batch_norm() -> None:
    X = te.placeholder((2, 3, 4, 5), name="X")
    V = [te.placeholder((3,), name=f"v{k}") for k in range(4)]
    x = rand(2, 3, 4, 5)
    mean, var, gamma, beta = rand(3), rand(3, low=0.5, high=2), rand(3), rand(3)
    col = (slice(None), None, None)
    expected_bn = (x - mean[col]) / np.sqrt(var[col] + 1e-5) * gamma[col] + beta[col]
    check(
        [(X, x), *zip(V, [mean, var, gamma, beta], strict=True)],
        [
            (ops.bias_add(X, V[0]), x + mean[col]),
            (ops.scale_shift(X, V[2], V[3]), x * gamma[col] + beta[col]),
            (ops.batch_norm(X, V[0], V[1], V[2], V[3]), expected_bn),
        ],
    )


# ---------------------------------------------------------------------------
# Convolutions
# ---------------------------------------------------------------------------


def conv_reference(
    x: np.ndarray, w: np.ndarray, stride: tuple[int, int], pad: tuple[int, int, int, int],
    dilation: tuple[int, int], groups: int,
) -> np.ndarray:
    """NCHW convolution; pad is (top, left, bottom, right)."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    n, _c, h, wd = x.shape
    k, cg, r, s = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[2]), (pad[1], pad[3])))
    oh = (h + pad[0] + pad[2] - (r - 1) * dilation[0] - 1) // stride[0] + 1
    ow = (wd + pad[1] + pad[3] - (s - 1) * dilation[1] - 1) // stride[1] + 1
    out = np.zeros((n, k, oh, ow))
    kg = k // groups
    for g in range(groups):
        for ry in range(r):
            for rx in range(s):
                y0, x0 = ry * dilation[0], rx * dilation[1]
                patch = xp[:, g * cg : (g + 1) * cg, y0 : y0 + stride[0] * oh : stride[0], x0 : x0 + stride[1] * ow : stride[1]]
                out[:, g * kg : (g + 1) * kg] += np.einsum("nchw,kc->nkhw", patch, w[g * kg : (g + 1) * kg, :, ry, rx])
    return out


@pytest.mark.parametrize(
    ("stride", "padding", "dilation", "groups"),
    [
        ((1, 1), (1, 1, 1, 1), (1, 1), 1),
        ((2, 1), (0, 1, 2, 1), (1, 1), 1),
        ((1, 1), (2, 2, 2, 2), (2, 2), 2),
        ((2, 2), (1, 1, 1, 1), (1, 1), 4),  # depthwise
    ],
)
def test_conv2d_nchw_and_nhwc(
    stride: tuple[int, int], padding: tuple[int, int, int, int], dilation: tuple[int, int], groups: int
) -> None:
    c, k = 4, 8
    X = te.placeholder((1, c, 9, 10), name="X")
    W = te.placeholder((k, c // groups, 3, 3), name="W")
    XN = te.placeholder((1, 9, 10, c), name="XN")
    WN = te.placeholder((3, 3, c // groups, k), name="WN")
    x, w = rand(1, c, 9, 10), rand(k, c // groups, 3, 3)
    ref = conv_reference(x, w, stride, padding, dilation, groups)
    Y = ops.conv2d_nchw(X, W, stride, padding, dilation, groups, name="nchw")
    YN = ops.conv2d_nhwc(XN, WN, stride, padding, dilation, groups, name="nhwc")
    check(
        [(X, x), (W, w), (XN, x.transpose(0, 2, 3, 1).copy()), (WN, w.transpose(2, 3, 1, 0).copy())],
        [(Y, ref), (YN, ref.transpose(0, 2, 3, 1))],
        rtol=1e-4,
        atol=1e-4,
    )


def test_depthwise_conv2d_symbolic_and_float16() -> None:
    h, w = te.var("h"), te.var("w")
    X = te.placeholder((1, 6, h, w), "float16", name="X")
    W = te.placeholder((6, 1, 3, 3), "float16", name="W")
    Y = ops.depthwise_conv2d_nchw(X, W, padding=1)
    f = compiler.build([X, W, Y])
    wt = rand(6, 1, 3, 3, dtype="float16")
    for size in [(7, 5), (12, 16)]:
        x = rand(1, 6, *size, dtype="float16")
        y = np.zeros((1, 6, *size), np.float16)
        f(x, wt, y)
        np.testing.assert_allclose(y, conv_reference(x, wt, (1, 1), (1, 1, 1, 1), (1, 1), 6), rtol=1e-2, atol=1e-2)


def test_conv2d_out_dtype_accumulates_wider() -> None:
    X = te.placeholder((1, 64, 4, 4), "float16", name="X")
    W = te.placeholder((2, 64, 3, 3), "float16", name="W")
    Y = ops.conv2d_nchw(X, W, padding=1, out_dtype="float32")
    assert Y.dtype == "float32"
    x, w = rand(1, 64, 4, 4, dtype="float16"), rand(2, 64, 3, 3, dtype="float16")
    check([(X, x), (W, w)], [(Y, conv_reference(x, w, (1, 1), (1, 1, 1, 1), (1, 1), 1))], rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------
# Pooling
# ---------------------------------------------------------------------------


def pool_reference(
    x: np.ndarray, k: int, s: int, p: int, ceil_mode: bool, kind: str, count_include_pad: bool = True,
    dilation: int = 1,
) -> np.ndarray:
    """PyTorch's max_pool2d / avg_pool2d on NCHW, written out window by window."""
    n, c, h, w = x.shape

    def out_dim(size: int) -> int:
        span = size + 2 * p - dilation * (k - 1) - 1
        o = (-(-span // s) if ceil_mode else span // s) + 1
        if ceil_mode and (o - 1) * s >= size + p:
            o -= 1
        return o

    oh, ow = out_dim(h), out_dim(w)
    out = np.zeros((n, c, oh, ow))
    xd = x.astype(np.float64)
    for i in range(oh):
        for j in range(ow):
            hs, ws = i * s - p, j * s - p
            if kind == "max":
                rows = [hs + r * dilation for r in range(k) if 0 <= hs + r * dilation < h]
                cols = [ws + r * dilation for r in range(k) if 0 <= ws + r * dilation < w]
                out[:, :, i, j] = xd[:, :, rows][:, :, :, cols].max(axis=(2, 3))
            else:
                he, we = min(hs + k, h + p), min(ws + k, w + p)
                size = (he - hs) * (we - ws)
                h0, w0, h1, w1 = max(hs, 0), max(ws, 0), min(he, h), min(we, w)
                total = xd[:, :, h0:h1, w0:w1].sum(axis=(2, 3))
                out[:, :, i, j] = total / (size if count_include_pad else (h1 - h0) * (w1 - w0))
    return out


@pytest.mark.parametrize(
    ("k", "s", "p", "ceil_mode", "count_include_pad"),
    [(2, 2, 0, False, True), (3, 2, 1, False, True), (3, 2, 1, True, False), (2, 2, 0, True, True), (3, 3, 1, True, True)],
)
def test_pools(k: int, s: int, p: int, ceil_mode: bool, count_include_pad: bool) -> None:
    X = te.placeholder((2, 3, 9, 8), name="X")
    x = rand(2, 3, 9, 8)
    check(
        [(X, x)],
        [
            (ops.max_pool2d(X, k, s, p, ceil_mode=ceil_mode), pool_reference(x, k, s, p, ceil_mode, "max")),
            (
                ops.avg_pool2d(X, k, s, p, ceil_mode=ceil_mode, count_include_pad=count_include_pad),
                pool_reference(x, k, s, p, ceil_mode, "avg", count_include_pad),
            ),
        ],
    )


def test_pools_symbolic_nhwc_and_dilation() -> None:
    h, w = te.var("h"), te.var("w")
    X = te.placeholder((1, h, w, 4), name="X")
    XC = te.placeholder((1, 4, h, w), name="XC")
    MP = ops.max_pool2d(X, 3, 2, 1, layout="NHWC", name="mp")
    AP = ops.avg_pool2d(X, 2, 2, layout="NHWC", name="ap")
    CP = ops.avg_pool2d(XC, 3, 2, 1, ceil_mode=True, name="cp")
    DP = ops.max_pool2d(XC, 2, 1, 0, dilation=2, name="dp")
    f = compiler.build([X, XC, MP, AP, CP, DP])
    for size in [(8, 8), (11, 6)]:
        xc = rand(1, 4, *size)
        x = xc.transpose(0, 2, 3, 1).copy()
        refs = [
            pool_reference(xc, 3, 2, 1, False, "max").transpose(0, 2, 3, 1),
            pool_reference(xc, 2, 2, 0, False, "avg").transpose(0, 2, 3, 1),
            pool_reference(xc, 3, 2, 1, True, "avg"),
            pool_reference(xc, 2, 1, 0, False, "max", dilation=2),
        ]
        outs = [np.zeros(r.shape, np.float32) for r in refs]
        f(x, xc, *outs)
        for got, ref in zip(outs, refs, strict=True):
            np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)


def adaptive_reference(x: np.ndarray, oh: int, ow: int) -> np.ndarray:
    n, c, h, w = x.shape
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            h0, h1 = (i * h) // oh, -(-((i + 1) * h) // oh)
            w0, w1 = (j * w) // ow, -(-((j + 1) * w) // ow)
            out[:, :, i, j] = x[:, :, h0:h1, w0:w1].astype(np.float64).mean(axis=(2, 3))
    return out


def test_adaptive_avg_pool2d() -> None:
    X = te.placeholder((2, 3, 10, 7), name="X")
    x = rand(2, 3, 10, 7)
    check(
        [(X, x)],
        [
            (ops.adaptive_avg_pool2d(X, (3, 2), name="a32"), adaptive_reference(x, 3, 2)),
            (ops.adaptive_avg_pool2d(X, 5, name="a5"), adaptive_reference(x, 5, 5)),
            (ops.global_avg_pool2d(X), adaptive_reference(x, 1, 1)),
        ],
    )


def test_adaptive_avg_pool2d_symbolic_float16() -> None:
    h, w = te.var("h"), te.var("w")
    X = te.placeholder((1, 3, h, w), "float16", name="X")
    G = ops.global_avg_pool2d(X, acc_dtype="float32")
    A = ops.adaptive_avg_pool2d(X, (3, 2), acc_dtype="float32")
    f = compiler.build([X, G, A])
    for size in [(64, 64), (10, 7)]:
        x = rand(1, 3, *size, dtype="float16", low=0.0, high=2.0)
        g, a = np.zeros((1, 3, 1, 1), np.float16), np.zeros((1, 3, 3, 2), np.float16)
        f(x, g, a)
        np.testing.assert_allclose(g, adaptive_reference(x, 1, 1), rtol=2e-3)
        np.testing.assert_allclose(a, adaptive_reference(x, 3, 2), rtol=2e-3)


# ---------------------------------------------------------------------------
# Matrix products
# ---------------------------------------------------------------------------


def test_matmul_dense_batch_matmul() -> None:
    m = te.var("m")
    A = te.placeholder((m, 6), name="A")
    B = te.placeholder((6, 5), name="B")
    W = te.placeholder((5, 6), name="W")
    X3 = te.placeholder((2, m, 6), name="X3")
    P = te.placeholder((3, 1, 4, 6), name="P")
    Q = te.placeholder((2, 5, 6), name="Q")
    a, b, w, x3, p, q = rand(7, 6), rand(6, 5), rand(5, 6), rand(2, 7, 6), rand(3, 1, 4, 6), rand(2, 5, 6)
    check(
        [(A, a), (B, b), (W, w), (X3, x3), (P, p), (Q, q)],
        [
            (ops.matmul(A, B), a @ b),
            (ops.dense(A, W), a @ w.T),
            (ops.dense(X3, W, name="dense3"), x3 @ w.T),
            (ops.batch_matmul(X3, B, name="bmm_broadcast_rhs"), x3 @ b),
            (ops.batch_matmul(P, Q, transpose_b=True, name="bmm_batch_broadcast"), p @ q.transpose(0, 2, 1)),
            (ops.batch_matmul(W, B, transpose_a=True, transpose_b=True, name="bmm_tt"), w.T @ b.T),
        ],
    )


# ---------------------------------------------------------------------------
# Reductions and normalisation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_reductions_softmax(dtype: str) -> None:
    n = te.var("n")
    X = te.placeholder((n, 4, 6), dtype, name="X")
    x = rand(3, 4, 6, dtype=dtype, low=-3, high=3)
    xd = x.astype(np.float64)
    acc = "float32" if dtype == "float16" else None
    e = np.exp(xd - xd.max(axis=-1, keepdims=True))
    outputs = [
        (ops.sum(X, axis=(1, 2), acc_dtype=acc), xd.sum(axis=(1, 2))),
        (ops.mean(X, axis=-1, keepdims=True, acc_dtype=acc), xd.mean(axis=-1, keepdims=True)),
        (ops.mean(X, axis=0, name="mean_symbolic", acc_dtype=acc), xd.mean(axis=0)),
        (ops.max(X, axis=1), xd.max(axis=1)),
        (ops.min(X, axis=(0, 2), keepdims=True), xd.min(axis=(0, 2), keepdims=True)),
        (ops.softmax(X, axis=-1, acc_dtype=acc), e / e.sum(axis=-1, keepdims=True)),
        (ops.softmax(X, axis=1, name="softmax1", acc_dtype=acc),
         np.exp(xd) / np.exp(xd).sum(axis=1, keepdims=True)),
        (ops.log_softmax(X, axis=-1, acc_dtype=acc), np.log(e / e.sum(axis=-1, keepdims=True))),
    ]
    tol = 1e-5 if dtype == "float32" else 1e-2
    check([(X, x)], outputs, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_layer_norm(dtype: str) -> None:
    n = te.var("n")
    X = te.placeholder((n, 3, 8), dtype, name="X")
    G = te.placeholder((8,), dtype, name="G")
    B = te.placeholder((8,), dtype, name="B")
    G2 = te.placeholder((3, 8), dtype, name="G2")
    x, g, b, g2 = rand(2, 3, 8, dtype=dtype, low=0, high=4), rand(8, dtype=dtype), rand(8, dtype=dtype), rand(3, 8, dtype=dtype)
    xd = x.astype(np.float64)

    def ln(axes: tuple[int, ...]) -> np.ndarray:
        mu = xd.mean(axis=axes, keepdims=True)
        return (xd - mu) / np.sqrt(((xd - mu) ** 2).mean(axis=axes, keepdims=True) + 1e-5)

    acc = "float32" if dtype == "float16" else None
    tol = 1e-5 if dtype == "float32" else 1e-2
    check(
        [(X, x), (G, g), (B, b), (G2, g2)],
        [
            (ops.layer_norm(X, G, B, acc_dtype=acc), ln((2,)) * g.astype(np.float64) + b),
            (ops.layer_norm(X, G2, None, axis=(1, 2), name="ln2", acc_dtype=acc), ln((1, 2)) * g2.astype(np.float64)),
        ],
        rtol=tol,
        atol=tol,
    )


# ---------------------------------------------------------------------------
# Shapes
# ---------------------------------------------------------------------------


def test_shape_ops_static() -> None:
    X = te.placeholder((2, 3, 4, 5), name="X")
    Y = te.placeholder((2, 2, 4, 5), name="Y")
    x, y = rand(2, 3, 4, 5), rand(2, 2, 4, 5)
    check(
        [(X, x), (Y, y)],
        [
            (ops.transpose(X, (0, 2, 3, 1)), x.transpose(0, 2, 3, 1)),
            (ops.transpose(X, name="reverse"), x.transpose()),
            (ops.reshape(X, (6, -1)), x.reshape(6, -1)),
            (ops.reshape(X, (2, 12, 5), name="merge_middle"), x.reshape(2, 12, 5)),
            (ops.reshape(X, (4, 3, 10), name="regroup"), x.reshape(4, 3, 10)),
            (ops.reshape(X, (2, 3, 1, 20, 1), name="with_ones"), x.reshape(2, 3, 1, 20, 1)),
            (ops.flatten(X), x.reshape(2, -1)),
            (ops.expand_dims(X, 1), x[:, None]),
            (ops.squeeze(ops.strided_slice(X, 1, 1, 2, name="one_channel")), x[:, 1]),
            (ops.strided_slice(X, -1, 1, None, 2), x[..., 1::2]),
            (ops.strided_slice(X, 2, -3, 100, name="negative_begin"), x[:, :, -3:100]),
            (ops.take(X, -1, axis=3), x[..., -1]),
            (ops.concatenate([X, Y, X], axis=1), np.concatenate([x, y, x], axis=1)),
            (ops.broadcast_to(ops.strided_slice(X, 1, 0, 1, name="first"), (3, 2, 4, 4, 5)),
             np.broadcast_to(x[:, 0:1], (3, 2, 4, 4, 5))),
            (ops.pad(X, (0, 1, 0, 2), (0, 0, 1, 1), value=-1.0),
             np.pad(x, ((0, 0), (1, 0), (0, 1), (2, 1)), constant_values=-1.0)),
        ],
    )


def test_shape_ops_symbolic() -> None:
    n, h = te.var("n"), te.var("h")
    X = te.placeholder((n, 3, h, 4), name="X")
    outs = [
        ops.flatten(X),
        ops.reshape(X, (n, 3, -1), name="merge_hw"),
        ops.transpose(X, (0, 2, 3, 1)),
        ops.strided_slice(X, 2, 1, -1),
        ops.strided_slice(X, 2, -2, None, name="last_two"),
        ops.concatenate([X, X], axis=2),
    ]
    f = compiler.build([X, *outs])
    for shape in [(1, 3, 5, 4), (2, 3, 8, 4)]:
        x = rand(*shape)
        refs = [
            x.reshape(shape[0], -1),
            x.reshape(shape[0], 3, -1),
            x.transpose(0, 2, 3, 1),
            x[:, :, 1:-1],
            x[:, :, -2:],
            np.concatenate([x, x], axis=2),
        ]
        results = [np.zeros(r.shape, np.float32) for r in refs]
        f(x, *results)
        for got, ref in zip(results, refs, strict=True):
            np.testing.assert_array_equal(got, ref)


def test_reshape_rejects_a_size_change() -> None:
    X = te.placeholder((2, 3), name="X")
    with pytest.raises(ValueError, match="cannot reshape"):
        ops.reshape(X, (4, 2))


def test_conv2d_rejects_bad_groups() -> None:
    X = te.placeholder((1, 4, 5, 5), name="X")
    W = te.placeholder((6, 2, 3, 3), name="W")
    with pytest.raises(ValueError, match="groups"):
        ops.conv2d_nchw(X, W, groups=4)
