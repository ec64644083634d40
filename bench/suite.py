"""The benchmark suite: this project next to PyTorch, Apache TVM and NumPy, in one run.

    .venv/bin/python bench/run.py            # make bench runs this (then bench/memory.py)
    .venv/bin/python bench/run.py --quick    # 3 rounds, smaller workloads (a minute or two)
    .venv/bin/python bench/run.py --only matmul512,maxpool --rounds 9 --json out.json

For every workload, the contenders are this project without a schedule
(`ours none`), this project with the best hand schedule the primitives allow
(`ours best`, one small function per workload below, with a comment saying
what it does), PyTorch with 2 threads and with 1 thread
(`torch.set_num_threads`), Apache TVM 0.27 without a schedule
(`te.create_prim_func` + `tvm.compile` for the host CPU, bench/tvm_peer.py)
and NumPy (one OpenBLAS thread, see below). A peer whose import fails shows
`n/a`.

Method: every contender's output is checked once against the reference
(PyTorch with 2 threads, NumPy without PyTorch) before anything is timed.
Then R interleaved rounds run every contender in turn (ours none, ours best,
each peer), each a few calls (as many as fit in about 0.1 s, at least one);
a contender's time in a round is the mean of its calls. The table shows the
median over the rounds and its spread, IQR / median; a row whose spread is
above 25% is marked `~` and should not be trusted. GFLOP/s counts 2 x MACs
for convolutions and matmuls (bias, activations and pools not counted), one
operation per window element for the max pool and one per operator and
element for the elementwise chain. `x torch2` (`x torch1`) is the time over
PyTorch's time with 2 threads (1 thread): above 1 is slower than PyTorch. The
bytes columns are the intermediate memory of our plan
(`compiler.build(...).memory`: the arena storage-rewrite plans) next to the
liveness lower bound (the most bytes live at one statement; in-place writes
can go below it), and for TVM its allocation after StorageRewrite. Compile
time is not measured here (bench/compile_time.py).

Threads: unless they are set already, OMP_WAIT_POLICY=PASSIVE (a spinning
OpenMP runtime makes PyTorch's 2-thread calls 20x slower on a loaded 2-core
machine) and OPENBLAS_NUM_THREADS=1 (NumPy as a single-thread baseline, like
our schedules, which are serial: see `parallel` below).

The table is also written as JSON (bench/results/<date>-<host>.json, or
--json PATH) so that runs can be compared.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import platform
import socket
import statistics
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

# Thread pools on a shared, oversubscribed machine: an OpenMP runtime that spins while
# waiting (libgomp's default, PyTorch's runtime) and a multi-threaded OpenBLAS make every
# 2-thread call wait for a descheduled thread (measured at load 7 on 2 cores: PyTorch's
# 3x3 conv at 1x64x28x28 took 64 ms with 2 threads, 3 ms with 1 or with passive waits;
# NumPy's 256^3 matmul 3-30 ms with 2 BLAS threads, 1 ms with 1). Unless they are set
# already: passive OpenMP waits, and NumPy on one BLAS thread.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gemm_tutorial import packed_kernel_schedule

import compiler
from compiler import ops, te
from compiler.te.expr import collect_stages
from compiler.te.schedule import Schedule

HERE = os.path.dirname(os.path.abspath(__file__))

SPREAD_LIMIT = 0.25  # a spread (IQR / median) above this marks a row as untrusted
RNG_SEED = 0

# ---------------------------------------------------------------------------
# Optional peers
# ---------------------------------------------------------------------------


def _import_torch() -> Any:
    try:
        import torch
    except Exception as e:  # any import failure makes the peer n/a
        return f"n/a ({type(e).__name__}: {e})"
    torch.set_grad_enabled(False)
    global _DEFAULT_TORCH_THREADS
    _DEFAULT_TORCH_THREADS = torch.get_num_threads()
    return torch


# PyTorch's libgomp is the one our JIT code calls (the same soname, loaded first), and
# torch.set_num_threads sets that runtime's thread count for the calling thread: after
# `torch 1t` ran, our parallel loops ran on one thread too (every `ours` figure of the
# earlier runs after the first round). Contenders without a thread count get the
# default back before they run.
_DEFAULT_TORCH_THREADS = 1


def _set_threads(c: Contender, torch: Any) -> None:
    if not isinstance(torch, str):
        torch.set_num_threads(c.threads if c.threads is not None else _DEFAULT_TORCH_THREADS)


def _import_tvm() -> Any:
    try:
        import tvm  # noqa: F401
        import tvm_peer
    except Exception as e:
        return f"n/a ({type(e).__name__}: {e})"
    return tvm_peer


# ---------------------------------------------------------------------------
# Workloads
# ---------------------------------------------------------------------------


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
    x = te.placeholder((1, 64, size, size), name="x")
    w1 = te.placeholder((64, 64, 1, 1), name="w1")
    w2 = te.placeholder((64, 64, 3, 3), name="w2")
    w3 = te.placeholder((64, 64, 3, 3), name="w3")
    y1 = ops.conv2d_nchw(x, w1, padding=0, name="y1")
    y2 = ops.conv2d_nchw(y1, w2, padding=1, name="y2")
    y3 = ops.conv2d_nchw(y2, w3, padding=1, name="y3")
    rng = np.random.default_rng(RNG_SEED)
    xs = _rand(rng, (1, 64, size, size))
    ws = [_rand(rng, s, 0.05) for s in [(64, 64, 1, 1), (64, 64, 3, 3), (64, 64, 3, 3)]]

    def best() -> Schedule:
        # every conv blocked over 4 output channels x 3 vectors of a row (host_conv_tile), the channel
        # blocks in parallel; the pads stay stages of their own (58x58, guard-aware bounds)
        s = te.create_schedule(y3.op)
        stages = _stages(y3)
        for conv in (y1, y2, y3):
            conv_nchw_blocked(s, conv)
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
        2 * 64 * 64 * size * size * (1 + 9 + 9), [x, w1, w2, w3, y3], [xs, *ws], (1, 64, size, size),
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

# ---------------------------------------------------------------------------
# Contenders
# ---------------------------------------------------------------------------


@dataclass
class Contender:
    name: str
    run: Callable[[], Any] | None  # None: not available (see status)
    output: Callable[[], np.ndarray] | None = None  # the result of the last run
    status: str = ""
    threads: int | None = None  # torch's intra-op threads while it runs
    memory: dict[str, Any] | None = None
    rounds: list[float] = field(default_factory=list)
    calls: int = 1
    max_abs_error: float | None = None
    first_seconds: float = 0.0  # the verification call


def _evaluate_bytes(expr: str, env: dict[str, int]) -> int | None:
    from compiler.arith.expr import evaluate, parse_expr

    try:
        return int(evaluate(parse_expr(expr), env))
    except Exception:  # an expression we can't evaluate is shown as unknown
        return None


def memory_of(fn: compiler.Function, env: dict[str, int]) -> dict[str, Any]:
    """Intermediate bytes of our plan (the arena) and the liveness lower bound."""
    plan = fn.memory
    if plan is None:
        return {"arena": 0, "lower_bound": 0, "buffers": 0}
    arena = _evaluate_bytes(plan.arena, env)
    bound = plan.lower_bound
    if bound is None:  # symbolic sizes: the most bytes live at one statement, at this run's sizes
        sizes = [(b, _evaluate_bytes(b.size, env)) for b in plan.buffers]
        if all(sz is not None for _, sz in sizes):
            end = max(b.last for b, _ in sizes)
            bound = max(sum(sz or 0 for b, sz in sizes if b.first <= k <= b.last) for k in range(end + 1))
    return {
        "arena": arena,
        "lower_bound": bound,
        "buffers": len(plan.buffers),
        "arena_expr": plan.arena,
        "stack_per_thread": sum(plan.stack.values()),  # packed panels, register tiles
    }


def ours(w: Workload, variant: str, tuning_log: str | None = None) -> Contender:
    """`none`: build() without a schedule (the auto-scheduler), `off`: without a schedule
    and without the auto-scheduler (TVM's default), `tuned`: the tuning log's schedule,
    `best`: the hand schedule."""
    name = f"ours {variant}"
    try:
        if variant == "none":
            fn = compiler.build(w.args, name=w.key, tuning_log=os.devnull)
        elif variant == "off":
            fn = compiler.build(w.args, name=w.key, auto_schedule=False)
        elif variant == "tuned":
            if tuning_log is None:
                return Contender(name, None, status="n/a (no --tuning-log)")
            fn = compiler.build(w.args, name=w.key, tuning_log=tuning_log)
        else:
            fn = compiler.build(w.best(), w.args, name=w.key)
    except Exception as e:  # reported in the table, the run goes on
        return Contender(name, None, status=f"FAILED to compile: {type(e).__name__}: {_first_line(e)}")
    out = np.zeros(w.out_shape, np.float32)
    arrays = [*w.inputs, out]
    return Contender(name, lambda: fn(*arrays), lambda: out, memory=memory_of(fn, w.env))


def torch_contender(w: Workload, torch: Any, threads: int) -> Contender:
    name = f"torch {threads}t"
    if isinstance(torch, str):
        return Contender(name, None, status=torch)
    try:
        run = w.torch(torch)
    except Exception as e:
        return Contender(name, None, status=f"FAILED: {type(e).__name__}: {_first_line(e)}")
    last: list[Any] = [None]

    def timed() -> Any:
        last[0] = run()
        return last[0]

    return Contender(name, timed, lambda: np.asarray(last[0].numpy()), threads=threads)


def tvm_contender(w: Workload, tvm_peer: Any) -> Contender:
    name = "TVM none"
    if isinstance(tvm_peer, str):
        return Contender(name, None, status=tvm_peer)
    try:
        import tvm

        program = w.tvm(tvm_peer)
        fn = tvm_peer.compile_program(program)
        arrays = [tvm.runtime.tensor(a) for a in w.inputs]
        out = tvm.runtime.empty(w.out_shape, "float32")
        memory = None
        if w.tvm_bytes:
            memory = {"arena": tvm_peer.allocated_bytes(w.tvm(tvm_peer)), "lower_bound": None}
    except Exception as e:
        return Contender(name, None, status=f"FAILED: {type(e).__name__}: {_first_line(e)}")
    return Contender(name, lambda: fn(*arrays, out), lambda: out.numpy(), memory=memory)


def numpy_contender(w: Workload) -> Contender:
    run = w.numpy()
    last: list[np.ndarray | None] = [None]

    def timed() -> np.ndarray:
        last[0] = run()
        return last[0]

    return Contender("NumPy", timed, lambda: np.asarray(last[0]))


def tune_workload(w: Workload, args: argparse.Namespace) -> float:
    """Tunes `w` into the tuning log; the seconds it took."""
    start = time.perf_counter()
    result = compiler.tune(w.args, trials=args.tune_trials, timeout=args.tune_seconds, log=args.tuning_log,
                           sizes=w.env, name=w.key)
    seconds = time.perf_counter() - start
    print(f"  tuned {w.key}: {result.trials} trials in {seconds:.0f} s, auto {result.baseline_ms} ms -> {result.best_ms} ms")
    return seconds


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0][:300] if text else ""


# ---------------------------------------------------------------------------
# Measurement
# ---------------------------------------------------------------------------


def _call(c: Contender, torch: Any) -> None:
    _set_threads(c, torch)
    assert c.run is not None
    c.run()


def verify(contenders: list[Contender], torch: Any) -> None:
    """Run every contender once and compare its output with the reference (PyTorch with
    2 threads, or NumPy without PyTorch)."""
    reference: np.ndarray | None = None
    for c in contenders:
        if c.run is None:
            continue
        try:
            start = time.perf_counter()
            _call(c, torch)
            c.first_seconds = time.perf_counter() - start
            assert c.output is not None
            result = np.asarray(c.output(), dtype=np.float32)
        except Exception as e:
            c.status = f"FAILED to run: {type(e).__name__}: {_first_line(e)}"
            c.run = None
            continue
        if c.name in ("torch 2t", "NumPy") and reference is None:
            reference = result
        c.max_abs_error = None if reference is None else _error(result, reference)
    if reference is None:
        return
    scale = float(np.max(np.abs(reference))) or 1.0
    for c in contenders:
        if c.run is None:
            continue
        if c.max_abs_error is None:  # ran before the reference existed
            assert c.output is not None
            c.max_abs_error = _error(np.asarray(c.output(), dtype=np.float32), reference)
        if not np.isfinite(c.max_abs_error) or c.max_abs_error > 1e-3 * scale + 1e-5:
            c.status = f"MISMATCH (max |error| {c.max_abs_error:.3g}, max |ref| {scale:.3g})"
        else:
            c.status = "ok"


def _error(result: np.ndarray, reference: np.ndarray) -> float:
    if result.shape != reference.shape:
        return float("inf")
    return float(np.max(np.abs(result - reference)))


def measure(contenders: list[Contender], torch: Any, rounds: int, round_seconds: float) -> None:
    """Interleaved rounds: each round runs every contender in turn, a few calls each."""
    live = [c for c in contenders if c.run is not None]
    for c in live:  # how many calls fit in round_seconds
        if c.first_seconds > 2 * round_seconds:
            continue  # slow: one call a round (its first call was warm-up enough)
        start = time.perf_counter()
        _call(c, torch)
        once = time.perf_counter() - start
        c.calls = max(1, min(50, int(round_seconds / max(once, 1e-6))))
    for _ in range(rounds):
        for c in live:
            _set_threads(c, torch)
            assert c.run is not None
            start = time.perf_counter()
            for _ in range(c.calls):
                c.run()
            c.rounds.append((time.perf_counter() - start) / c.calls)


def stats(samples: list[float]) -> dict[str, float]:
    med = statistics.median(samples)
    if len(samples) >= 2:
        q1, _, q3 = statistics.quantiles(samples, n=4, method="inclusive")
    else:
        q1 = q3 = med
    return {
        "median_ms": med * 1e3,
        "min_ms": min(samples) * 1e3,
        "max_ms": max(samples) * 1e3,
        "iqr_over_median": (q3 - q1) / med if med else 0.0,
        "range_over_median": (max(samples) - min(samples)) / med if med else 0.0,
    }


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------


def _fmt_bytes(v: int | None) -> str:
    if v is None:
        return "?"
    return f"{v / 1024:,.0f}K" if v >= 1024 else f"{v}"


def _bytes_cell(r: dict[str, Any]) -> str:
    if "intermediate_bytes" not in r:
        return ""
    if "liveness_lower_bound" in r:  # ours: the plan / the liveness lower bound (+ per-thread stack)
        stack = r.get("stack_bytes_per_thread") or 0
        extra = f" +{_fmt_bytes(stack)}/thr" if stack >= 1024 else ""
        return f"{_fmt_bytes(r['intermediate_bytes'])} / {_fmt_bytes(r['liveness_lower_bound'])}{extra}"
    return _fmt_bytes(r["intermediate_bytes"])  # TVM's allocation


def workload_rows(w: Workload, contenders: list[Contender]) -> list[dict[str, Any]]:
    medians = {c.name: statistics.median(c.rounds) for c in contenders if c.rounds}
    t2, t1 = medians.get("torch 2t"), medians.get("torch 1t")
    rows = []
    for c in contenders:
        row: dict[str, Any] = {"contender": c.name, "status": c.status, "calls_per_round": c.calls}
        if c.rounds:
            s = stats(c.rounds)
            row.update(s)
            row["rounds_ms"] = [r * 1e3 for r in c.rounds]
            row["gflops"] = w.flops / (s["median_ms"] / 1e3) / 1e9
            row["ratio_to_torch2"] = s["median_ms"] / 1e3 / t2 if t2 else None
            row["ratio_to_torch1"] = s["median_ms"] / 1e3 / t1 if t1 else None
            row["untrusted"] = s["iqr_over_median"] > SPREAD_LIMIT
        if c.memory is not None:
            row["intermediate_bytes"] = c.memory.get("arena")
            row["stack_bytes_per_thread"] = c.memory.get("stack_per_thread", 0)
            if c.name.startswith("ours"):
                row["liveness_lower_bound"] = c.memory.get("lower_bound")
        if c.max_abs_error is not None:
            row["max_abs_error"] = c.max_abs_error
        rows.append(row)
    return rows


HEADER = (f"  {'contender':<10} {'ms':>10} {'spread':>7} {'GFLOP/s':>8} {'x torch2':>9} {'x torch1':>9}"
          f" {'bytes (plan / LB)':>19}  check")


def print_workload(w: Workload, rows: list[dict[str, Any]]) -> None:
    print(f"\n{w.title}: {w.flops / 1e9:.3g} GFLOP" + (f"  [{w.note}]" if w.note else ""))
    print(HEADER)
    for r in rows:
        if "median_ms" not in r:
            print(f"  {r['contender']:<10} {'n/a':>10}  {r['status']}")
            continue
        mark = "~" if r["untrusted"] else " "
        r2 = f"{r['ratio_to_torch2']:.2f}x" if r.get("ratio_to_torch2") else "-"
        r1 = f"{r['ratio_to_torch1']:.2f}x" if r.get("ratio_to_torch1") else "-"
        print(
            f"  {r['contender']:<10} {r['median_ms']:>10.3f} {r['iqr_over_median']:>6.0%}{mark} {r['gflops']:>8.2f} "
            f"{r2:>9} {r1:>9} {_bytes_cell(r):>19}  {r['status'][:70]}"
        )


def print_summary(results: list[dict[str, Any]], names: list[str]) -> None:
    print("\nSummary: median ms (~: spread > 25%, untrusted); ours best's time over PyTorch's (2 and 1 threads)")
    print(f"  {'workload':<14}" + "".join(f"{n:>12}" for n in names) + f"{'best/torch2':>13}{'best/torch1':>13}")
    for res in results:
        by = {r["contender"]: r for r in res["rows"]}
        cells = []
        for n in names:
            r = by.get(n)
            if r is None or "median_ms" not in r:
                cells.append(f"{'n/a':>12}")
            else:
                cells.append(f"{r['median_ms']:>11.2f}{'~' if r['untrusted'] else ' '}")
        best = by.get("ours best", {})
        ratios = "".join(f"{v:>12.2f}x" if v else f"{'-':>13}"
                         for v in (best.get("ratio_to_torch2"), best.get("ratio_to_torch1")))
        print(f"  {res['label']:<14}" + "".join(cells) + ratios)
    print("\nWithout a schedule (none: auto-scheduled, tuned: the tuning log's): our time over PyTorch 2t's"
          " (x/torch2, below 1: faster) and TVM none's time over ours (TVM/x: our speed-up); tuning seconds")
    print(f"  {'workload':<14}{'none/torch2':>13}{'TVM/none':>10}{'tuned/torch2':>14}{'TVM/tuned':>11}{'tuning s':>10}")
    for res in results:
        by = {r["contender"]: r for r in res["rows"]}

        def ms(name: str, by: dict[str, Any] = by) -> float | None:
            r = by.get(name)
            return r.get("median_ms") if r else None

        def ratio(a: float | None, b: float | None) -> str:
            return f"{a / b:.2f}x" if a and b else "-"

        none, tuned, torch2, tvm = ms("ours none"), ms("ours tuned"), ms("torch 2t"), ms("TVM none")
        tune_s = res.get("tune_seconds")
        print(f"  {res['label']:<14}{ratio(none, torch2):>13}{ratio(tvm, none):>10}{ratio(tuned, torch2):>14}"
              f"{ratio(tvm, tuned):>11}{'-' if tune_s is None else f'{tune_s:.0f}':>10}")


def environment(torch: Any, tvm_peer: Any) -> dict[str, Any]:
    env: dict[str, Any] = {
        "host": socket.gethostname(),
        "cpu": _cpu_name(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "compiler": getattr(compiler, "__version__", "?"),
        "torch": torch if isinstance(torch, str) else torch.__version__,
    }
    if isinstance(tvm_peer, str):
        env["tvm"] = tvm_peer
    else:
        import tvm

        env["tvm"] = tvm.__version__
        env["tvm_target"] = str(tvm_peer.target())
    env["OMP_WAIT_POLICY"] = os.environ.get("OMP_WAIT_POLICY")
    env["OPENBLAS_NUM_THREADS"] = os.environ.get("OPENBLAS_NUM_THREADS")
    with contextlib.suppress(OSError):
        env["load_average"] = [round(v, 2) for v in os.getloadavg()]
    return env


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def default_json_path() -> str:
    stamp = datetime.datetime.now().strftime("%Y-%m-%d-%H%M%S")
    return os.path.join(HERE, "results", f"{stamp}-{socket.gethostname()}.json")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 rounds, smaller workloads")
    parser.add_argument("--rounds", type=int, default=None, help="interleaved rounds (default 7, quick 3)")
    parser.add_argument("--round-seconds", type=float, default=None, help="time per contender and round (default 0.1, quick 0.03)")
    parser.add_argument("--only", default="", help=f"comma-separated workloads: {','.join(WORKLOADS)}")
    parser.add_argument("--tuning-log", default=None, help="the `ours tuned` contender builds with this tuning log")
    parser.add_argument("--tune-trials", type=int, default=0,
                        help="first tune each workload (compiler.tune, this many trials) into --tuning-log")
    parser.add_argument("--tune-seconds", type=float, default=300.0, help="the tuning time limit per workload")
    parser.add_argument("--json", default=None, help="where to write the results (default bench/results/<date>-<host>.json)")
    args = parser.parse_args(argv)
    if args.tune_trials and not args.tuning_log:
        parser.error("--tune-trials needs --tuning-log")
    rounds = args.rounds or (3 if args.quick else 7)
    round_seconds = args.round_seconds or (0.03 if args.quick else 0.1)
    keys = [k.strip() for k in args.only.split(",") if k.strip()] or list(WORKLOADS)
    unknown = [k for k in keys if k not in WORKLOADS]
    if unknown:
        parser.error(f"unknown workloads {unknown}; choose from {list(WORKLOADS)}")

    torch, tvm_peer = _import_torch(), _import_tvm()
    env = environment(torch, tvm_peer)
    print(f"bench/suite.py: {rounds} interleaved rounds, ~{round_seconds:g} s per contender and round"
          f"{' (quick)' if args.quick else ''}")
    print(f"  {env['cpu']}, {env['cores']} cores, host {env['host']}, load average {env.get('load_average')}")
    print(f"  torch {env['torch']} | TVM {env['tvm']} {env.get('tvm_target', '')} | NumPy {env['numpy']}")
    print(f"  OMP_WAIT_POLICY={env['OMP_WAIT_POLICY']} OPENBLAS_NUM_THREADS={env['OPENBLAS_NUM_THREADS']}")

    start = time.perf_counter()
    results = []
    names = ["ours off", "ours none", "ours tuned", "ours best", "torch 2t", "torch 1t", "TVM none", "NumPy"]
    for key in keys:
        w = WORKLOADS[key](args.quick)
        tune_seconds = tune_workload(w, args) if args.tune_trials else None
        contenders = [
            ours(w, "off"),
            ours(w, "none"),
            ours(w, "tuned", args.tuning_log),
            ours(w, "best"),
            torch_contender(w, torch, 2),
            torch_contender(w, torch, 1),
            tvm_contender(w, tvm_peer),
            numpy_contender(w),
        ]
        try:
            verify(contenders, torch)
            measure(contenders, torch, rounds, round_seconds)
        except Exception:  # one broken workload must not end the run
            traceback.print_exc()
        rows = workload_rows(w, contenders)
        print_workload(w, rows)
        results.append({"key": w.key, "label": w.label or w.key, "title": w.title, "gflop": w.flops / 1e9, "note": w.note, "env": w.env,
                        "rows": rows, "tune_seconds": tune_seconds})
        sys.stdout.flush()
    print_summary(results, names)
    elapsed = time.perf_counter() - start

    path = args.json or default_json_path()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    document = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "quick": args.quick,
        "rounds": rounds,
        "round_seconds": round_seconds,
        "spread": "IQR / median over rounds; untrusted above 0.25",
        "ratio": "median time / median time of torch 2t (ratio_to_torch2) or torch 1t (ratio_to_torch1)",
        "seconds": elapsed,
        "environment": env,
        "workloads": results,
    }
    with open(path, "w") as f:
        json.dump(document, f, indent=1)
    print(f"\n{elapsed:.0f} s; results written to {os.path.relpath(path)}")
    failed = [(res["key"], r["contender"], r["status"]) for res in results for r in res["rows"]
              if r["contender"].startswith("ours") and r["status"] != "ok" and not r["status"].startswith("n/a")]
    for key, who, status in failed:
        print(f"  {key}: {who}: {status}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
