"""The main job: compile seed 000's chain of three padded convolutions, run it,
check it against NumPy, and show what the compiler did.

    make demo
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import median_seconds, timed_result
from seed_chain import seed000_chain

import compiler
from compiler import te
from compiler.te.schedule import Schedule


def conv2d_numpy(x: np.ndarray, w: np.ndarray, pad: int) -> np.ndarray:
    """Reference NCHW convolution, stride 1, via one matmul per kernel tap."""
    n, _c, h, wd = x.shape
    k, _, r, s = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = h + 2 * pad - r + 1, wd + 2 * pad - s + 1
    out = np.zeros((n, k, oh, ow), np.float32)
    for ry in range(r):
        for rx in range(s):
            patch = xp[:, :, ry : ry + oh, rx : rx + ow]
            out += np.einsum("nchw,kc->nkhw", patch, w[:, :, ry, rx], optimize=True)
    return out


def memory_table(args: list[te.Tensor]) -> None:
    """Intermediate buffers with guard-aware bounds off (TVM's regions) and on, the
    liveness lower bound, and the arena storage-rewrite plans."""
    from compiler.analysis.liveness import liveness, liveness_lower_bound
    from compiler.arith.parse import parse_expr
    from compiler.arith.simplify import const_value
    from compiler.dialects import loop

    rows: dict[str, list[str]] = {}
    totals, bounds, arenas = [], [], []
    for tighten in (False, True):
        module = compiler.lower(args, name="conv_chain", until="loop", tighten_pad_regions=tighten)
        func = next(op for op in module.ops if isinstance(op, loop.FuncOp))
        lifetimes = liveness(func)
        for t in lifetimes:
            assert isinstance(t.value.type, loop.BufferType)
            shape = "x".join(str(d) for d in t.value.type.get_shape())
            rows.setdefault(t.name, []).append(f"{shape:<12} {t.static_size:>10,}")
        totals.append(sum(t.static_size or 0 for t in lifetimes))
        bounds.append(liveness_lower_bound(lifetimes) or 0)
        memory = compiler.build(args, name="conv_chain", tighten_pad_regions=tighten, auto_schedule=False).memory
        arenas.append(const_value(parse_expr(memory.arena)) if memory is not None else 0)
    print(f"  {'buffer':<14} {'bounds off (old TVM)':>25}   {'tighten-pad-regions':>25}")
    for name, cells in rows.items():
        print(f"  {name:<14} {cells[0]:>25}   {cells[1]:>25}")
    print(f"  {'sum':<14} {totals[0]:>25,}   {totals[1]:>25,}   bytes without reuse")
    print(f"  {'liveness LB':<14} {bounds[0]:>25,}   {bounds[1]:>25,}   bytes (most live at one statement)")
    print(f"  {'arena':<14} {arenas[0]:>25,}   {arenas[1]:>25,}   bytes planned by storage-rewrite")
    print(f"  guard-aware bounds save {totals[0] - totals[1]:,} of {totals[0]:,} bytes ({(totals[0] - totals[1]) / totals[0]:.1%});"
          f" reuse + in-place bring them to {arenas[1]:,}\n")


def vectorizing_schedule(output: te.Tensor) -> Schedule:
    """Reduction loops outside the output row (xx), which becomes a contiguous vector loop."""
    from compiler.te.tensors import collect_stages

    s = te.create_schedule(output.op)
    for t in collect_stages([output]):
        if t.op.reduce_axis:
            nn, ff, yy, xx = t.op.axis
            rc, ry, rx = t.op.reduce_axis
            s[t].reorder(nn, ff, yy, rc, ry, rx, xx)
            s[t].vectorize(xx)
    return s


OUT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "out")


def seed001_network(h: te.Dim, w: te.Dim) -> list[te.Tensor]:
    """Seed 001's network in float16 (NHWC): two conv + bias + leaky_relu stages, a 2x2 avg pool."""
    from memory import seed001

    return seed001(h, w, dtype="float16")


def memory_pictures(seed000_args: list[te.Tensor]) -> None:
    """The memory plans of seed 000 and of seed 001's network (symbolic h and w, drawn
    at 256x256) as PNGs under bench/out/; skipped without matplotlib."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("memory plan pictures skipped: matplotlib is not installed (pip install -e '.[plot]')\n")
        return
    from compiler.memory_plot import plot_memory

    os.makedirs(OUT_DIR, exist_ok=True)
    h, w = te.var("h"), te.var("w")
    seed000 = compiler.build(seed000_args, name="conv_chain", auto_schedule=False)  # one buffer per stage
    seed001 = compiler.build(seed001_network(h, w), name="seed001", auto_schedule=False)
    for fn, name, dims in [(seed000, "seed000_plan.png", None), (seed001, "seed001_plan.png", {"h": 256, "w": 256})]:
        if fn.memory is None:
            continue
        path = os.path.join(OUT_DIR, name)
        plot_memory(fn.memory, path, dims=dims)
        where = " at h = w = 256" if dims else ""
        print(f"memory plan of {fn.memory.function}{where}: {path} (arena {fn.memory.arena} bytes)")
    print()


def main() -> None:
    print("Seed 000: three chained convolutions (1x1 pad 0, 3x3 pad 1, 3x3 pad 1) on 1x64x56x56\n")
    inputs, y3 = seed000_chain()
    args = [*inputs, y3]
    print("Intermediate buffers (bytes), y1 and y2 intermediate:")
    memory_table(args)

    f, compile_s = timed_result(lambda: compiler.build(args, name="conv_chain"))
    memory_pictures(args)

    rng = np.random.default_rng(0)
    xs = rng.standard_normal((1, 64, 56, 56)).astype(np.float32)
    ws = [rng.standard_normal(s).astype(np.float32) * 0.05 for s in [(64, 64, 1, 1), (64, 64, 3, 3), (64, 64, 3, 3)]]
    out = np.zeros((1, 64, 56, 56), np.float32)
    run_s = median_seconds(lambda: f(xs, *ws, out), repeats=3)
    scheduled = compiler.build(vectorizing_schedule(y3), args, name="conv_chain_scheduled")
    out_scheduled = np.zeros_like(out)
    scheduled_s = median_seconds(lambda: scheduled(xs, *ws, out_scheduled), repeats=3)

    def reference() -> np.ndarray:
        return conv2d_numpy(conv2d_numpy(conv2d_numpy(xs, ws[0], 0), ws[1], 1), ws[2], 1)

    expected = reference()
    numpy_s = median_seconds(reference, repeats=3)
    error = max(float(np.max(np.abs(o - expected))) for o in (out, out_scheduled))
    ok = all(np.allclose(o, expected, rtol=1e-3, atol=1e-3) for o in (out, out_scheduled))

    flops = 2 * 64 * 56 * 56 * 64 * (1 + 9 + 9)
    print(f"compile time        {compile_s:8.2f} s  (passes {f.stats.seconds['passes']:.2f} s, lower-to-llvm + LLVM {f.stats.seconds['llvm']:.2f} s)")
    print(f"run time (median)   {run_s * 1e3:8.1f} ms  ({flops / run_s / 1e9:.2f} GFLOP/s, no schedule: auto-scheduled)")
    print(f"                    {scheduled_s * 1e3:8.1f} ms  ({flops / scheduled_s / 1e9:.2f} GFLOP/s, reduce loops outside a vectorized row)")
    print(f"NumPy reference     {numpy_s * 1e3:8.1f} ms  (einsum per kernel tap)")
    print(f"max |error|         {error:.2e}  -> {'OK' if ok else 'MISMATCH'}")
    if not ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
