"""Shared helpers for the demo and the benchmarks: timing and buffer reports."""

from __future__ import annotations

import re
import statistics
import time
from collections.abc import Callable


def median_seconds(fn: Callable[[], object], repeats: int = 7, warmup: int = 1) -> float:
    """Median wall time of `repeats` calls after `warmup` calls (noisy machines: quote medians)."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


_ALLOC = re.compile(r'loop\.alloc "(?P<name>[^"]+)" \[[^\]]*\] : !loop\.buffer<\[(?P<dims>[^\]]*)\], (?P<elem>\w+)>')
_ELEM_BYTES = {"f16": 2, "f32": 4, "f64": 8, "i8": 1, "i16": 2, "i32": 4, "i64": 8}


def intermediate_buffers(loop_ir: str) -> list[tuple[str, str, int]]:
    """(name, shape, bytes) of every `loop.alloc` with a static shape in printed loop IR."""
    found = []
    for m in _ALLOC.finditer(loop_ir):
        dims = [d.strip() for d in m.group("dims").split(",")]
        count = 1
        for d in dims:
            count *= int(d) if d.lstrip("-").isdigit() else 0
        found.append((m.group("name"), "x".join(dims), count * _ELEM_BYTES.get(m.group("elem"), 4)))
    return found
