"""The profiler's clock: the native callee of instrument-stages' marks.

`compiler_profile_chunk(nest, thread, end)` records a thread's chunks of a parallel loop
of nest `nest` (its first start, its last end and the sum of their times: a nest may run
its parallel loop many times). `compiler_profile_mark(int64_t event)` reads the monotonic clock (`clock_gettime`, the
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

from compiler.passes.instrument_stages import CHUNK_SYMBOL, MARK_SYMBOL

_SLOTS = "compiler_profile_slots"
_CAPACITY = "compiler_profile_capacity"
_CHUNK_BASE = "compiler_profile_chunk_base"
_THREADS = "compiler_profile_threads"
CHUNK_FIELDS = 4
"""Slots per (nest, thread): first start, last start, last end, busy ns (the sum of its chunks)."""

_IR = """
@{slots} = global ptr null, align 8
@{capacity} = global i64 0, align 8

@{chunk_base} = global i64 0, align 8
@{threads} = global i64 0, align 8

declare i32 @clock_gettime(i32, ptr)

define internal i64 @now() {{
entry:
  %ts = alloca [2 x i64], align 8
  %rc = call i32 @clock_gettime(i32 {clock}, ptr %ts)
  %sec = load i64, ptr %ts, align 8
  %nsp = getelementptr inbounds [2 x i64], ptr %ts, i64 0, i64 1
  %ns = load i64, ptr %nsp, align 8
  %scaled = mul i64 %sec, 1000000000
  %now = add i64 %scaled, %ns
  ret i64 %now
}}

define void @{chunk}(i64 %nest, i64 %thread, i64 %end) {{
entry:
  %threads = load volatile i64, ptr @{threads}, align 8
  %known = icmp ult i64 %thread, %threads
  br i1 %known, label %index, label %done
index:
  %row = mul i64 %nest, %threads
  %cell = add i64 %row, %thread
  %offset = mul i64 %cell, {fields}
  %base = load volatile i64, ptr @{chunk_base}, align 8
  %first = add i64 %base, %offset
  %last = add i64 %first, {last}
  %cap = load volatile i64, ptr @{capacity}, align 8
  %fits = icmp ult i64 %last, %cap
  br i1 %fits, label %record, label %done
record:
  %now = call i64 @now()
  %slots = load volatile ptr, ptr @{slots}, align 8
  %p0 = getelementptr inbounds i64, ptr %slots, i64 %first
  %p1 = getelementptr inbounds i64, ptr %p0, i64 1
  %p2 = getelementptr inbounds i64, ptr %p0, i64 2
  %p3 = getelementptr inbounds i64, ptr %p0, i64 3
  %is_end = icmp ne i64 %end, 0
  br i1 %is_end, label %stop, label %start
start:
  %seen = load volatile i64, ptr %p0, align 8
  %fresh = icmp slt i64 %seen, 0
  %start0 = select i1 %fresh, i64 %now, i64 %seen
  store volatile i64 %start0, ptr %p0, align 8
  store volatile i64 %now, ptr %p1, align 8
  br label %done
stop:
  store volatile i64 %now, ptr %p2, align 8
  %began = load volatile i64, ptr %p1, align 8
  %took = sub i64 %now, %began
  %busy = load volatile i64, ptr %p3, align 8
  %more = add i64 %busy, %took
  store volatile i64 %more, ptr %p3, align 8
  br label %done
done:
  ret void
}}

define void @{mark}(i64 %event) {{
entry:
  %cap = load volatile i64, ptr @{capacity}, align 8
  %ok = icmp ult i64 %event, %cap
  br i1 %ok, label %record, label %done
record:
  %now = call i64 @now()
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

        text = _IR.format(
            slots=_SLOTS,
            capacity=_CAPACITY,
            chunk_base=_CHUNK_BASE,
            threads=_THREADS,
            mark=MARK_SYMBOL,
            chunk=CHUNK_SYMBOL,
            fields=CHUNK_FIELDS,
            last=CHUNK_FIELDS - 1,
            clock=time.CLOCK_MONOTONIC,
        )
        self.engine: Any = load_ir(text)  # alive for the process: compiled code calls into it
        self.slots = ctypes.c_void_p.from_address(self.engine.get_global_value_address(_SLOTS))
        self.capacity = ctypes.c_int64.from_address(self.engine.get_global_value_address(_CAPACITY))
        self.chunk_base = ctypes.c_int64.from_address(self.engine.get_global_value_address(_CHUNK_BASE))
        self.threads = ctypes.c_int64.from_address(self.engine.get_global_value_address(_THREADS))
        self.lock = threading.Lock()
        register_extern(MARK_SYMBOL, self.engine.get_function_address(MARK_SYMBOL))
        register_extern(CHUNK_SYMBOL, self.engine.get_function_address(CHUNK_SYMBOL))


@cache
def _clock() -> _Clock:
    return _Clock()


def register_marks() -> None:
    """Make the marks' callee known to the JIT (before it loads a profiling variant)."""
    _clock()


@contextmanager
def recording(events: int, nests: int = 0, threads: int = 0) -> Iterator[np.ndarray]:
    """The buffer the marks write to while the block runs: `events` int64 slots for the
    marks, then `CHUNK_FIELDS` per nest and thread for the chunks of parallel loops
    (`reset` before each call)."""
    clock = _clock()
    size = events + nests * threads * CHUNK_FIELDS
    slots = np.empty(max(size, 1), dtype=np.int64)
    reset(slots, events)
    with clock.lock:
        clock.slots.value = slots.ctypes.data
        clock.chunk_base.value = events
        clock.threads.value = threads
        clock.capacity.value = size
        try:
            yield slots
        finally:
            clock.capacity.value = 0
            clock.threads.value = 0
            clock.slots.value = None


def reset(slots: np.ndarray, events: int) -> None:
    """-1 in every slot (no mark wrote it), 0 in the chunks' busy sums."""
    slots.fill(-1)
    slots[events + CHUNK_FIELDS - 1 :: CHUNK_FIELDS] = 0
