"""Benchmarks: compile time, run time and throughput next to NumPy, in one run.

    make bench

Timings are medians of several repetitions; the peer (NumPy) is measured in
the same process right after ours, and the ratio is what to quote.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import median_seconds

import compiler
from compiler import ops, te


def bench_add(n: int = 1 << 24) -> None:
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n,), name="B")
    C = te.compute((n,), lambda i: A[i] + B[i], name="C")
    start = time.perf_counter()
    f = compiler.build([A, B, C], name="vadd")
    compile_s = time.perf_counter() - start
    rng = np.random.default_rng(0)
    a, b = rng.random(n, np.float32), rng.random(n, np.float32)
    c = np.empty_like(a)
    ours = median_seconds(lambda: f(a, b, c), repeats=15)
    ref = median_seconds(lambda: np.add(a, b, out=c), repeats=15)
    gbytes = 3 * 4 * n / 1e9
    vector = "yes" if "x float>" in f.llvm_ir else "NO"
    print(f"elementwise add, 2^24 float32 (vectorized: {vector})")
    print(f"  compile {compile_s:.2f} s | ours {ours * 1e3:7.2f} ms {gbytes / ours:6.1f} GB/s"
          f" | numpy {ref * 1e3:7.2f} ms {gbytes / ref:6.1f} GB/s | ours/numpy {ours / ref:.2f}x")


def bench_matmul(n: int = 256, *, scheduled: bool) -> None:
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    C = ops.matmul(A, B, name="C")
    s = te.create_schedule(C.op)
    if scheduled:  # rows of C as vectors, the reduction outside them
        i, j = C.op.axis
        (k,) = C.op.reduce_axis
        jo, ji = s[C].split(j, factor=64)
        s[C].reorder(i, jo, k, ji)
        s[C].vectorize(ji)
    start = time.perf_counter()
    f = compiler.build(s, [A, B, C], name="matmul")
    compile_s = time.perf_counter() - start
    rng = np.random.default_rng(0)
    a, b = rng.random((n, n), np.float32), rng.random((n, n), np.float32)
    c = np.empty((n, n), np.float32)
    ours = median_seconds(lambda: f(a, b, c), repeats=9)
    ref = median_seconds(lambda: np.matmul(a, b, out=c), repeats=15)
    gflop = 2 * n**3 / 1e9
    how = "split j by 64, reorder i, jo, k, ji, vectorize ji" if scheduled else "default schedule (i, j, k)"
    print(f"matmul {n}x{n}x{n} float32, {how}")
    print(f"  compile {compile_s:.2f} s | ours {ours * 1e3:7.2f} ms {gflop / ours:6.2f} GFLOP/s"
          f" | numpy {ref * 1e3:7.2f} ms {gflop / ref:6.1f} GFLOP/s | ours/numpy {ours / ref:.1f}x")


def main() -> None:
    bench_add()
    bench_matmul(scheduled=False)
    bench_matmul(scheduled=True)


if __name__ == "__main__":
    main()
