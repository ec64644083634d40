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


def host_cache_size(level: int, kind: str, default: int) -> int:
    """A cache's bytes from sysfs (index*/level, type, size), else os.sysconf, else `default`."""
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        for entry in sorted(os.listdir(base)):
            path = os.path.join(base, entry)
            if not entry.startswith("index"):
                continue
            with open(os.path.join(path, "level")) as f:
                if int(f.read()) != level:
                    continue
            with open(os.path.join(path, "type")) as f:
                if f.read().strip() not in (kind, "Unified"):
                    continue
            with open(os.path.join(path, "size")) as f:
                text = f.read().strip().upper()
            scale = {"K": 1024, "M": 1024 * 1024}.get(text[-1:], 1)
            return int(text.rstrip("KM")) * scale
    except (OSError, ValueError):
        pass
    name = {1: "SC_LEVEL1_DCACHE_SIZE", 2: "SC_LEVEL2_CACHE_SIZE"}.get(level)
    try:
        value = os.sysconf(name) if name else 0
    except (ValueError, OSError):
        value = 0
    return value if value > 0 else default


def host_facts() -> dict[str, str]:
    """What the auto-scheduler reads of the host besides LLVM's CPU name and features (its
    `host_target`): a part of the keys of the build cache."""
    return {
        "vector_bits": str(host_vector_bits()),
        "cores": str(host_cores()),
        "l1": str(host_cache_size(1, "Data", 32 * 1024)),
        "l2": str(host_cache_size(2, "Unified", 512 * 1024)),
    }


@cache
def openmp_library() -> str | None:
    """The name of libgomp the loader finds, or None where it is not installed (looked up
    once)."""
    return shared_library("gomp", "libgomp.so.1")


@cache
def shared_library(name: str, soname: str) -> str | None:
    """The library `name` as `ctypes.util.find_library` names it: `soname` when the dynamic
    loader opens it (glibc's sonames: no `ldconfig` subprocess, whose start, with the
    imports of `ctypes.util`, cost a warm build a fifth of its time), else
    `find_library`'s answer (other systems)."""
    import ctypes

    try:
        ctypes.CDLL(soname)
    except OSError:
        import ctypes.util

        return ctypes.util.find_library(name)
    return soname


def _meminfo_available() -> int | None:
    """MemAvailable of /proc/meminfo in bytes (Linux), else free physical pages."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def _cgroup_available() -> int | None:
    """What the cgroup (v2) of this process may still allocate, or None without a limit."""
    try:
        with open("/sys/fs/cgroup/memory.max") as f:
            limit = f.read().strip()
        if limit == "max":
            return None
        with open("/sys/fs/cgroup/memory.current") as f:
            return max(0, int(limit) - int(f.read().strip()))
    except (OSError, ValueError):
        return None


def _address_space_available() -> int | None:
    """What RLIMIT_AS leaves this process (its soft limit minus its current size), or None."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft == resource.RLIM_INFINITY:
            return None
        with open("/proc/self/statm") as f:
            used = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        return max(0, soft - used)
    except (ImportError, OSError, ValueError):
        return None


def host_available_memory() -> int | None:
    """The bytes this process can allocate now, read from the host: the least of the
    machine's available memory, its cgroup's remaining limit and its address-space
    limit (RLIMIT_AS); None where none of them can be read."""
    known = [m for m in (_meminfo_available(), _cgroup_available(), _address_space_available()) if m is not None]
    return min(known) if known else None
