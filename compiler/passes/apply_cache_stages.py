"""apply-cache-stages: cache_read, cache_write and storage_align applied to the `te.func`.

TVM rewrites its operation graph when `Schedule.cache_read`/`cache_write` are
called (src/te/schedule/schedule_dataflow_rewrite.cc); here the schedule
records them as `sched.cache_read`/`sched.cache_write`, and this pass, first
in the pipeline, performs the rewrite (`compiler.schedule.cache_stages`) so
that every later pass sees ordinary stages:

  sched.cache_write "C", "local"   ->  te.compute "C.local" (C's axes, reduce axes, body)
                                        te.compute "C" reads C.local[i, j]
  sched.cache_read "A", "local" readers ["B"]
                                   ->  te.compute "A.local" (A.local[i] = A[i]); B reads it

The sched ops are removed from the schedule, with the splits, fuses and
reorders of a stage made before its cache_write (they became the cache's
layout); the primitives that follow (on "C.local" too) stay. A
`sched.storage_align` moves onto its stage as `te.storage_align`, which
schedule-ops turns into the strides of the stage's buffer.

infer-bound and compute-inline apply the same rewrite first when this pass
did not run, so `compiler-opt -p infer-bound` works on such schedules too.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp

from compiler.dialects import te
from compiler.passes import TeFunctionPass
from compiler.schedule.model import apply_dataflow_rewrites


@dataclass(frozen=True)
class ApplyCacheStagesPass(TeFunctionPass):
    """Apply every sched.cache_read / cache_write / storage_align to its te.func."""

    name = "apply-cache-stages"

    def run_on_function(self, module: ModuleOp, func: te.FuncOp) -> None:
        apply_dataflow_rewrites(module, func)
