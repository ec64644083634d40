"""Shared helpers for the demo and the benchmarks: timing."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def timed(fn: Callable[[], object]) -> float:
    """Seconds one call of `fn` takes."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def interleaved_medians(first: Callable[[], object], second: Callable[[], object], rounds: int) -> tuple[float, float]:
    """Median seconds of `first()` and `second()`, called in turn `rounds` times (so that a
    noisy machine slows both alike)."""
    a, b = [], []
    for _ in range(rounds):
        a.append(timed(first))
        b.append(timed(second))
    return statistics.median(a), statistics.median(b)


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
