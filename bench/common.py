"""Shared helpers for the demo and the benchmarks: timing."""

from __future__ import annotations

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
