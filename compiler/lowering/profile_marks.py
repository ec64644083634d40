"""The profiler's clock: the native callee of instrument-stages' marks.

`compiler_profile_mark(int64_t event)` reads the monotonic clock (`clock_gettime`, the
clock of Python's `time.clock_gettime_ns(time.CLOCK_MONOTONIC)`) and stores it, in
nanoseconds, at slot `event` of the buffer the profiler gave (`recording`); an event
outside the buffer, or no buffer, stores nothing. It is a few lines of LLVM IR compiled
once per process by the JIT and registered as an external function
(`compiler.runtime.externs`), so a mark costs a call and a vDSO clock read (tens of
nanoseconds), not a Python callback (a ctypes callback takes the GIL and costs
microseconds: measured in the profiler's report).

The buffer is process-wide: one profile runs at a time (`recording` holds a lock).
"""

from __future__ import annotations

import ctypes
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

import numpy as np

from compiler.passes.instrument_stages import MARK_SYMBOL

_SLOTS = "compiler_profile_slots"
_CAPACITY = "compiler_profile_capacity"

_IR = """
@{slots} = global ptr null, align 8
@{capacity} = global i64 0, align 8

declare i32 @clock_gettime(i32, ptr)

define void @{mark}(i64 %event) {{
entry:
  %ts = alloca [2 x i64], align 8
  %cap = load volatile i64, ptr @{capacity}, align 8
  %ok = icmp ult i64 %event, %cap
  br i1 %ok, label %record, label %done
record:
  %rc = call i32 @clock_gettime(i32 {clock}, ptr %ts)
  %sec = load i64, ptr %ts, align 8
  %nsp = getelementptr inbounds [2 x i64], ptr %ts, i64 0, i64 1
  %ns = load i64, ptr %nsp, align 8
  %scaled = mul i64 %sec, 1000000000
  %now = add i64 %scaled, %ns
  %slots = load volatile ptr, ptr @{slots}, align 8
  %slot = getelementptr inbounds i64, ptr %slots, i64 %event
  store volatile i64 %now, ptr %slot, align 8
  br label %done
done:
  ret void
}}
"""


def now_ns() -> int:
    """The clock the marks read, from Python (nanoseconds)."""
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


class _Clock:
    def __init__(self) -> None:
        from compiler.lowering.engine import load_ir
        from compiler.runtime.externs import register_extern

        text = _IR.format(slots=_SLOTS, capacity=_CAPACITY, mark=MARK_SYMBOL, clock=time.CLOCK_MONOTONIC)
        self.engine: Any = load_ir(text)  # alive for the process: compiled code calls into it
        self.slots = ctypes.c_void_p.from_address(self.engine.get_global_value_address(_SLOTS))
        self.capacity = ctypes.c_int64.from_address(self.engine.get_global_value_address(_CAPACITY))
        self.lock = threading.Lock()
        register_extern(MARK_SYMBOL, self.engine.get_function_address(MARK_SYMBOL))


@cache
def _clock() -> _Clock:
    return _Clock()


def register_marks() -> None:
    """Make the marks' callee known to the JIT (before it loads a profiling variant)."""
    _clock()


@contextmanager
def recording(events: int) -> Iterator[np.ndarray]:
    """The buffer the marks write to while the block runs: `events` int64 slots, -1 where
    no mark wrote."""
    clock = _clock()
    slots = np.full(max(events, 1), -1, dtype=np.int64)
    with clock.lock:
        clock.slots.value = slots.ctypes.data
        clock.capacity.value = events
        try:
            yield slots
        finally:
            clock.capacity.value = 0
            clock.slots.value = None
