"""Where the time of a call goes: `Function.profile` and `TorchFunction.profile`.

```python
prof = f.profile(a, b, out, repeat=10)        # or net.profile(x, repeat=10)
print(prof)                                   # one row per top-level stage, slowest first
prof.rows[0].name, prof.rows[0].ms            # the data
prof.save_chrome_trace("trace.json")          # Perfetto, chrome://tracing
```

The profiling variant of a function (`Function.profiling_variant`: the same program,
schedule and passes, plus `instrument-stages`) reads a native clock before and after
each top-level loop nest (`compiler.lowering.profile_marks`). `measure` calls it
`repeat` times and reads the timestamps after each call; a row is a root stage (the
nests that store it: a reduction whose init runs in a nest of its own has two), with
the median of its time over the calls. The call itself is timed from Python with the
same clock, so `outside_ms` (the median over the calls of the call's time minus its
nests') is the wrapper's and the ABI's work (DLPack tensors, argument checks, the
arena) and whatever runs between the nests (the calls of `te.extern` stages).

Each thread also reads the clock around its chunk of a nest's parallel loops: a row's
`busy_ms` is the busiest thread's time in them, so `ms - busy_ms` is what the fork,
the join and the wait for a thread the OS has not scheduled yet cost; the trace shows
the chunks on the threads' tracks.

GFLOP/s is counted for a nest that computes a reduction (`te.reduce` in a stage it
stores to): 2 x the stage's output elements x the product of its reduction extents,
per stage, over the nest's median time: a multiply and an add per reduction step,
whatever the reduction (a max pool counts the same).
"""

from __future__ import annotations

import json
import math
import os
import statistics
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xdsl.dialects.builtin import ModuleOp

from compiler.dialects import te
from compiler.dialects.shape import Dim, attr_to_dims

if TYPE_CHECKING:
    from compiler.passes.instrument_stages import NestRecord


@dataclass(frozen=True)
class StageFacts:
    """A te stage of the source program: its output shape, and its reduction extents
    (None: not a reduction; `"?"`: an extent that depends on the output's index)."""

    shape: tuple[Dim, ...]
    reduce_extents: tuple[Dim, ...] | None


def te_stage_facts(module: ModuleOp, name: str) -> dict[str, StageFacts]:
    """The stages of the `te.func @name` of `module`, by name (empty for a loop.func)."""
    facts: dict[str, StageFacts] = {}
    for func in module.ops:
        if not (isinstance(func, te.FuncOp) and func.sym_name.data == name):
            continue
        for op in func.body.block.ops:
            if not isinstance(op, te.ComputeOp):
                continue
            reduces = [r for r in op.body.block.ops if isinstance(r, te.ReduceOp)]
            extents = tuple(d for r in reduces for d in attr_to_dims(r.extents)) if reduces else None
            facts[op.stage.data] = StageFacts(op.tensor_type.get_shape(), extents)
    return facts


@dataclass(frozen=True)
class ProfileRow:
    """A top-level stage of a profiled call (see `Function.profile`).

    `module` and `op` name the torch module and the ATen op(s) the stages came from
    (`TorchFunction.profile`; '' for a `build()` function); `stages` are the te stages
    the row's nests store to, its root first; `gflops` is None where no stage of the row
    computes a reduction; `busy_ms` is None where no parallel loop of the row forked."""

    name: str
    module: str
    op: str
    shape: tuple[int, ...]
    schedule: str
    ms: float
    share: float
    gflops: float | None
    stages: tuple[str, ...]
    busy_ms: float | None = None
    """For a row with parallel loops: the median over the calls of the busiest thread's
    time in its chunks (`ms` minus this is the fork, the join and the wait for threads)."""


@dataclass(frozen=True)
class _Chunk:
    """The chunks one thread ran of a nest's parallel loops in one call: from the start of
    its first to the end of its last (ns), and the sum of their times."""

    nest: int
    thread: int
    start: int
    end: int
    busy: int


@dataclass(frozen=True)
class _Call:
    """One profiled call: its start and end (ns, the marks' clock), the marks' stamps and
    the threads' chunks."""

    start: int
    end: int
    stamps: tuple[int, ...]
    chunks: tuple[_Chunk, ...] = ()


class Profile:
    """The result of `Function.profile`: `rows` (slowest first), `call_ms` (the median
    call), `outside_ms` (the median of the call minus its stages), `repeat`; `str()` is
    the table, `table(limit)` its first rows, `save_chrome_trace(path)` the calls as a
    Trace Event file."""

    def __init__(
        self, function: str, rows: list[ProfileRow], nests: list[str], calls: list[_Call], thread: int
    ):
        self.function = function
        self.rows = sorted(rows, key=lambda r: -r.ms)
        self.repeat = len(calls)
        self.call_ms = statistics.median((c.end - c.start) / 1e6 for c in calls)
        self.outside_ms = statistics.median(_outside_ns(c) / 1e6 for c in calls)
        self._nests = nests  # the row (root stage) of each nest, in order
        self._calls = calls
        self._thread = thread

    def with_origins(self, origin: Callable[[Sequence[str]], tuple[str, str]]) -> Profile:
        """The same profile with each row's `module` and `op` from `origin(row.stages)`."""
        rows = [replace(r, module=m, op=o) for r in self.rows for m, o in [origin(r.stages)]]
        return Profile(self.function, rows, self._nests, self._calls, self._thread)

    @property
    def stages_ms(self) -> float:
        """The sum of the rows' medians."""
        return sum(r.ms for r in self.rows)

    def __str__(self) -> str:
        return self.table()

    def __repr__(self) -> str:
        return f"<Profile {self.function}: {len(self.rows)} stages, median call {self.call_ms:.3f} ms over {self.repeat}>"

    def table(self, limit: int | None = None) -> str:
        """The rows as a table, slowest first (the first `limit` of them)."""
        rows = self.rows if limit is None else self.rows[:limit]
        networked = any(r.module or r.op for r in self.rows)
        header = ["#", "name", "ms", "share", "busy ms", "GFLOP/s", "shape", *(["module", "op"] if networked else []), "schedule"]
        lines = [header]
        for k, r in enumerate(rows):
            gflops = "" if r.gflops is None else f"{r.gflops:.1f}"
            busy = "" if r.busy_ms is None else f"{r.busy_ms:.3f}"
            shape = "x".join(map(str, r.shape))
            cells = [str(k + 1), r.name, f"{r.ms:.3f}", f"{100 * r.share:.1f}%", busy, gflops, shape]
            lines.append([*cells, *([r.module, r.op] if networked else []), r.schedule])
        widths = [max(len(line[c]) for line in lines) for c in range(len(header))]
        right = {2, 3, 4, 5}
        text = [
            "  ".join(cell.rjust(w) if c in right else cell.ljust(w) for c, (cell, w) in enumerate(zip(line, widths, strict=True))).rstrip()
            for line in lines
        ]
        share = self.stages_ms / self.call_ms if self.call_ms > 0 else 0.0
        head = (
            f"profile of {self.function}: median call {self.call_ms:.3f} ms over {self.repeat} calls; "
            f"{len(self.rows)} stages {self.stages_ms:.3f} ms ({100 * share:.1f}%), "
            f"outside the stages {self.outside_ms:.3f} ms"
        )
        more = [] if len(rows) == len(self.rows) else [f"... {len(self.rows) - len(rows)} more stages"]
        return "\n".join([head, *text, *more])

    def chrome_trace(self) -> dict[str, Any]:
        """The calls in the Trace Event format: one complete event ("X") per call (`cat`
        "call") and per nest of each call ("stage") on the calling thread's track, and per
        thread and nest with a parallel loop ("chunk": from the start of the thread's first
        chunk to the end of its last, `args.busy_ms` their sum) on the thread's track
        (OpenMP thread 0 is the calling thread). Timestamps and durations are in
        microseconds from the start of the first call."""
        pid, tid = os.getpid(), self._thread
        origin = self._calls[0].start
        rows = {r.name: r for r in self.rows}
        events: list[dict[str, Any]] = [
            {"ph": "M", "name": "process_name", "pid": pid, "tid": tid, "args": {"name": f"compiler: {self.function}"}},
            {"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": "calling thread (OpenMP thread 0)"}},
        ]
        workers = sorted({c.thread for call in self._calls for c in call.chunks if c.thread > 0})
        for t in workers:
            events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": _worker_tid(t), "args": {"name": f"OpenMP thread {t}"}})
        for n, call in enumerate(self._calls):
            events.append(_complete(self.function, "call", call.start - origin, call.end - call.start, pid, tid, {"call": n}))
            for k, name in enumerate(self._nests):
                begin, end = call.stamps[2 * k], call.stamps[2 * k + 1]
                row = rows[name]
                args = {"call": n, "shape": list(row.shape), "schedule": row.schedule, "stages": list(row.stages)}
                if row.module or row.op:
                    args |= {"module": row.module, "op": row.op}
                events.append(_complete(name, "stage", begin - origin, end - begin, pid, tid, args))
            for c in call.chunks:
                args = {"call": n, "thread": c.thread, "busy_ms": c.busy / 1e6}
                track = tid if c.thread == 0 else _worker_tid(c.thread)
                events.append(_complete(self._nests[c.nest], "chunk", c.start - origin, c.end - c.start, pid, track, args))
        return {"traceEvents": events, "displayTimeUnit": "ms"}

    def save_chrome_trace(self, path: str | os.PathLike[str]) -> Path:
        """Write `chrome_trace()` as JSON to `path` (open it in Perfetto or chrome://tracing)."""
        out = Path(path)
        out.write_text(json.dumps(self.chrome_trace()))
        return out


def _worker_tid(thread: int) -> int:
    """The track of OpenMP thread `thread` (not an OS thread id: libgomp does not tell it)."""
    return 1_000_000 + thread


def _chunks(slots: Any, events: int, nests: int, threads: int) -> tuple[_Chunk, ...]:
    from compiler.lowering.profile_marks import CHUNK_FIELDS

    cells = slots[events : events + nests * threads * CHUNK_FIELDS].reshape(nests, threads, CHUNK_FIELDS)
    return tuple(
        _Chunk(k, t, int(first), int(end), int(busy))
        for k in range(nests)
        for t in range(threads)
        for first, _, end, busy in [cells[k, t]]
        if first >= 0 and end >= first
    )


def _busy_ms(calls: Sequence[_Call], nests: set[int]) -> float | None:
    """The median over `calls` of the busiest thread's chunk time in `nests` (None: no chunk)."""
    per_call = []
    for call in calls:
        busy: dict[int, int] = {}
        for c in call.chunks:
            if c.nest in nests:
                busy[c.thread] = busy.get(c.thread, 0) + c.busy
        if busy:
            per_call.append(max(busy.values()) / 1e6)
    return statistics.median(per_call) if per_call else None


def _complete(name: str, cat: str, ts_ns: int, dur_ns: int, pid: int, tid: int, args: dict[str, Any]) -> dict[str, Any]:
    return {"ph": "X", "name": name, "cat": cat, "ts": ts_ns / 1e3, "dur": dur_ns / 1e3, "pid": pid, "tid": tid, "args": args}


def _outside_ns(call: _Call) -> int:
    inside = sum(call.stamps[k + 1] - call.stamps[k] for k in range(0, len(call.stamps), 2))
    return call.end - call.start - inside


# ---------------------------------------------------------------------------
# Measuring
# ---------------------------------------------------------------------------


def _bindings(dims: Sequence[Sequence[Dim]], arrays: Sequence[Any]) -> dict[str, int]:
    """The symbolic sizes the arguments bind (the call checked them)."""
    env: dict[str, int] = {}
    for arg_dims, array in zip(dims, arrays, strict=False):
        shape = getattr(array, "shape", None)
        if shape is None:
            continue
        for d, size in zip(arg_dims, shape, strict=False):
            if isinstance(d, str) and d.isidentifier():
                env.setdefault(d, int(size))
    return env


def _size(dims: Sequence[Dim], env: dict[str, int]) -> int | None:
    """The product of `dims` at the bound sizes (None: a dimension it cannot evaluate)."""
    from compiler.arith.expr import evaluate
    from compiler.arith.parse import parse_expr

    total = 1
    for d in dims:
        try:
            total *= d if isinstance(d, int) else evaluate(parse_expr(d), env)
        except Exception:  # a "?" extent, an unbound name: no count
            return None
    return total


def _flops(stages: Sequence[str], facts: dict[str, StageFacts], env: dict[str, int]) -> float | None:
    """2 x elements x reduction extent, summed over the reductions among `stages`."""
    counts = [
        (_size(f.shape, env), _size(f.reduce_extents, env))
        for s in stages
        if (f := facts.get(s)) is not None and f.reduce_extents is not None
    ]
    if not counts or any(a is None or b is None for a, b in counts):
        return None
    return float(sum(2 * a * b for a, b in counts if a is not None and b is not None))


def measure(
    name: str,
    fn: Callable[..., None],
    dims: Sequence[Sequence[Dim]],
    records: list[NestRecord],
    facts: dict[str, StageFacts],
    arrays: Sequence[Any],
    *,
    repeat: int,
    warmup: int,
) -> Profile:
    """Call the profiling variant `fn` (named `name`, its arguments' shapes `dims`)
    `warmup` times, then `repeat` times reading its marks."""
    from compiler.lowering.profile_marks import now_ns, recording, reset
    from compiler.runtime.threads import get_num_threads

    for _ in range(warmup):
        fn(*arrays)
    calls: list[_Call] = []
    events, threads = 2 * len(records), get_num_threads()
    with recording(events, len(records), threads) as slots:
        for _ in range(repeat):
            reset(slots, events)
            start = now_ns()
            fn(*arrays)
            end = now_ns()
            stamps = tuple(int(t) for t in slots[:events])
            if any(t < 0 for t in stamps):  # a nest that did not run (cannot happen: no branch skips one)
                stamps = tuple(max(t, 0) for t in stamps)
            calls.append(_Call(start, end, stamps, _chunks(slots, events, len(records), threads)))
    env = _bindings(dims, arrays)
    nests = [r.name for r in records]
    order = list(dict.fromkeys(nests))  # a row per root stage, in the order of the nests
    call_ms = statistics.median((c.end - c.start) / 1e6 for c in calls)
    rows: list[ProfileRow] = []
    for stage in order:
        ks = [k for k, n in enumerate(nests) if n == stage]
        ms = statistics.median(sum(c.stamps[2 * k + 1] - c.stamps[2 * k] for k in ks) / 1e6 for c in calls)
        stages = tuple(dict.fromkeys(s for k in ks for s in records[k].stores))
        slowest = max(ks, key=lambda k: statistics.median(c.stamps[2 * k + 1] - c.stamps[2 * k] for c in calls))
        flops = _flops(stages, facts, env)
        shape_size = [_size([d], env) for d in records[ks[0]].shape]
        shape = tuple(s if s is not None else -1 for s in shape_size)
        gflops = None if flops is None else (flops / (ms * 1e6) if ms > 0 else math.inf)
        share = ms / call_ms if call_ms > 0 else 0.0
        schedule = records[slowest].schedule.replace(" | ", " · ")
        rows.append(ProfileRow(stage, "", "", shape, schedule, ms, share, gflops, stages, _busy_ms(calls, set(ks))))
    return Profile(name, rows, nests, calls, threading.get_native_id())
