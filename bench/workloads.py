"""The benchmark suite's workloads (bench/suite.py runs them): each program built the
same way for every contender, its NumPy reference and the hand schedules (`ours
best`) with the building blocks they share."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gemm_tutorial import packed_kernel_schedule
from seed_chain import seed000_chain

from compiler import ops, te
from compiler.te.schedule import Schedule
from compiler.te.tensors import collect_stages

RNG_SEED = 0


@dataclass
class Workload:
    """One program, built the same way for every contender."""

    key: str
    title: str
    flops: float
    args: list[te.Tensor]  # our program: inputs in call order, the output last
    inputs: list[np.ndarray]  # in the order of args[:-1]
    out_shape: tuple[int, ...]
    best: Callable[[], Schedule]  # our best hand schedule
    torch: Callable[[Any], Callable[[], Any]]  # torch module -> runner returning a tensor
    tvm: Callable[[Any], list[Any]]  # tvm_peer module -> TVM TE program (inputs..., output)
    numpy: Callable[[], Callable[[], np.ndarray]]
    env: dict[str, int] = field(default_factory=dict)  # symbolic sizes at this run
    note: str = ""
    tvm_bytes: bool = True  # TVM's allocation is meaningful (static shapes)
    label: str = ""  # the summary's name (the key by default)


def _rand(rng: np.random.Generator, shape: Sequence[int], scale: float = 1.0) -> np.ndarray:
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def _stages(out: te.Tensor) -> dict[str, te.Tensor]:
    return {t.name: t for t in collect_stages([out])}


# --- NumPy reference kernels -------------------------------------------------


def np_conv_nchw(x: np.ndarray, w: np.ndarray, pad: int) -> np.ndarray:
    """NCHW convolution, stride 1: one matmul per kernel tap (BLAS)."""
    _, c, h, wd = x.shape
    k, _, r, s = w.shape
    xp = np.pad(x[0], ((0, 0), (pad, pad), (pad, pad))) if pad else x[0]
    oh, ow = h + 2 * pad - r + 1, wd + 2 * pad - s + 1
    out = np.zeros((k, oh * ow), np.float32)
    for ry in range(r):
        for rx in range(s):
            patch = np.ascontiguousarray(xp[:, ry : ry + oh, rx : rx + ow]).reshape(c, oh * ow)
            out += w[:, :, ry, rx] @ patch
    return out.reshape(1, k, oh, ow)


def np_conv_nhwc(x: np.ndarray, w: np.ndarray, pad: int) -> np.ndarray:
    """NHWC convolution, stride 1, w [R, S, C, K]: one matmul per kernel tap."""
    _, h, wd, c = x.shape
    r, s, _, k = w.shape
    xp = np.pad(x[0], ((pad, pad), (pad, pad), (0, 0))) if pad else x[0]
    oh, ow = h + 2 * pad - r + 1, wd + 2 * pad - s + 1
    out = np.zeros((oh * ow, k), np.float32)
    for ry in range(r):
        for rx in range(s):
            out += np.ascontiguousarray(xp[ry : ry + oh, rx : rx + ow, :]).reshape(oh * ow, c) @ w[ry, rx]
    return out.reshape(1, oh, ow, k)


# --- schedule building blocks -----------------------------------------------
#
# What the hand schedules avoid, measured while writing them (compiler limits to fix,
# not to work around here):
# * (fixed) `parallel` used to lose `noalias` in the outlined body (its buffers come from
#   a context struct) and LLVM scalarized it: matmul 512 with `parallel(jo)` ran 10x
#   slower (216 ms vs 14 ms serial). lower-to-llvm now gives every load and store
#   scoped-noalias metadata per alias group (compiler/lowering/aliasing.py), kept by
#   the outlined body: the same schedule with `parallel(jo)` ran in 10 ms, accumulators
#   in vector registers.
# * (fixed) intermediate buffers are views of one arena: LLVM couldn't tell them apart
#   (seed 001's NHWC conv2 at 64x64: 14 ms writing an output argument, 140-170 ms
#   writing an intermediate). Views whose byte ranges are disjoint are now separate
#   alias groups (overlapping ones, reused in place or over time, share one).
# * `vectorize` is now explicit vector code at the host's width (vector loads, stores,
#   broadcasts, gathers; scalar tail), not a hint to LLVM's loop vectorizer; a
#   `vectorize`d loop with a vector compare/select (leaky_relu, max pool) or a
#   conditional (an inlined pad) is still left to LLVM. a*b+c is one FMA by default
#   (fp_contract=True, as TVM and PyTorch's kernels); build(..., fp_contract=False)
#   rounds every operation as written.
# * a pad computed inline puts its guard in the conv's inner loop (7x slower).


def host_conv_tile() -> tuple[int, int]:
    """A direct conv's register tile on this host, as (output channels, pixels of a row):
    4 channels x 3 vectors of the host's width, 12 accumulators (AVX2: 4 x 24, AVX-512:
    4 x 48; on AVX-512 a fixed 24 is 1.5 vectors and ran the seed 000 chain 2x slower)."""
    from compiler.analysis.target import host_target

    return 4, 3 * host_target().lanes(32)


def _tile_of(channels: int | None, width: int | None) -> tuple[int, int]:
    host_channels, host_width = host_conv_tile()
    return channels or host_channels, width or host_width


def conv_nchw_blocked(s: Schedule, conv: te.Tensor, channels: int | None = None, width: int | None = None) -> None:
    """NCHW conv blocked over output channels and width (what `auto-schedule` picks on
    AVX2): a register tile of `channels` output channels (unrolled) x `width` pixels of a
    row (3 vectors: 12 accumulators, 7 loads per 12 FMAs), the reduction around it with
    rx unrolled; the channel blocks in parallel. A row of 56 is 2 tiles of 24 and one of
    8, peeled by loop-partition: nn, ff.o (parallel), yy, xx.o, rc, ry, rx, ff.i, xx.i."""
    channels, width = _tile_of(channels, width)
    nn, ff, yy, xx = conv.op.axis
    rc, ry, rx = conv.op.reduce_axis
    fo, fi = s[conv].split(ff, factor=channels)
    xo, xi = s[conv].split(xx, factor=width)
    s[conv].reorder(nn, fo, yy, xo, rc, ry, rx, fi, xi)
    s[conv].unroll(rx)
    s[conv].unroll(fi)
    s[conv].vectorize(xi)
    s[conv].parallel(fo)


def conv_in_epilogue_tile(
    s: Schedule, conv: te.Tensor, out: te.Tensor, channels: int | None = None, width: int | None = None
) -> None:
    """`conv` (NCHW) computed in the register tile of its elementwise consumer `out`
    (bias, residual add, relu inlined into it): `out`'s rows in parallel, its
    `channels` x `width` tiles, and the conv's tile at the tile's outer loop, so the
    conv's output is one tile on the stack, never a tensor written and read back."""
    channels, width = _tile_of(channels, width)
    a0, a1, a2, a3 = out.op.axis
    fo, fi = s[out].split(a1, factor=channels)
    xo, xi = s[out].split(a3, factor=width)
    s[out].reorder(a0, a2, xo, fo, fi, xi)
    s[out].unroll(fi)
    s[out].vectorize(xi)
    s[out].parallel(a2)
    s[conv].compute_at(s[out], fo)
    nn, ff, yy, xx = conv.op.axis
    rc, ry, rx = conv.op.reduce_axis
    s[conv].reorder(nn, yy, rc, ry, rx, ff, xx)
    s[conv].unroll(rx)
    s[conv].unroll(ff)
    s[conv].vectorize(xx)


def pad_rows(s: Schedule, pad: te.Tensor) -> None:
    """A pad stage of its own (guard-aware bounds; inlined, its guard would run in the
    conv's inner loop): channels in parallel, rows as vectors."""
    s[pad].parallel(pad.op.axis[1])
    s[pad].vectorize(pad.op.axis[3])


def conv_nhwc_blocked(s: Schedule, conv: te.Tensor, weights: te.Tensor, rows: int = 4, channels: int = 24) -> None:
    """NHWC conv blocked over output rows and channels (what `auto-schedule` picks on
    AVX2): a register tile of `rows` output rows (unrolled) x `channels` output channels
    (3 vectors, contiguous in the weights and the output), the reduction around it;
    the weights' panel of one channel block packed contiguous (a cache_read computed at
    the block, one copy per thread); the row blocks in parallel. 64 channels are two
    blocks of 24 and a tail of 16, peeled by loop-partition:
    nn, yy.o (parallel), ff.o, xx, ry, rx, rc, yy.i, ff.i."""
    nn, yy, xx, ff = conv.op.axis
    ry, rx, rc = conv.op.reduce_axis
    yo, yi = s[conv].split(yy, factor=rows)
    fo, fi = s[conv].split(ff, factor=channels)
    s[conv].reorder(nn, yo, fo, xx, ry, rx, rc, yi, fi)
    s[conv].unroll(yi)
    s[conv].vectorize(fi)
    s[conv].parallel(yo)
    packed = s.cache_read(weights, "global", [conv])
    s[packed].compute_at(s[conv], fo)
    s[packed].vectorize(packed.op.axis[3])


def inline(s: Schedule, stages: dict[str, te.Tensor], *names: str) -> None:
    for name in names:
        s[stages[name]].compute_inline()


# --- the workloads -----------------------------------------------------------


def seed000(quick: bool) -> Workload:
    """Seed 000: 1x1 conv, two 3x3 pad-1 convs on 1x64xHxW (bench/demo.py's chain)."""
    size = 28 if quick else 56
    inputs, y3 = seed000_chain(size)
    rng = np.random.default_rng(RNG_SEED)
    xs = _rand(rng, (1, 64, size, size))
    ws = [_rand(rng, s, 0.05) for s in [(64, 64, 1, 1), (64, 64, 3, 3), (64, 64, 3, 3)]]

    def best() -> Schedule:
        # every conv blocked over 4 output channels x 3 vectors of a row (host_conv_tile), the channel
        # blocks in parallel; the pads stay stages of their own (58x58, guard-aware bounds)
        s = te.create_schedule(y3.op)
        stages = _stages(y3)
        for conv in ("y1", "y2", "y3"):
            conv_nchw_blocked(s, stages[conv])
        for pad in ("y2_pad", "y3_pad"):
            pad_rows(s, stages[pad])
        return s

    def torch_fn(torch: Any) -> Callable[[], Any]:
        F = torch.nn.functional
        xt, (a, b, c) = torch.from_numpy(xs), [torch.from_numpy(w) for w in ws]
        return lambda: F.conv2d(F.conv2d(F.conv2d(xt, a), b, padding=1), c, padding=1)

    def numpy_fn() -> Callable[[], np.ndarray]:
        return lambda: np_conv_nchw(np_conv_nchw(np_conv_nchw(xs, ws[0], 0), ws[1], 1), ws[2], 1)

    return Workload(
        "seed000", f"seed 000 conv chain 1x64x{size}x{size} (1x1, 3x3, 3x3)",
        2 * 64 * 64 * size * size * (1 + 9 + 9), [*inputs, y3], [xs, *ws], (1, 64, size, size),
        best, torch_fn, lambda tp: tp.seed000(size), numpy_fn,
    )


def conv1x1_relu(quick: bool) -> Workload:
    """A 1x1 conv + relu over symbolic sizes x [1, c, h, w], w [k, c, 1, 1]."""
    env = {"c": 64, "k": 64, "h": 28, "w": 28} if quick else {"c": 128, "k": 128, "h": 56, "w": 56}
    c, h, wd, k = te.var("c"), te.var("h"), te.var("w"), te.var("k")
    x = te.placeholder((1, c, h, wd), name="x")
    w = te.placeholder((k, c, 1, 1), name="wt")
    conv = ops.conv2d_nchw(x, w, name="conv")
    out = ops.relu(conv, name="relu")
    rng = np.random.default_rng(RNG_SEED)
    xs = _rand(rng, (1, env["c"], env["h"], env["w"]))
    ws = _rand(rng, (env["k"], env["c"], 1, 1), 0.1)

    def best() -> Schedule:
        # the conv computed in the relu's register tile (host_conv_tile: 4 channels x 3 vectors of the
        # symbolic width, its tail peeled by loop-partition), the relu's rows in parallel
        s = te.create_schedule(out.op)
        conv_in_epilogue_tile(s, conv, out)
        return s

    def torch_fn(torch: Any) -> Callable[[], Any]:
        F = torch.nn.functional
        xt, wt = torch.from_numpy(xs), torch.from_numpy(ws)
        return lambda: F.relu(F.conv2d(xt, wt))

    def numpy_fn() -> Callable[[], np.ndarray]:
        wm = ws[:, :, 0, 0]
        return lambda: np.maximum(wm @ xs[0].reshape(env["c"], -1), 0).reshape(1, env["k"], env["h"], env["w"])

    return Workload(
        "conv1x1_sym", f"1x1 conv + relu, symbolic c,k,h,w = {env['c']},{env['k']},{env['h']},{env['w']}",
        2 * env["c"] * env["k"] * env["h"] * env["w"], [x, w, out], [xs, ws],
        (1, env["k"], env["h"], env["w"]), best, torch_fn, lambda tp: tp.conv1x1_relu(), numpy_fn,
        env=env, tvm_bytes=False,
    )


def seed001(quick: bool) -> Workload:
    """Seed 001: permute to NHWC, two (3x3 conv + bias + leaky_relu) stages, 2x2 avg pool
    NHWC, permute back. float32: PyTorch's CPU float16 conv is ~100x slower than float32."""
    size = 64 if quick else 256
    x = te.placeholder((1, 3, size, size), name="x")
    w1, b1 = te.placeholder((3, 3, 3, 64), name="w1"), te.placeholder((64,), name="b1")
    w2, b2 = te.placeholder((3, 3, 64, 64), name="w2"), te.placeholder((64,), name="b2")
    xn = ops.transpose(x, (0, 2, 3, 1), name="to_nhwc")
    c1 = ops.conv2d_nhwc(xn, w1, padding=1, name="conv1")
    a1 = ops.leaky_relu(ops.bias_add(c1, b1, axis=3, name="bias1"), name="act1")
    c2 = ops.conv2d_nhwc(a1, w2, padding=1, name="conv2")
    a2 = ops.leaky_relu(ops.bias_add(c2, b2, axis=3, name="bias2"), name="act2")
    pool = ops.avg_pool2d(a2, 2, 2, layout="NHWC", name="pool")
    out = ops.transpose(pool, (0, 3, 1, 2), name="to_nchw")
    st = _stages(out)
    rng = np.random.default_rng(RNG_SEED)
    xs = _rand(rng, (1, 3, size, size))
    w1s, b1s = _rand(rng, (3, 3, 3, 64), 0.2), _rand(rng, (64,), 0.1)
    w2s, b2s = _rand(rng, (3, 3, 64, 64), 0.05), _rand(rng, (64,), 0.1)

    def best() -> Schedule:
        # permutes, biases and activations inlined (into the pads and the pool), the
        # pool's scaling into the output permute; each conv blocked over 4 rows x 24
        # channels with its weights packed per channel block
        s = te.create_schedule(out.op)
        inline(s, st, "to_nhwc", "bias1", "act1", "bias2", "act2", "pool")
        conv_nhwc_blocked(s, c1, w1)
        conv_nhwc_blocked(s, c2, w2)
        for pad in ("conv1_pad", "conv2_pad"):
            s[st[pad]].parallel(st[pad].op.axis[1])
            s[st[pad]].vectorize(st[pad].op.axis[3])
        return s

    def torch_fn(torch: Any) -> Callable[[], Any]:
        F = torch.nn.functional
        xt = torch.from_numpy(xs)
        k1, k2 = (torch.from_numpy(np.ascontiguousarray(w.transpose(3, 2, 0, 1))) for w in (w1s, w2s))
        bt1, bt2 = torch.from_numpy(b1s), torch.from_numpy(b2s)

        def run() -> Any:  # NCHW throughout: the same function as the permuted NHWC program
            h = F.leaky_relu(F.conv2d(xt, k1, bt1, padding=1), 0.1)
            h = F.leaky_relu(F.conv2d(h, k2, bt2, padding=1), 0.1)
            return F.avg_pool2d(h, 2)

        return run

    def numpy_fn() -> Callable[[], np.ndarray]:
        def leaky(v: np.ndarray) -> np.ndarray:
            return np.where(v > 0, v, v * np.float32(0.1))

        def run() -> np.ndarray:
            h = leaky(np_conv_nhwc(xs.transpose(0, 2, 3, 1), w1s, 1) + b1s)
            h = leaky(np_conv_nhwc(h, w2s, 1) + b2s)
            half = size // 2
            p = h.reshape(1, half, 2, half, 2, 64).sum(axis=(2, 4)) * np.float32(0.25)
            return p.transpose(0, 3, 1, 2)

        return run

    return Workload(
        "seed001", f"seed 001 network 1x3x{size}x{size} float32 (NHWC convs, avg pool)",
        2 * size * size * 64 * (27 + 576), [x, w1, b1, w2, b2, out], [xs, w1s, b1s, w2s, b2s],
        (1, 64, size // 2, size // 2), best, torch_fn, lambda tp: tp.seed001_nchw(size), numpy_fn,
        note="float32 (seed 001 is float16; PyTorch's CPU float16 conv is ~100x slower)",
    )


def matmul(n: int) -> Callable[[bool], Workload]:
    def make(quick: bool) -> Workload:
        m = n // 2 if quick else n
        A = te.placeholder((m, m), name="A")
        B = te.placeholder((m, m), name="B")
        C = ops.matmul(A, B, name="C")
        rng = np.random.default_rng(RNG_SEED)
        a, b = _rand(rng, (m, m)), _rand(rng, (m, m))

        def best() -> Schedule:
            # gemm_tutorial.py's step 7: B packed per k block (one copy per thread), a 4 x
            # 3-vector register tile, the column panels in parallel
            return packed_kernel_schedule(A, B, C)

        def torch_fn(torch: Any) -> Callable[[], Any]:
            at, bt = torch.from_numpy(a), torch.from_numpy(b)
            ct = torch.empty((m, m))
            return lambda: torch.mm(at, bt, out=ct)

        def numpy_fn() -> Callable[[], np.ndarray]:
            c = np.empty((m, m), np.float32)
            return lambda: np.matmul(a, b, out=c)

        return Workload(
            f"matmul{n}", f"matmul {m}x{m}x{m}", 2 * m**3, [A, B, C], [a, b], (m, m),
            best, torch_fn, lambda tp: tp.matmul(m), numpy_fn, label=f"matmul{m}",
        )

    return make


def resnet_block(quick: bool) -> Workload:
    """ResNet basic block: 3x3 conv, bias, relu, 3x3 conv, bias, residual add, relu
    (bias: the folded batch norm), 1x64xHxW."""
    size = 28 if quick else 56
    x = te.placeholder((1, 64, size, size), name="x")
    w1, b1 = te.placeholder((64, 64, 3, 3), name="w1"), te.placeholder((64,), name="b1")
    w2, b2 = te.placeholder((64, 64, 3, 3), name="w2"), te.placeholder((64,), name="b2")
    c1 = ops.conv2d_nchw(x, w1, padding=1, name="conv1")
    r1 = ops.relu(ops.bias_add(c1, b1, name="bias1"), name="relu1")
    c2 = ops.conv2d_nchw(r1, w2, padding=1, name="conv2")
    out = ops.relu(ops.add(ops.bias_add(c2, b2, name="bias2"), x, name="add"), name="relu2")
    st = _stages(out)
    rng = np.random.default_rng(RNG_SEED)
    xs = _rand(rng, (1, 64, size, size))
    w1s, b1s = _rand(rng, (64, 64, 3, 3), 0.05), _rand(rng, (64,), 0.1)
    w2s, b2s = _rand(rng, (64, 64, 3, 3), 0.05), _rand(rng, (64,), 0.1)

    def best() -> Schedule:
        # bias1 + relu1 inlined into conv2's pad, bias2 + add into the final relu; conv1
        # blocked over 4 output channels x 3 vectors of a row (host_conv_tile), conv2 computed in the final relu's
        # tile of the same shape (its output never a tensor)
        s = te.create_schedule(out.op)
        inline(s, st, "bias1", "relu1", "bias2", "add")
        conv_nchw_blocked(s, c1)
        conv_in_epilogue_tile(s, c2, out)
        for pad in ("conv1_pad", "conv2_pad"):
            pad_rows(s, st[pad])
        return s

    def torch_fn(torch: Any) -> Callable[[], Any]:
        F = torch.nn.functional
        xt = torch.from_numpy(xs)
        k1, k2, bt1, bt2 = (torch.from_numpy(v) for v in (w1s, w2s, b1s, b2s))
        return lambda: F.relu(F.conv2d(F.relu(F.conv2d(xt, k1, bt1, padding=1)), k2, bt2, padding=1) + xt)

    def numpy_fn() -> Callable[[], np.ndarray]:
        def run() -> np.ndarray:
            h = np.maximum(np_conv_nchw(xs, w1s, 1) + b1s[:, None, None], 0)
            return np.maximum(np_conv_nchw(h, w2s, 1) + b2s[:, None, None] + xs, 0)

        return run

    return Workload(
        "resnet_block", f"ResNet basic block 1x64x{size}x{size}", 2 * 2 * 64 * 64 * 9 * size * size,
        [x, w1, b1, w2, b2, out], [xs, w1s, b1s, w2s, b2s], (1, 64, size, size),
        best, torch_fn, lambda tp: tp.resnet_block(size), numpy_fn,
        note="with bias (a folded batch norm) after each conv",
    )


def max_pool(quick: bool) -> Workload:
    """ResNet's stem max pool: 3x3 windows, stride 2, padding 1 on 1x64xHxW."""
    size = 56 if quick else 112
    half = (size + 2 - 3) // 2 + 1
    x = te.placeholder((1, 64, size, size), name="x")
    out = ops.max_pool2d(x, 3, 2, 1, name="pool")
    rng = np.random.default_rng(RNG_SEED)
    xs = _rand(rng, (1, 64, size, size))

    def best() -> Schedule:
        # 8 output columns (4 if 8 does not divide the width: a tail would need a
        # guard) as a vector, the 3x3 window loops outside them (the max accumulates in
        # the vector): nn, ff, yy, xx.o, ry, rx, xx.i (vectorize)
        s = te.create_schedule(out.op)
        nn, ff, yy, xx = out.op.axis
        ry, rx = out.op.reduce_axis
        xo, xi = s[out].split(xx, factor=8 if half % 8 == 0 else 4)
        s[out].reorder(nn, ff, yy, xo, ry, rx, xi)
        s[out].vectorize(xi)
        return s

    def torch_fn(torch: Any) -> Callable[[], Any]:
        xt = torch.from_numpy(xs)
        return lambda: torch.nn.functional.max_pool2d(xt, 3, 2, 1)

    def numpy_fn() -> Callable[[], np.ndarray]:
        def run() -> np.ndarray:
            xp = np.pad(xs, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
            r = xp[:, :, 0 : 2 * half : 2, 0 : 2 * half : 2]
            for ry in range(3):
                for rx in range(3):
                    if ry or rx:
                        r = np.maximum(r, xp[:, :, ry : ry + 2 * half : 2, rx : rx + 2 * half : 2])
            return r

        return run

    return Workload(
        "maxpool", f"max pool 3x3/2 pad 1, 1x64x{size}x{size}", 9 * 64 * half * half,
        [x, out], [xs], (1, 64, half, half), best, torch_fn, lambda tp: tp.max_pool(size), numpy_fn,
    )


def elementwise(quick: bool) -> Workload:
    """out = relu(x * y + z) * 0.5 over n float32, one stage per operator."""
    n = 1 << (18 if quick else 22)
    x, y, z = (te.placeholder((n,), name=v) for v in "xyz")
    m = ops.multiply(x, y, name="mul")
    a = ops.add(m, z, name="add")
    r = ops.relu(a, name="relu")
    out = ops.multiply(r, 0.5, name="out")
    rng = np.random.default_rng(RNG_SEED)
    xs, ys, zs = (_rand(rng, (n,)) for _ in range(3))

    def best() -> Schedule:
        # the whole chain inlined into one loop (no intermediate buffer), an inner vector
        # loop of 64 (LLVM vectorizes it 8 wide and interleaves)
        s = te.create_schedule(out.op)
        for t in (m, a, r):
            s[t].compute_inline()
        (i,) = out.op.axis
        _io, ii = s[out].split(i, factor=64)
        s[out].vectorize(ii)
        return s

    def torch_fn(torch: Any) -> Callable[[], Any]:
        xt, yt, zt = (torch.from_numpy(v) for v in (xs, ys, zs))
        t, o = torch.empty(n), torch.empty(n)

        def run() -> Any:
            torch.mul(xt, yt, out=t)
            t.add_(zt).relu_()
            return torch.mul(t, 0.5, out=o)

        return run

    def numpy_fn() -> Callable[[], np.ndarray]:
        t, o = np.empty(n, np.float32), np.empty(n, np.float32)

        def run() -> np.ndarray:
            np.multiply(xs, ys, out=t)
            np.add(t, zs, out=t)
            np.maximum(t, 0, out=t)
            return np.multiply(t, np.float32(0.5), out=o)

        return run

    return Workload(
        "elementwise", f"elementwise chain relu(x*y+z)*0.5, n=2^{n.bit_length() - 1}", 4 * n,
        [x, y, z, out], [xs, ys, zs], (n,), best, torch_fn, lambda tp: tp.elementwise_chain(n), numpy_fn,
    )


WORKLOADS: dict[str, Callable[[bool], Workload]] = {
    "seed000": seed000,
    "conv1x1_sym": conv1x1_relu,
    "seed001": seed001,
    "matmul512": matmul(512),
    "matmul1024": matmul(1024),
    "matmul1000": matmul(1000),  # a size no power-of-two tile divides
    "resnet_block": resnet_block,
    "maxpool": max_pool,
    "elementwise": elementwise,
}
