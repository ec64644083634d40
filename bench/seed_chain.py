"""Seed 000's chain, the one builder of it (bench/demo.py, bench/workloads.py,
bench/memory.py, bench/compile_time.py, docs/_ext/compiler_docs.py and
test/python/test_codegen.py import it): a 1x1 convolution, then two 3x3 ones with
padding 1, on a 1 x channels x size x size input."""

from __future__ import annotations

from compiler import ops, te


def seed000_chain(size: int = 56, channels: int = 64) -> tuple[list[te.Tensor], te.Tensor]:
    """The inputs (x, w1, w2, w3) and the output y3; y1 and y2 are intermediate stages."""
    x = te.placeholder((1, channels, size, size), name="x")
    w1 = te.placeholder((channels, channels, 1, 1), name="w1")
    w2 = te.placeholder((channels, channels, 3, 3), name="w2")
    w3 = te.placeholder((channels, channels, 3, 3), name="w3")
    y1 = ops.conv2d_nchw(x, w1, padding=0, name="y1")
    y2 = ops.conv2d_nchw(y1, w2, padding=1, name="y2")
    y3 = ops.conv2d_nchw(y2, w3, padding=1, name="y3")
    return [x, w1, w2, w3], y3
