"""The host machine as the code generator and the auto-scheduler see it: the vector
width from LLVM's view of the CPU's features, and the cores this process may use."""

from __future__ import annotations

import os
from functools import cache


@cache
def host_vector_bits() -> int:
    """The host CPU's vector register width (AVX-512: 512, AVX/AVX2: 256, otherwise
    SSE/NEON: 128)."""
    import llvmlite.binding as llvm  # lazy: the runtime layer loads without llvmlite

    features = llvm.get_host_cpu_features()
    if features.get("avx512f", False):
        return 512
    if features.get("avx", False):
        return 256
    return 128


@cache
def host_cpu_name() -> str:
    import llvmlite.binding as llvm

    return str(llvm.get_host_cpu_name())


def host_cores() -> int:
    """The cores this process may run on (its affinity mask, not the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no sched_getaffinity (macOS)
        return max(1, os.cpu_count() or 1)


@cache
def openmp_library() -> str | None:
    """The path of libgomp, or None where it is not installed (looked up once: `find_library`
    runs `ldconfig`)."""
    import ctypes.util

    return ctypes.util.find_library("gomp")
