"""Apache TVM as the peer of bench/memory.py and bench/suite.py: the same programs.

Needs the optional extra `apache-tvm` (0.27). TVM 0.27 has no TE schedules:
each program is built with `te.create_prim_func`. For bench/memory.py it is
lowered through TVM's own buffer passes (block lowering,
CompactBufferAllocation, FlattenBuffer) and its StorageRewrite, and the bytes
of the remaining intermediate allocations are summed from the printed TIR
(`allocated_bytes`); for bench/suite.py it is compiled as it is, without a
schedule, by `tvm.compile(..., target=llvm)` (`compile_program`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import tvm
import tvm.tirx as tir
from tvm import s_tir, te

Tensor = te.Tensor


def _pad(x: Tensor, pads: tuple[int, int, int, int], name: str) -> Tensor:
    """Zero-pad dims 1..2 (NHWC: pads on h, w) or 2..3 (NCHW) given as (dim_a, dim_b, pa, pb)."""
    da, db, pa, pb = pads
    shape = list(x.shape)
    shape[da] += 2 * pa
    shape[db] += 2 * pb

    def element(*i: tir.PrimExpr) -> tir.PrimExpr:
        inside = tir.all(i[da] >= pa, i[da] < x.shape[da] + pa, i[db] >= pb, i[db] < x.shape[db] + pb)
        src = [v - (pa if d == da else pb if d == db else 0) for d, v in enumerate(i)]
        return tir.if_then_else(inside, x[tuple(src)], tir.const(0.0, "float32"))

    return te.compute(shape, element, name=name)


def conv_nchw(x: Tensor, w: Tensor, pad: int, name: str) -> Tensor:
    xp = _pad(x, (2, 3, pad, pad), f"{name}_pad") if pad else x
    n, c, h, wd = (int(d) for d in x.shape)
    k, _, r, s = (int(d) for d in w.shape)
    rc, ry, rx = te.reduce_axis((0, c)), te.reduce_axis((0, r)), te.reduce_axis((0, s))
    return te.compute(
        (n, k, h + 2 * pad - r + 1, wd + 2 * pad - s + 1),
        lambda a, f, i, j: te.sum(xp[a, rc, i + ry, j + rx] * w[f, rc, ry, rx], axis=[rc, ry, rx]),
        name=name,
    )


def conv_nhwc(x: Tensor, w: Tensor, pad: int, name: str) -> Tensor:
    xp = _pad(x, (1, 2, pad, pad), f"{name}_pad") if pad else x
    n, h, wd, c = (int(d) for d in x.shape)
    r, s, _, k = (int(d) for d in w.shape)
    rc, ry, rx = te.reduce_axis((0, c)), te.reduce_axis((0, r)), te.reduce_axis((0, s))
    return te.compute(
        (n, h + 2 * pad - r + 1, wd + 2 * pad - s + 1, k),
        lambda a, i, j, f: te.sum(xp[a, i + ry, j + rx, rc] * w[ry, rx, rc, f], axis=[ry, rx, rc]),
        name=name,
    )


def seed000(size: int = 56) -> list[Tensor]:
    x = te.placeholder((1, 64, size, size), name="x")
    w1, w2, w3 = (te.placeholder(s, name=n) for s, n in [((64, 64, 1, 1), "w1"), ((64, 64, 3, 3), "w2"), ((64, 64, 3, 3), "w3")])
    return [x, w1, w2, w3, conv_nchw(conv_nchw(conv_nchw(x, w1, 0, "y1"), w2, 1, "y2"), w3, 1, "y3")]


def seed001(size: int = 256, x: Tensor | None = None) -> list[Tensor]:
    """Seed 001's network on NHWC (x: the input, or a new placeholder)."""
    x = te.placeholder((1, size, size, 3), name="x") if x is None else x
    w1, b1 = te.placeholder((3, 3, 3, 64), name="w1"), te.placeholder((64,), name="b1")
    w2, b2 = te.placeholder((3, 3, 64, 64), name="w2"), te.placeholder((64,), name="b2")

    def bias_leaky(y: Tensor, b: Tensor, name: str) -> Tensor:
        biased = te.compute(y.shape, lambda *i: y[i] + b[i[3]], name=f"{name}_bias")
        return te.compute(y.shape, lambda *i: tir.if_then_else(biased[i] > 0.0, biased[i], biased[i] * 0.1), name=name)

    a1 = bias_leaky(conv_nhwc(x, w1, 1, "conv1"), b1, "act1")
    a2 = bias_leaky(conv_nhwc(a1, w2, 1, "conv2"), b2, "act2")
    ry, rx = te.reduce_axis((0, 2)), te.reduce_axis((0, 2))
    half = size // 2
    pooled = te.compute(
        (1, half, half, 64), lambda n, i, j, c: te.sum(a2[n, 2 * i + ry, 2 * j + rx, c], axis=[ry, rx]), name="pool_sum"
    )
    return [x, w1, b1, w2, b2, te.compute(pooled.shape, lambda *i: pooled[i] * 0.25, name="pool")]


def resnet_block(size: int = 56) -> list[Tensor]:
    x = te.placeholder((1, 64, size, size), name="x")
    w1, b1 = te.placeholder((64, 64, 3, 3), name="w1"), te.placeholder((64,), name="b1")
    w2, b2 = te.placeholder((64, 64, 3, 3), name="w2"), te.placeholder((64,), name="b2")
    c1 = conv_nchw(x, w1, 1, "conv1")
    r1 = te.compute(c1.shape, lambda *i: te.max(c1[i] + b1[i[1]], tir.const(0.0, "float32")), name="relu1")
    c2 = conv_nchw(r1, w2, 1, "conv2")
    out = te.compute(c2.shape, lambda *i: te.max(c2[i] + b2[i[1]] + x[i], tir.const(0.0, "float32")), name="out")
    return [x, w1, b1, w2, b2, out]


def seed001_nchw(size: int = 256) -> list[Tensor]:
    """Seed 001 as bench/suite.py runs it: NCHW in, permute to NHWC, the two conv stages
    and the 2x2 average pool of `seed001`, permute back to NCHW."""
    x = te.placeholder((1, 3, size, size), name="x")
    nhwc = te.compute((1, size, size, 3), lambda n, i, j, c: x[n, c, i, j], name="to_nhwc")
    _, w1, b1, w2, b2, pool = seed001(size, nhwc)
    half = size // 2
    out = te.compute((1, 64, half, half), lambda n, c, i, j: pool[n, i, j, c], name="to_nchw")
    return [x, w1, b1, w2, b2, out]


def conv1x1_relu() -> list[Tensor]:
    """A 1x1 convolution and relu over symbolic sizes: x [1, c, h, w], w [k, c, 1, 1]."""
    c, h, wd, k = te.var("c"), te.var("h"), te.var("w"), te.var("k")
    x = te.placeholder((1, c, h, wd), name="x")
    w = te.placeholder((k, c, 1, 1), name="wt")
    rc = te.reduce_axis((0, c), name="rc")
    conv = te.compute((1, k, h, wd), lambda n, f, i, j: te.sum(x[n, rc, i, j] * w[f, rc, 0, 0], axis=rc), name="conv")
    relu = te.compute(conv.shape, lambda *i: te.max(conv[i], tir.const(0.0, "float32")), name="relu")
    return [x, w, relu]


def matmul(n: int) -> list[Tensor]:
    a = te.placeholder((n, n), name="A")
    b = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    return [a, b, te.compute((n, n), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="C")]


def max_pool(size: int) -> list[Tensor]:
    """ResNet's stem pool: 3x3 windows, stride 2, padding 1 (padding never wins)."""
    x = te.placeholder((1, 64, size, size), name="x")
    out = (size + 2 - 3) // 2 + 1
    ry, rx = te.reduce_axis((0, 3), name="ry"), te.reduce_axis((0, 3), name="rx")

    def element(n: tir.PrimExpr, c: tir.PrimExpr, i: tir.PrimExpr, j: tir.PrimExpr) -> tir.PrimExpr:
        y, z = i * 2 + ry - 1, j * 2 + rx - 1
        inside = tir.all(y >= 0, y < size, z >= 0, z < size)
        return te.max(tir.if_then_else(inside, x[n, c, y, z], tir.min_value("float32")), axis=[ry, rx])

    return [x, te.compute((1, 64, out, out), element, name="pool")]


def elementwise_chain(n: int) -> list[Tensor]:
    """out = relu(x * y + z) * 0.5, one stage per operator."""
    x, y, z = (te.placeholder((n,), name=v) for v in "xyz")
    m = te.compute((n,), lambda i: x[i] * y[i], name="mul")
    a = te.compute((n,), lambda i: m[i] + z[i], name="add")
    r = te.compute((n,), lambda i: te.max(a[i], tir.const(0.0, "float32")), name="relu")
    return [x, y, z, te.compute((n,), lambda i: r[i] * tir.const(0.5, "float32"), name="out")]


def target() -> tvm.target.Target:
    """LLVM for the host CPU (the features our JIT uses too), or plain `llvm`."""
    try:
        import llvmlite.binding as llvm

        return tvm.target.Target({"kind": "llvm", "mcpu": llvm.get_host_cpu_name()})
    except Exception:
        return tvm.target.Target("llvm")


def compile_program(args: list[Tensor]) -> Callable[..., None]:
    """TVM's baseline: the program without a schedule, compiled for the CPU."""
    mod = tvm.IRModule({"main": te.create_prim_func(args)})
    return tvm.compile(mod, target=target())["main"]


PROGRAMS: dict[str, Callable[[], list[Tensor]]] = {
    "seed000": seed000,
    "seed001": seed001,
    "resnet_block": resnet_block,
}

_ALLOC = re.compile(r"T\.alloc_buffer\(\(([0-9, ]+),?\)(?:, \"(\w+)\")?")


def allocated_bytes(args: list[Tensor]) -> int:
    """Bytes of the intermediate buffers TVM allocates after its StorageRewrite."""
    mod = tvm.IRModule({"main": te.create_prim_func(args)})
    passes = [
        s_tir.transform.LowerInitBlock(),
        s_tir.transform.PlanAndUpdateBufferAllocationLocation(),
        s_tir.transform.ConvertBlocksToOpaque(),
        s_tir.transform.CompactBufferAllocation(),
        s_tir.transform.LowerMatchBuffer(),
        s_tir.transform.StmtSimplify(),
        s_tir.transform.LowerOpaqueBlock(),
        tir.transform.FlattenBuffer(),
        tir.transform.StorageRewrite(),
    ]
    lowered = tvm.ir.transform.Sequential(passes)(mod)
    total = 0
    for dims, dtype in _ALLOC.findall(lowered.script()):
        count = 1
        for d in dims.split(","):
            if d.strip():
                count *= int(d)
        total += count * tvm.DataType(dtype or "float32").bits // 8
    return total


if __name__ == "__main__":
    for name, program in PROGRAMS.items():
        print(name, allocated_bytes(program()))
