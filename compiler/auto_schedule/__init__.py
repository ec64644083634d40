"""The automatic scheduler: a schedule for every stage the user left unscheduled.

`plan_function(func, schedule, target)` chooses, stage by stage, from a small
analytical cost model of the host (`Target`: vector width, vector registers,
cache sizes, cores); `emit_plans` writes the choices as `sched` ops (the
`auto-schedule` pass runs both; `compiler.tune` varies the plans and measures).
The modules, in the order they build on one another: `features` (what a stage
reads and computes), `inlining` (which stages are inlined: the one policy, also
`compiler.torch`'s fusion schedule), `cost` (one stage's plan), `plan` (every
stage's, and the rules that span stages), `emit` (the `sched` ops).

For each stage:

* injective stages that are not results are inlined into their consumers,
  except a guarded stage (a pad: its body holds a lazy `scf.if`) read by a
  reduction, which stays a stage of its own (inlined, its guard would run in
  the reduction's innermost loop);
* the vector axis is the innermost data axis when some read walks it
  contiguously (its last index uses it) or no read uses it (a broadcast);
  otherwise nothing is vectorized (a row sum would gather);
* a reduction gets a register tile: `unroll` rows of an axis that the
  vector-contiguous read does not use (so each vector load feeds `unroll`
  FMAs: `i` of a matmul, the output channel of a conv) times `vector` lanes,
  chosen to minimize loads per FMA with the accumulators in the vector
  registers; its reduce loops run outside the tile (the pattern of the hand
  schedules in bench/suite.py) and a short innermost reduce loop is unrolled;
  a long reduction whose panel (reduce extent x vector tile) overflows half of
  L1 is split and its outer part runs outside the row tiles (GEMM blocking);
* leading outer data loops are fused until they give each core a few
  iterations, and run in parallel;
* a reduction (not a matmul's packed panel) whose only consumer reads it
  element for element (a conv's bias and relu, inlined into one stage) is
  computed in that consumer's tile: the consumer's loops take the register
  tile's splits and order, and the reduction is computed at its innermost
  outer loop, so its buffer is one tile (registers) instead of a tensor that
  the epilogue reads back (TVM's fused conv + bias + relu);
* the stages a result reads row for row (its leading axes, all but the last:
  attention's scores, row max, exponentials and row sum), when one is a
  reduction and the largest would not fit in L2, are computed per block of the
  result's rows at its parallel block loop, each serial inside it with its own
  plan: a block's intermediates stay in cache (a quarter of L2 for the largest)
  and the whole tensors are never made (FlashAttention's row blocks).

A stage the user already scheduled (any `sched` op names it) is kept as it is;
the rest are scheduled around it. Splits prefer factors that divide the
extent, so the common shapes need no tail guard; where none does (a prime
extent, symbolic sizes) the split's tail is bounded by infer-bound as for any
schedule, so a plan never changes results.
"""

from compiler.auto_schedule.cost import StagePlan, plan_injective, plan_reduction
from compiler.auto_schedule.emit import emit_plans
from compiler.auto_schedule.features import StageInfo, stage_info
from compiler.auto_schedule.plan import plan_function

__all__ = ["StageInfo", "StagePlan", "emit_plans", "plan_function", "plan_injective", "plan_reduction", "stage_info"]
