"""The main job: compile seed 000's chain of three padded convolutions, run it,
check it against NumPy, and show what the compiler did.

    make demo
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import compiler  # noqa: E402
from common import intermediate_buffers, median_seconds  # noqa: E402
from compiler import ops, te  # noqa: E402


def conv2d_numpy(x: np.ndarray, w: np.ndarray, pad: int) -> np.ndarray:
    """Reference NCHW convolution, stride 1, via one matmul per kernel tap."""
    n, c, h, wd = x.shape
    k, _, r, s = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = h + 2 * pad - r + 1, wd + 2 * pad - s + 1
    out = np.zeros((n, k, oh, ow), np.float32)
    for ry in range(r):
        for rx in range(s):
            patch = xp[:, :, ry : ry + oh, rx : rx + ow]
            out += np.einsum("nchw,kc->nkhw", patch, w[:, :, ry, rx], optimize=True)
    return out


def main() -> None:
    print("Seed 000: three chained convolutions (1x1 pad 0, 3x3 pad 1, 3x3 pad 1) on 1x64x56x56\n")
    x = te.placeholder((1, 64, 56, 56), name="x")
    w1 = te.placeholder((64, 64, 1, 1), name="w1")
    w2 = te.placeholder((64, 64, 3, 3), name="w2")
    w3 = te.placeholder((64, 64, 3, 3), name="w3")
    y1 = ops.conv2d_nchw(x, w1, padding=0, name="y1")
    y2 = ops.conv2d_nchw(y1, w2, padding=1, name="y2")
    y3 = ops.conv2d_nchw(y2, w3, padding=1, name="y3")
    args = [x, w1, w2, w3, y1, y2, y3]

    start = time.perf_counter()
    f = compiler.build(args, name="conv_chain")
    compile_s = time.perf_counter() - start

    print("Intermediate buffers (realized by the compiler):")
    total = 0
    for name, shape, nbytes in intermediate_buffers(f.loop_ir):
        total += nbytes
        print(f"  {name:<12} {shape:<16} {nbytes:>10,} bytes")
    print(f"  {'total':<12} {'':<16} {total:>10,} bytes\n")

    rng = np.random.default_rng(0)
    xs = rng.standard_normal((1, 64, 56, 56)).astype(np.float32)
    ws = [rng.standard_normal(s).astype(np.float32) * 0.05 for s in [(64, 64, 1, 1), (64, 64, 3, 3), (64, 64, 3, 3)]]
    outs = [np.zeros((1, 64, 56, 56), np.float32) for _ in range(3)]
    run = lambda: f(xs, *ws, *outs)  # noqa: E731
    run_s = median_seconds(run, repeats=3)

    r1 = conv2d_numpy(xs, ws[0], 0)
    r2 = conv2d_numpy(r1, ws[1], 1)
    r3 = conv2d_numpy(r2, ws[2], 1)
    numpy_s = median_seconds(lambda: conv2d_numpy(conv2d_numpy(conv2d_numpy(xs, ws[0], 0), ws[1], 1), ws[2], 1), repeats=3)
    errors = [float(np.max(np.abs(o - r))) for o, r in zip(outs, (r1, r2, r3), strict=True)]
    ok = all(np.allclose(o, r, rtol=1e-3, atol=1e-3) for o, r in zip(outs, (r1, r2, r3), strict=True))

    flops = 2 * 64 * 56 * 56 * 64 * (1 + 9 + 9)
    print(f"compile time        {compile_s:8.2f} s  (passes {f.stats.seconds['passes']:.2f} s, LLVM {f.stats.seconds['llvm']:.2f} s)")
    print(f"run time (median)   {run_s * 1e3:8.1f} ms  ({flops / run_s / 1e9:.2f} GFLOP/s)")
    print(f"NumPy reference     {numpy_s * 1e3:8.1f} ms  (einsum per kernel tap)")
    print(f"max |error|         {max(errors):.2e}  -> {'OK' if ok else 'MISMATCH'}")
    if not ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
