"""Memory benchmark: intermediate bytes of the seed programs, planned vs the bounds.

    .venv/bin/python bench/memory.py

For each workload: the bytes every intermediate would take without reuse, the
arena storage-rewrite plans, and the liveness lower bound (the most bytes live
at one statement, not counting in-place writes, which can go below it). Seed
000 is also shown with guard-aware bounds off (the regions of TVM's old
InferBound). Apache TVM 0.27's own allocation for the same programs
(bench/tvm_peer.py: create_prim_func, its buffer passes and StorageRewrite) is
measured when `apache-tvm` is installed (`pip install -e '.[bench]'`).
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from seed_chain import seed000_chain

import compiler
from compiler import ops, te
from compiler.analysis.liveness import liveness, liveness_lower_bound
from compiler.analysis.memory_summary import memory_summary
from compiler.arith.expr import evaluate
from compiler.arith.parse import parse_expr
from compiler.dialects import loop


def seed000() -> list[te.Tensor]:
    inputs, y3 = seed000_chain()
    return [*inputs, y3]


def seed001(h: te.Dim, w: te.Dim, dtype: str = "float32") -> list[te.Tensor]:
    x = te.placeholder((1, h, w, 3), name="x", dtype=dtype)
    w1, b1 = te.placeholder((3, 3, 3, 64), name="w1", dtype=dtype), te.placeholder((64,), name="b1", dtype=dtype)
    w2, b2 = te.placeholder((3, 3, 64, 64), name="w2", dtype=dtype), te.placeholder((64,), name="b2", dtype=dtype)
    a1 = ops.leaky_relu(ops.bias_add(ops.conv2d_nhwc(x, w1, padding=1, name="conv1"), b1, axis=3, name="bias1"), name="act1")
    a2 = ops.leaky_relu(ops.bias_add(ops.conv2d_nhwc(a1, w2, padding=1, name="conv2"), b2, axis=3, name="bias2"), name="act2")
    return [x, w1, b1, w2, b2, ops.avg_pool2d(a2, 2, 2, layout="NHWC", name="pool")]


def resnet_block() -> list[te.Tensor]:
    x = te.placeholder((1, 64, 56, 56), name="x")
    w1, b1 = te.placeholder((64, 64, 3, 3), name="w1"), te.placeholder((64,), name="b1")
    w2, b2 = te.placeholder((64, 64, 3, 3), name="w2"), te.placeholder((64,), name="b2")
    r1 = ops.relu(ops.bias_add(ops.conv2d_nchw(x, w1, padding=1, name="conv1"), b1, name="bias1"), name="relu1")
    c2 = ops.bias_add(ops.conv2d_nchw(r1, w2, padding=1, name="conv2"), b2, name="bias2")
    return [x, w1, b1, w2, b2, ops.relu(ops.add(c2, x, name="add"), name="relu2")]


def measure(args: list[te.Tensor], env: dict[str, int], **kwargs: bool) -> tuple[int, int, int]:
    """(no-reuse bytes, planned arena bytes, liveness lower bound) at the given sizes."""
    loop_module = compiler.lower(args, until="loop", **kwargs)
    func = next(op for op in loop_module.ops if isinstance(op, loop.FuncOp))
    lifetimes = liveness(func)
    sizes = [evaluate(t.size, env) for t in lifetimes]
    no_reuse = sum(sizes)
    bound = liveness_lower_bound(lifetimes)
    if bound is None:  # symbolic: evaluate each statement's live bytes
        end = max(t.last for t in lifetimes)
        bound = max(sum(s for t, s in zip(lifetimes, sizes, strict=True) if t.first <= k <= t.last) for k in range(end + 1))
    flat = compiler.lower(args, until="flat", **kwargs)
    arena = 0
    for f in flat.ops:
        if isinstance(f, loop.FuncOp):
            summary = memory_summary(f)
            if summary.buffers:
                arena = evaluate(parse_expr(summary.arena), env)
    return no_reuse, arena, bound


def tvm_bytes(program: str | None) -> str:
    """TVM's allocation for the same program (bench/tvm_peer.py), if apache-tvm is installed."""
    if program is None:
        return "-"
    try:
        import tvm_peer
    except ImportError:
        return "n/a (pip install apache-tvm)"
    return f"{tvm_peer.allocated_bytes(tvm_peer.PROGRAMS[program]()):,}"


def main() -> None:
    h = te.var("h")
    rows = [
        ("seed 000 chain, bounds off (old TVM regions)", seed000(), {}, {"tighten_pad_regions": False}, None),
        ("seed 000 chain", seed000(), {}, {}, "seed000"),
        ("seed 001 network, h=w=256 static", seed001(256, 256), {}, {}, "seed001"),
        ("seed 001 network, symbolic h, w at 256", seed001(h, te.var("w")), {"h": 256, "w": 256}, {}, None),
        ("ResNet basic block 1x64x56x56", resnet_block(), {}, {}, "resnet_block"),
    ]
    print(f"{'workload':<46} {'no reuse':>12} {'planned':>12} {'liveness LB':>12}  {'Apache TVM 0.27':>15}")
    for name, args, env, kwargs, peer in rows:
        no_reuse, arena, bound = measure(args, env, **kwargs)
        print(f"{name:<46} {no_reuse:>12,} {arena:>12,} {bound:>12,}  {tvm_bytes(peer):>15}")


if __name__ == "__main__":
    main()
