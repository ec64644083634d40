"""Shared helpers for the demo and the benchmarks: timing (every bench script's clock)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def timed_result(fn: Callable[[], T]) -> tuple[T, float]:
    """What one call of `fn` returns, and the seconds it took."""
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def timed(fn: Callable[[], object]) -> float:
    """Seconds one call of `fn` takes."""
    return timed_result(fn)[1]


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
    return statistics.median(timed(fn) for _ in range(repeats))
