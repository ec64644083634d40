"""TVM's "How to optimize GEMM on CPU", step by step, with this project's primitives.

    .venv/bin/python bench/gemm_tutorial.py            # M = N = K = 1024
    .venv/bin/python bench/gemm_tutorial.py --size 512 --reps 5

Each step is one small function that returns a schedule of C = A @ B; the
script builds each, checks it against NumPy, and prints its median time and
GFLOP/s next to NumPy's and PyTorch's (optional peers, measured in the same
run, one thread each unless OMP_NUM_THREADS says otherwise; the `parallel`
step uses every core). README's "Writing fast schedules" walks through it.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from common import median_seconds  # bench/, beside this script

import compiler
from compiler import te
from compiler.analysis.target import host_target
from compiler.runtime.host import host_vector_bits
from compiler.te.schedule import Schedule

BN = 32  # the block of C each step computes at a time (TVM's bn)
KS = 4  # the k split of the blocking step


class Gemm:
    """C[i, j] = sum_k A[i, k] * B[k, j] over M x K and K x N float32 matrices."""

    def __init__(self, size: int, packed: bool = False):
        self.A = te.placeholder((size, size), name="A")
        self.B = te.placeholder((size, size), name="B")
        k = te.reduce_axis((0, size), name="k")
        if packed:  # B laid out as [N / BN, K, BN]: the BN columns a block reads are contiguous
            self.packedB = te.compute(
                (size // BN, size, BN), lambda x, y, z: self.B[y, x * BN + z], name="packedB"
            )
            self.C = te.compute(
                (size, size),
                lambda i, j: te.sum(self.A[i, k] * self.packedB[j // BN, k, j % BN], axis=k),
                name="C",
            )
        else:
            self.C = te.compute((size, size), lambda i, j: te.sum(self.A[i, k] * self.B[k, j], axis=k), name="C")
        self.s = te.create_schedule(self.C.op)


# --- the steps: each returns (schedule, tensors) ----------------------------------


def default(size: int) -> tuple[Schedule, list[te.Tensor]]:
    """0. No schedule: i, j, k in order (TVM's baseline)."""
    g = Gemm(size)
    return g.s, [g.A, g.B, g.C]


def blocking(size: int, *, vector: bool = False) -> tuple[Schedule, list[te.Tensor]]:
    """1. Blocking: 32 x 32 blocks of C, so a block's rows of A and columns of B stay in
    cache; k split by 4 outside the block: xo, yo, ko, ki, xi, yi."""
    g = Gemm(size)
    s, C = g.s, g.C
    xo, yo, xi, yi = s[C].tile(C.op.axis[0], C.op.axis[1], BN, BN)
    ko, ki = s[C].split(C.op.reduce_axis[0], factor=KS)
    s[C].reorder(xo, yo, ko, ki, xi, yi)
    if vector:
        s[C].vectorize(yi)
    return s, [g.A, g.B, C]


def vectorize(size: int) -> tuple[Schedule, list[te.Tensor]]:
    """2. Vectorization: the innermost loop yi (32 contiguous columns) as vectors."""
    return blocking(size, vector=True)


def permutation(size: int) -> tuple[Schedule, list[te.Tensor]]:
    """3. Loop permutation: xi outside ki (xo, yo, ko, xi, ki, yi), so the inner loop
    walks a row of B and a row of C contiguously."""
    g = Gemm(size)
    s, C = g.s, g.C
    xo, yo, xi, yi = s[C].tile(C.op.axis[0], C.op.axis[1], BN, BN)
    ko, ki = s[C].split(C.op.reduce_axis[0], factor=KS)
    s[C].reorder(xo, yo, ko, xi, ki, yi)
    s[C].vectorize(yi)
    return s, [g.A, g.B, C]


def array_packing(size: int) -> tuple[Schedule, list[te.Tensor]]:
    """4. Array packing: a layout-transform stage packedB[N / 32, K, 32] (computed once,
    at the root) makes the 32 columns a block reads one contiguous run per k."""
    g = Gemm(size, packed=True)
    s, C = g.s, g.C
    xo, yo, xi, yi = s[C].tile(C.op.axis[0], C.op.axis[1], BN, BN)
    ko, ki = s[C].split(C.op.reduce_axis[0], factor=KS)
    s[C].reorder(xo, yo, ko, xi, ki, yi)
    s[C].vectorize(yi)
    x, _y, z = g.packedB.op.axis
    s[g.packedB].vectorize(z)
    s[g.packedB].parallel(x)
    return s, [g.A, g.B, C]


def write_cache(size: int, *, threads: bool = False) -> tuple[Schedule, list[te.Tensor]]:
    """5. Write cache: the block is accumulated in a local 32 x 32 buffer (cache_write),
    computed at yo, and written to C once: C's loops xo, yo, xi, yi copy it."""
    g = Gemm(size, packed=True)
    s, C = g.s, g.C
    CC = s.cache_write(C, "local")
    xo, yo, _xi, yi = s[C].tile(C.op.axis[0], C.op.axis[1], BN, BN)
    s[CC].compute_at(s[C], yo)
    xc, yc = s[CC].op.axis
    (k,) = s[CC].op.reduce_axis
    ko, ki = s[CC].split(k, factor=KS)
    s[CC].reorder(ko, xc, ki, yc)
    s[CC].unroll(ki)
    s[CC].vectorize(yc)
    s[C].vectorize(yi)
    x, _y, z = g.packedB.op.axis
    s[g.packedB].vectorize(z)
    s[g.packedB].parallel(x)
    if threads:
        s[C].parallel(xo)
    return s, [g.A, g.B, C]


def parallel(size: int) -> tuple[Schedule, list[te.Tensor]]:
    """6. Parallel: the rows of blocks (xo) on every core."""
    return write_cache(size, threads=True)


def packed_kernel_schedule(A: te.Tensor, B: te.Tensor, C: te.Tensor) -> Schedule:
    """The schedule of step 7 for any C = A @ B (bench/suite.py's best matmul schedule
    too): a register tile of 4 rows x 3 vectors (12 accumulators) with k inside the tile
    loops; the tile's column panel of B packed (a cache_read computed at the panel loop:
    a contiguous k x 3-vector block, one copy per thread on its stack); the panel loop
    outside the row tiles; the column panels in parallel: jo (parallel), io, k, ii
    (unroll), ji (vector). A long k is blocked (jo, ko, io, ki, ii, ji) so the panel
    stays in a quarter of L2."""
    lanes = host_vector_bits() // 32  # float32
    (k_axis,) = C.op.reduce_axis
    assert isinstance(k_axis.extent, int)
    # the whole k if its panel fits a quarter of L2, else the longest block that divides
    # k and fits: each block reloads and stores the accumulator tile, whose rows come
    # from L3 (k blocks of 128 in L1: 0.88x PyTorch at 512; the whole k: 1.0x)
    panel_rows = host_target().l2_bytes // 4 // (3 * lanes * 4)
    kb = max((d for d in range(1, panel_rows + 1) if k_axis.extent % d == 0), default=1)
    s = te.create_schedule(C.op)
    packed = s.cache_read(B, "global", [C])
    i, j = C.op.axis
    (k,) = C.op.reduce_axis
    jo, ji = s[C].split(j, factor=3 * lanes)
    io, ii = s[C].split(i, factor=4)
    if kb < k_axis.extent:
        ko, ki = s[C].split(k, factor=kb)
        s[C].reorder(jo, ko, io, ki, ii, ji)
        s[packed].compute_at(s[C], ko)
    else:
        s[C].reorder(jo, io, k, ii, ji)
        s[packed].compute_at(s[C], jo)
    s[C].unroll(ii)
    s[C].vectorize(ji)
    s[C].parallel(jo)
    s[packed].vectorize(packed.op.axis[1])
    return s


def packed_kernel(size: int) -> tuple[Schedule, list[te.Tensor]]:
    """7. Packed micro-kernel: what `auto-schedule` picks for a matmul. B packed per
    column panel with a cache_read instead of a whole packedB stage, so the copy is
    made by the thread that reads it; a 4 x 3-vector register tile; a*b+c
    one FMA (the default, `fp_contract=True`)."""
    g = Gemm(size)
    return packed_kernel_schedule(g.A, g.B, g.C), [g.A, g.B, g.C]


STEPS: list[Callable[[int], tuple[Schedule, list[te.Tensor]]]] = [
    default, blocking, vectorize, permutation, array_packing, write_cache, parallel, packed_kernel,
]


# --- measuring ----------------------------------------------------------------------


def median_ms(run: Callable[[], Any], reps: int) -> float:
    return median_seconds(run, reps, warmup=1) * 1e3


def peers(a: np.ndarray, b: np.ndarray, reps: int) -> dict[str, float]:
    found = {"NumPy": median_ms(lambda: np.matmul(a, b), reps)}
    try:
        import torch
    except Exception:  # PyTorch is optional
        return found
    at, bt = torch.from_numpy(a), torch.from_numpy(b)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    found["PyTorch 1t"] = median_ms(lambda: torch.mm(at, bt), reps)
    torch.set_num_threads(threads)
    found[f"PyTorch {threads}t"] = median_ms(lambda: torch.mm(at, bt), reps)
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=1024, help="M = N = K (a multiple of 32)")
    parser.add_argument("--reps", type=int, default=5, help="timed calls per contender (the median is shown)")
    parser.add_argument("--skip-default", action="store_true", help="skip step 0 (seconds at 1024)")
    args = parser.parse_args(argv)
    n = args.size
    if n % BN:
        parser.error(f"--size must be a multiple of {BN}")
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n)).astype(np.float32)
    b = rng.standard_normal((n, n)).astype(np.float32)
    expected = a.astype(np.float64) @ b.astype(np.float64)
    gflop = 2 * n**3 / 1e9
    base = peers(a, b, args.reps)
    print(f"GEMM {n}x{n}x{n}, float32, median of {args.reps} calls")
    for name, ms in base.items():
        print(f"  {name:<28} {ms:9.2f} ms {gflop / ms * 1e3:7.1f} GFLOP/s")
    numpy_ms = base["NumPy"]
    for step in STEPS:
        if step is default and args.skip_default:
            continue
        s, tensors = step(n)
        f = compiler.build(s, tensors)
        c = np.empty((n, n), np.float32)
        f(a, b, c)
        np.testing.assert_allclose(c, expected, rtol=1e-3, atol=1e-2 * np.sqrt(n))
        ms = median_ms(lambda f=f, c=c: f(a, b, c), args.reps)
        title = (step.__doc__ or step.__name__).split(":")[0]
        print(f"  {title:<28} {ms:9.2f} ms {gflop / ms * 1e3:7.1f} GFLOP/s  ({ms / numpy_ms:.2f}x NumPy's time)")


if __name__ == "__main__":
    main()
