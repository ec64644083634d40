"""The machine the auto-scheduler plans for (`Target`, `host_target`), and the one
layout choice the frontend makes from it (`channel_block`). Free of xDSL: the PyTorch
importer blocks weights with it, and a build served by the cache must not import the IR.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache

from compiler.runtime.host import host_cache_size, host_cores, host_cpu_name, host_vector_bits

PARALLEL_MIN_WORK = 1 << 18
"""The default of `Target.parallel_min_work`; the host's is `COMPILER_PARALLEL_MIN_WORK`
when set (the tests set 0: they check the parallel structure of small programs)."""


PRIVATE_SCRATCH_BYTES = 256 * 1024
"""The largest stage attached inside a parallel loop that gets a copy per thread on
the thread's stack (schedule-ops' `_stack_shape`): glibc gives threads 8 MiB of stack
(2 MiB under an unlimited `ulimit -s`), libgomp's workers included. Larger stages stay
in the arena and the loop runs serially (the auto-scheduler's row blocks at symbolic
sizes are sized to fit). The memory plan reports these per-thread bytes."""


@dataclass(frozen=True)
class Target:
    """What the cost model knows of the machine."""

    vector_bits: int = 256
    registers: int = 16  # vector registers
    l1_bytes: int = 32 * 1024
    l2_bytes: int = 512 * 1024
    cores: int = 1
    cpu: str = "generic"
    parallel_min_work: int = PARALLEL_MIN_WORK
    """Iterations (data and reduce loops) under which a stage runs on one core. A parallel
    loop costs a fork and a join of the thread team on every run: a few microseconds on
    an idle machine, up to milliseconds on a loaded one, where a team member waits for a
    core (a graph of a Linear + tanh at 8 x 64: 11 ms a call on 2 threads beside other
    jobs, 0.5 ms on one). 2^18 vectorized multiply-adds take about 10 us on one core."""

    def lanes(self, element_bits: int) -> int:
        return max(1, self.vector_bits // element_bits)

    def key(self) -> str:
        """Identifies the target in a tuning log."""
        return f"{self.cpu}/v{self.vector_bits}/r{self.registers}/c{self.cores}"


@cache
def host_target() -> Target:
    """The host: vector width and registers from llvmlite's CPU features (avx512f: 512
    bits and 32 registers, avx/avx2: 256 bits, otherwise 128), caches, usable cores."""
    bits = host_vector_bits()
    registers = 32 if bits == 512 else 16
    return Target(
        bits,
        registers,
        host_cache_size(1, "Data", 32 * 1024),
        host_cache_size(2, "Unified", 512 * 1024),
        host_cores(),
        host_cpu_name(),
        int(os.environ.get("COMPILER_PARALLEL_MIN_WORK", PARALLEL_MIN_WORK)),
    )


def channel_block(channels: int, target: Target, element_bits: int = 32) -> int:
    """The output-channel block of a convolution's weight (`ops.block_kernel_hwio`) for
    `target`: up to 4 vectors, the widest that divides `channels` (the register tile's
    width: `register_tile` takes a blocked read's block as its vector factor), else all
    the channels (unblocked)."""
    lanes = target.lanes(element_bits)
    for vectors in (4, 3, 2, 1):
        if channels % (vectors * lanes) == 0:
            return vectors * lanes
    return channels
